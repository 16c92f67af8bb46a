import { describe, expect, it } from 'vitest';
import { checkExitCode } from '../../src/check/exit-code.js';
import type { BaselineChange, ThresholdResult } from '../../src/model/check-report.js';

const threshold = (status: ThresholdResult['status']): ThresholdResult => ({
  key: 'maxWastePct',
  name: 'max-waste-pct',
  scope: 'fleet',
  target: 'fleet',
  host: null,
  comparison: 'at-most',
  limit: 10,
  actual: status === 'no-data' ? null : status === 'pass' ? 5 : 50,
  unit: '%',
  figure: 'summary.wastePct',
  status,
  failsCheck: status === 'fail',
});

const regression: BaselineChange = { kind: 'figure-worsened', target: 'fleet', summary: 'wastePct of the fleet: 10.0% -> 40.0%' };

describe('checkExitCode', () => {
  it('is 0 when every limit holds and no finding is error-level', () => {
    expect(checkExitCode([threshold('pass')], [{ level: 'warn' }])).toBe(0);
    expect(checkExitCode([], [])).toBe(0);
  });

  it('is 0 for a limit without data: nothing was breached', () => {
    expect(checkExitCode([threshold('no-data')], [])).toBe(0);
  });

  it('is 1 for a breached limit', () => {
    expect(checkExitCode([threshold('pass'), threshold('fail')], [])).toBe(1);
  });

  it('is 1 for an error-level finding, not for warn-level ones', () => {
    expect(checkExitCode([], [{ level: 'warn' }, { level: 'error' }])).toBe(1);
    expect(checkExitCode([], [{ level: 'warn' }])).toBe(0);
  });

  it('with a baseline, is 1 only for regressions: breaches and errors that were there before pass', () => {
    expect(checkExitCode([threshold('fail')], [{ level: 'error' }], { regressions: [] })).toBe(0);
    expect(checkExitCode([threshold('pass')], [], { regressions: [regression] })).toBe(1);
  });

  it('is 2 when inputs were skipped and nothing failed; a breach still says 1', () => {
    expect(checkExitCode([threshold('pass')], [], undefined, 1)).toBe(2);
    expect(checkExitCode([threshold('fail')], [], undefined, 1)).toBe(1);
    expect(checkExitCode([], [], { regressions: [] }, 2)).toBe(2);
  });
});

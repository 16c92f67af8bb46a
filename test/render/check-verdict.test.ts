import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/index.js';
import type { CheckReport } from '../../src/model/check-report.js';
import { MAX_LISTED, renderCheckJson, renderCheckJsonPieces, renderCheckMarkdown, renderCheckTable } from '../../src/render/check-verdict.js';
import { inContractOrder, REPORT_ORDER } from '../../src/model/report-key-order.js';
import { DEFAULT_RENDER_OPTIONS } from '../../src/render/types.js';
import { ANSI_OR_CONTROL, copyOf, lineWith, linesOf, tokens } from './helpers.js';
import { A10G_ID, SMALL_FLEET } from '../fixtures/reports/small-fleet.js';

// SMALL_FLEET: waste 41.67 %, idle 30 h, monthly waste $4,006.97; headroom 0.64 / 47.37 / 7.09 / 91.11 % per device.
const check: CheckReport = {
  report: SMALL_FLEET,
  check: runCheck(SMALL_FLEET, { thresholds: { limits: { maxWastePct: 10, maxIdleGpuHours: 40, maxMonthlyWasteUsd: 5000, minVramHeadroomPct: 5 }, findingLevels: {} } }),
};

describe('check as a table', () => {
  const text = renderCheckTable(check, DEFAULT_RENDER_OPTIONS);

  it('starts with the verdict and one line per limit: status, name, target, actual with unit, limit', () => {
    const lines = linesOf(text);
    expect(lines[0]).toBe('gpu-audit check FAILED: 2 limit(s) breached, 0 error-level finding(s)');
    expect(tokens(lineWith(text, 'max-waste-pct'))).toEqual(['FAIL', 'max-waste-pct', 'fleet', '41.7', '%', 'limit', '<=', '10', '%']);
    expect(tokens(lineWith(text, 'max-idle-gpu-hours'))).toEqual(['PASS', 'max-idle-gpu-hours', 'fleet', '30.0', 'h', 'limit', '<=', '40', 'h']);
    expect(tokens(lineWith(text, 'max-monthly-waste-usd'))).toEqual(['PASS', 'max-monthly-waste-usd', 'fleet', '$4,007/month', 'limit', '<=', '$5,000/month']);
  });

  it('sums a per-GPU limit up in one line and lists only the GPUs that breach it', () => {
    expect(lineWith(text, 'GPUs within the limit').trim()).toBe('FAIL    min-vram-headroom-pct: 3 of 4 GPUs within the limit');
    expect(tokens(lineWith(text, 'min-vram-headroom-pct  node-a'))).toEqual(['FAIL', 'min-vram-headroom-pct', 'node-a', '#0', '8f3c2a1b', 'GI', '1', '0.6', '%', 'limit', '>=', '5', '%']);
  });

  it('then prints the audit report, without colour unless asked', () => {
    expect(text).toContain('GPU audit report');
    expect(text.indexOf('gpu-audit check FAILED')).toBeLessThan(text.indexOf('GPU audit report'));
    expect(text).not.toMatch(ANSI_OR_CONTROL);
    expect(renderCheckTable(check, { ...DEFAULT_RENDER_OPTIONS, color: true })).toContain('\u001b[');
  });
});

describe('the min-utilization verdict', () => {
  // SMALL_FLEET mean compute: (75 processes + 62.5 utilization + 3.2 utilization) / 3 = 46.9 %, basis mixed
  const utilization: CheckReport = { report: SMALL_FLEET, check: runCheck(SMALL_FLEET, { thresholds: { limits: { minUtilization: 50 }, findingLevels: {} } }) };

  it('names the compute basis the fleet mean was taken on', () => {
    expect(tokens(lineWith(renderCheckTable(utilization, DEFAULT_RENDER_OPTIONS), 'min-utilization'))).toEqual([
      'FAIL', 'min-utilization', 'fleet', '46.9', '%', 'limit', '>=', '50', '%', '(mixed', 'basis)',
    ]);
    expect(renderCheckMarkdown(utilization, DEFAULT_RENDER_OPTIONS)).toContain('| FAIL | min-utilization | fleet | 46.9 % (mixed basis) | ≥ 50 % |');
  });
});

describe('long lists', () => {
  it('show the first MAX_LISTED changes and count the rest', () => {
    const many = copyOf(SMALL_FLEET);
    const baseline = copyOf(SMALL_FLEET);
    // 25 GPUs the baseline lacks: 25 notes.
    many.gpus = Array.from({ length: 25 }, (_, index) => ({ ...SMALL_FLEET.gpus.at(-1)!, id: `GPU-new-${index}`, index }));
    const result: CheckReport = { report: many, check: runCheck(many, { thresholds: { limits: {}, findingLevels: {} }, baseline: { report: baseline, ref: 'b.json', tolerance: 5 } }) };
    const notes = linesOf(renderCheckTable(result, DEFAULT_RENDER_OPTIONS)).filter((line) => line.trim().startsWith('NOTE'));
    expect(notes).toHaveLength(MAX_LISTED + 1);
    expect(notes.at(-1)!.trim()).toBe(`NOTE      ... and ${25 + SMALL_FLEET.gpus.length - MAX_LISTED} more (--format json lists all)`);
  });
});

describe('check as Markdown and JSON', () => {
  it('puts the verdict table before the report', () => {
    const text = renderCheckMarkdown(check, DEFAULT_RENDER_OPTIONS);
    expect(text.startsWith('## gpu-audit check FAILED')).toBe(true);
    // A per-GPU limit: one row summing it up, then a row per GPU that breaches it.
    expect(text).toContain('| FAIL | min-vram-headroom-pct | 3 of 4 GPUs within the limit |  | ≥ 5 % |\n| FAIL | min-vram-headroom-pct | node-a #0 8f3c2a1b GI 1 | 0.6 % | ≥ 5 % |\n');
    expect(text).toContain('# GPU audit report');
  });

  it('writes { report, check } in pieces that join to the one text of JSON.stringify, report in contract order', () => {
    const report = copyOf(SMALL_FLEET);
    // 600 GPUs: the report's elements go in several batches.
    report.gpus = Array.from({ length: 600 }, (_, index) => ({ ...SMALL_FLEET.gpus[0]!, id: `GPU-${index}`, index }));
    for (const shown of [check, { ...check, report }]) {
      const pieces = [...renderCheckJsonPieces(shown)];
      const whole = `${JSON.stringify({ report: inContractOrder(shown.report, REPORT_ORDER), check: shown.check }, null, 2)}\n`;
      expect(pieces.join('')).toBe(whole);
      expect(renderCheckJson(shown)).toBe(whole);
    }
    expect([...renderCheckJsonPieces({ ...check, report })].length).toBeGreaterThan(4);
  });

  it('emits { report, check }: the report whole, the check beside it', () => {
    const value = JSON.parse(renderCheckJson(check)) as { report: typeof SMALL_FLEET; check: CheckReport['check'] };
    expect(Object.keys(value)).toEqual(['report', 'check']);
    expect(value.report.summary).toEqual(SMALL_FLEET.summary);
    expect(value.check.verdict).toBe('fail');
    expect(value.check.exitCode).toBe(1);
    expect(value.check.thresholds.filter((result) => result.failsCheck).map((result) => result.name)).toEqual(['max-waste-pct', 'min-vram-headroom-pct']);
    expect(value.check.thresholds.find((result) => result.target === A10G_ID)?.status).toBe('pass');
  });
});

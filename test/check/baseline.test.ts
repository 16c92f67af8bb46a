import { describe, expect, it } from 'vitest';
import { comparedPart, compareWithBaseline } from '../../src/check/baseline.js';
import { runCheck } from '../../src/check/index.js';
import type { Thresholds } from '../../src/model/index.js';
import type { Finding, Report } from '../../src/model/report.js';
import { copyOf } from '../render/helpers.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { A10G_ID, H100_WHOLE_ID, SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { SNAPSHOT_ONLY } from '../fixtures/reports/snapshot-only.js';

const NONE: Thresholds = { limits: {}, findingLevels: {} };
const compare = (current: Report, baseline: Report, thresholds = NONE, tolerance = 5) =>
  compareWithBaseline(current, baseline, { ref: 'baseline.json', tolerance, thresholds });

/** SMALL_FLEET with the A10G idle `idleFraction` of the time; fleet figures follow by hand. */
function withA10gIdle(idleFraction: number, wastePct: number): Report {
  const report = copyOf(SMALL_FLEET);
  const a10g = report.gpus.find((gpu) => gpu.id === A10G_ID)!;
  a10g.idleFraction = idleFraction;
  a10g.idleHours = idleFraction * 24;
  report.summary.wastePct = wastePct;
  return report;
}

const idleFinding = (target: string): Finding => ({
  id: `idle-gpu:${target}`,
  code: 'idle-gpu',
  severity: 'error',
  target,
  message: 'Idle 95% of 24 h observed.',
  evidence: { idleFraction: 0.95 },
});

describe('compareWithBaseline', () => {
  it('finds nothing between a report and itself', () => {
    const comparison = compare(SMALL_FLEET, SMALL_FLEET, { limits: { maxWastePct: 10 }, findingLevels: {} });
    expect(comparison.regressions).toEqual([]);
    expect(comparison.improvements).toEqual([]);
    // max-waste-pct 10 fails on both (41.7 %): a note, not a regression.
    expect(comparison.notes.map((change) => change.kind)).toEqual(['threshold-still-breached']);
  });

  it('calls a figure that worsened by more than the tolerance a regression, and lists it with both values', () => {
    // Baseline: the A10G idle 25 % of the day; waste (6 + 3 + 6) / 72 = 20.83 %. Now: 87.5 % and 41.67 %.
    const better = withA10gIdle(0.25, (15 / 72) * 100);
    const comparison = compare(SMALL_FLEET, better);
    const kinds = comparison.regressions.map((change) => [change.kind, change.figure?.figure, change.target]);
    expect(kinds).toEqual([
      ['figure-worsened', 'wastePct', 'fleet'], // +20.83 points > 5
      ['figure-worsened', 'idlePct', A10G_ID], // 25 % -> 87.5 %: +62.5 points
    ]);
    const waste = comparison.regressions[0]!.figure!;
    expect(waste.baseline).toBeCloseTo(20.833, 3);
    expect(waste.current).toBeCloseTo(41.667, 3);
    expect(waste.delta).toBeCloseTo(20.833, 3);
    expect(comparison.regressions[0]!.summary).toContain('wastePct of the fleet: 20.8% -> 41.7% (+20.8 points; tolerance 5 points)');
  });

  it('lists what got better, and does not fail on it', () => {
    const worse = withA10gIdle(1, (33 / 72) * 100); // 45.83 % waste then, 41.67 % now: better by 4.17 points only
    const comparison = compare(SMALL_FLEET, worse);
    expect(comparison.regressions).toEqual([]);
    // The A10G: 100 % idle then, 87.5 % now: 12.5 points better. The fleet's 4.17 points are within the tolerance.
    expect(comparison.improvements.map((change) => [change.kind, change.figure?.figure, change.target])).toEqual([['figure-improved', 'idlePct', A10G_ID]]);
  });

  it('tolerates a worsening up to the tolerance', () => {
    // Waste then 36.67 %, now 41.667 %: worse by 4.997 points, within 5 but not within 4.9.
    const baseline = withA10gIdle(0.875, 41.67 - 5);
    expect(compare(SMALL_FLEET, baseline, NONE, 5).regressions.map((change) => change.figure?.figure)).toEqual([]);
    expect(compare(SMALL_FLEET, baseline, NONE, 4.9).regressions.map((change) => change.figure?.figure)).toEqual(['wastePct']);
  });

  it('compares money figures relative to the baseline: +10 % of monthly waste is a regression at tolerance 5', () => {
    const baseline = copyOf(SMALL_FLEET);
    baseline.summary.monthlyWasteUsd = SMALL_FLEET.summary.monthlyWasteUsd! / 1.1;
    const [change] = compare(SMALL_FLEET, baseline).regressions;
    expect(change).toMatchObject({ kind: 'figure-worsened', figure: { figure: 'monthlyWasteUsd', toleranceUnit: '%' } });
  });

  it('calls a utilization drop a regression (higher is better)', () => {
    const baseline = copyOf(SMALL_FLEET);
    baseline.summary.meanUtilization = 45; // 45 % then, 32.85 % now
    expect(compare(SMALL_FLEET, baseline).regressions.map((change) => change.figure?.figure)).toEqual(['meanUtilization']);
  });

  it('fails a limit breached now that held in the baseline, and lists one that now holds as better', () => {
    const thresholds: Thresholds = { limits: { maxWastePct: 30 }, findingLevels: {} };
    const better = withA10gIdle(0.25, (15 / 72) * 100); // 20.8 % then: within 30
    expect(compare(SMALL_FLEET, better, thresholds, 100).regressions).toMatchObject([{ kind: 'threshold-newly-breached', threshold: 'max-waste-pct', target: 'fleet' }]);
    expect(compare(better, SMALL_FLEET, thresholds, 100).improvements).toMatchObject([{ kind: 'threshold-now-holds', threshold: 'max-waste-pct' }]);
  });

  it('fails a new finding only when its code is an error in the check; others are notes', () => {
    const current = copyOf(SMALL_FLEET);
    current.findings = [idleFinding(A10G_ID)];
    expect(compare(current, SMALL_FLEET).regressions).toEqual([]);
    expect(compare(current, SMALL_FLEET).notes.map((change) => change.kind)).toEqual(['new-finding']);
    const strict: Thresholds = { limits: {}, findingLevels: { 'idle-gpu': 'error' } };
    expect(compare(current, SMALL_FLEET, strict).regressions).toMatchObject([{ kind: 'new-finding', finding: { id: `idle-gpu:${A10G_ID}`, level: 'error' } }]);
    // Matched by id: the same finding in both is no change.
    expect(compare(current, current, strict).regressions).toEqual([]);
    // Gone since the baseline: better.
    expect(compare(SMALL_FLEET, current, strict).improvements).toMatchObject([{ kind: 'resolved-finding', target: A10G_ID }]);
  });

  it('notes GPUs added and removed (matched by id) without failing', () => {
    const current = copyOf(SMALL_FLEET);
    current.gpus = current.gpus.filter((gpu) => gpu.id !== H100_WHOLE_ID);
    const comparison = compare(current, SMALL_FLEET);
    expect(comparison.notes).toMatchObject([{ kind: 'removed-gpu', target: H100_WHOLE_ID }]);
    expect(compare(SMALL_FLEET, current).notes).toMatchObject([{ kind: 'new-gpu', target: H100_WHOLE_ID }]);
  });
});

describe('runCheck with a baseline', () => {
  it('fails only what is new, so the renderers agree with the exit code', () => {
    const thresholds: Thresholds = { limits: { maxWastePct: 10 }, findingLevels: {} };
    const same = runCheck(SMALL_FLEET, { thresholds, baseline: { report: SMALL_FLEET, ref: 'b.json', tolerance: 5 } });
    expect(same).toMatchObject({ verdict: 'pass', exitCode: 0 });
    expect(same.thresholds).toMatchObject([{ status: 'fail', failsCheck: false }]);

    const without = runCheck(SMALL_FLEET, { thresholds });
    expect(without).toMatchObject({ verdict: 'fail', exitCode: 1, baseline: null });
    expect(without.thresholds).toMatchObject([{ status: 'fail', failsCheck: true }]);
  });
});

describe('comparedPart', () => {
  // Every limit, at values some GPUs and fleets pass and others fail, and every finding an error.
  const strict: Thresholds = {
    limits: { maxWastePct: 10, maxIdleGpuHours: 5, minUtilization: 30, maxMonthlyWasteUsd: 100, minVramHeadroomPct: 5, maxVramHeadroomPct: 60 },
    findingLevels: Object.fromEntries([...SMALL_FLEET.findings, ...FINDINGS_AND_RECOMMENDATIONS.findings].map((finding) => [finding.code, 'error' as const])),
  };
  const reports: [string, Report][] = [
    ['small fleet', SMALL_FLEET],
    ['small fleet, A10G idle', withA10gIdle(0.9, 60)],
    ['findings and recommendations', FINDINGS_AND_RECOMMENDATIONS],
    ['snapshot only', SNAPSHOT_ONLY],
  ];

  it.each(reports)('leaves every comparison with the baseline %s as it was, whatever the current report', (_name, baseline) => {
    const part = comparedPart(baseline);
    for (const [, current] of reports) {
      for (const thresholds of [NONE, strict]) {
        expect(compare(current, part, thresholds)).toEqual(compare(current, baseline, thresholds));
        const options = { thresholds, skippedInputs: [] };
        expect(runCheck(current, { ...options, baseline: { report: part, ref: 'b.json', tolerance: 5 } }))
          .toEqual(runCheck(current, { ...options, baseline: { report: baseline, ref: 'b.json', tolerance: 5 } }));
      }
    }
  });

  it('keeps no time line, hour-of-week profile, process list, statistic but utilization, workload or recommendation', () => {
    const part = comparedPart(FINDINGS_AND_RECOMMENDATIONS);
    expect(part.gpus.map((gpu) => [gpu.timeline, gpu.hourOfWeekComputePct, gpu.processes, gpu.smActive, gpu.tensorActive, gpu.grEngineActive, gpu.memoryUsedMiB]))
      .toEqual(part.gpus.map(() => [null, null, [], null, null, null, null]));
    expect([part.workloads, part.recommendations]).toEqual([[], []]);
    expect(FINDINGS_AND_RECOMMENDATIONS.recommendations.length).toBeGreaterThan(0);
  });
});

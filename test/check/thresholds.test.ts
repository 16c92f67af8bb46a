import { describe, expect, it } from 'vitest';
import { evaluateThresholds, gateFindings } from '../../src/check/evaluate.js';
import { findingLevel, mergeThresholds, thresholdsFromConfig, thresholdsFromFlags, unknownFindingCode } from '../../src/check/thresholds.js';
import { THRESHOLD_DEFINITIONS, type Thresholds } from '../../src/model/index.js';
import { InputError } from '../../src/support/errors.js';
import { copyOf } from '../render/helpers.js';
import { FINDINGS_AND_RECOMMENDATIONS, IDLE_L4_ID } from '../fixtures/reports/findings-and-recommendations.js';
import { A10G_ID, H100_MIG_PARENT_ID, H100_WHOLE_ID, SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { SNAPSHOT_ONLY } from '../fixtures/reports/snapshot-only.js';

const limits = (values: Thresholds['limits']): Thresholds => ({ limits: values, findingLevels: {} });

describe('the threshold table', () => {
  it('declares each threshold once, with a kebab-case flag name and its camelCase key', () => {
    expect(THRESHOLD_DEFINITIONS.map((definition) => definition.name)).toEqual([
      'max-waste-pct',
      'max-idle-gpu-hours',
      'min-utilization',
      'max-monthly-waste-usd',
      'max-savings-usd',
      'min-vram-headroom-pct',
      'max-vram-headroom-pct',
    ]);
    for (const definition of THRESHOLD_DEFINITIONS) {
      expect(definition.name.replace(/-([a-z])/gu, (_, letter: string) => letter.toUpperCase())).toBe(definition.key);
    }
  });
});

describe('fleet thresholds on the small fleet', () => {
  // SMALL_FLEET summary: idle 6 + 3 + 21 = 30 of 72 GPU-hours -> waste 30 / 72 x 100 = 41.67 %;
  // mean compute by compute basis: MIG parent processes (1 - 0.25) x 100 = 75, whole H100 utilization 62.5,
  // A10G utilization 3.2, all 24 h -> (75 + 62.5 + 3.2) / 3 = 46.9 %, basis mixed
  // (min-utilization reads this, not mean utilization (62.5 x 24 + 3.2 x 24) / 48 = 32.85 %);
  // monthly waste (12.29 x 0.25 + 12.29 x 0.125 + 1.006 x 0.875) x 730 = 5.489 x 730 = $4,006.97.
  it.each([
    ['maxWastePct', 41.67, 'pass'],
    ['maxWastePct', 41.66, 'fail'],
    ['maxIdleGpuHours', 30, 'pass'], // equal to the limit holds
    ['maxIdleGpuHours', 29.9, 'fail'],
    ['minUtilization', 46.9, 'pass'],
    ['minUtilization', 47, 'fail'],
    ['maxMonthlyWasteUsd', 4007, 'pass'],
    ['maxMonthlyWasteUsd', 4006, 'fail'],
  ] as const)('%s with limit %d: %s', (key, limit, status) => {
    const [result] = evaluateThresholds(SMALL_FLEET, limits({ [key]: limit }));
    expect(result).toMatchObject({ key, target: 'fleet', limit, status, failsCheck: status === 'fail' });
  });

  it('gates the plan\'s savings: money left on the table fails at more than the limit', () => {
    const planned = { ...SMALL_FLEET, summary: { ...SMALL_FLEET.summary, potentialMonthlySavingsUsd: 1234.56 } };
    expect(evaluateThresholds(planned, limits({ maxSavingsUsd: 1234.56 }))[0]).toMatchObject({ name: 'max-savings-usd', figure: 'plan.monthlySavingsUsd', actual: 1234.56, unit: 'USD/month', status: 'pass' });
    expect(evaluateThresholds(planned, limits({ maxSavingsUsd: 1234.55 }))[0]).toMatchObject({ status: 'fail', failsCheck: true });
  });

  it('reports the actual figure with its unit and the figure it read', () => {
    const [waste, idle, utilization, money] = evaluateThresholds(SMALL_FLEET, limits({ maxWastePct: 10, maxIdleGpuHours: 40, minUtilization: 20, maxMonthlyWasteUsd: 5000 }));
    expect(waste).toMatchObject({ name: 'max-waste-pct', unit: '%', figure: 'summary.wastePct', comparison: 'at-most' });
    expect(waste!.actual).toBeCloseTo(41.667, 3);
    expect(idle).toMatchObject({ name: 'max-idle-gpu-hours', actual: 30, unit: 'h' });
    expect(utilization).toMatchObject({ name: 'min-utilization', actual: 46.9, figure: 'summary.meanComputePct', basis: 'mixed', comparison: 'at-least', status: 'pass' });
    expect(money!.actual).toBeCloseTo(4006.97, 2);
    expect(money).toMatchObject({ unit: 'USD/month', status: 'pass' });
  });

  it('gates min-utilization on the fleet mean compute and names its basis', () => {
    // FINDINGS_AND_RECOMMENDATIONS: both L4s on sm-active, 168 h each: (1.9 + 48.2) / 2 = 25.05 %,
    // though their mean utilization is (4.1 + 71.3) / 2 = 37.7 %: a 30 % floor fails on compute.
    const [result] = evaluateThresholds(FINDINGS_AND_RECOMMENDATIONS, limits({ minUtilization: 30 }));
    expect(result).toMatchObject({ actual: 25.05, basis: 'sm-active', status: 'fail' });
    // Snapshot only: the RTX on utilization (7 %); the unknown-basis GPU is left out.
    expect(evaluateThresholds(SNAPSHOT_ONLY, limits({ minUtilization: 5 }))[0]).toMatchObject({ actual: 7, basis: 'utilization', status: 'pass' });
  });

  it('gives no basis to the thresholds whose figure has a fixed signal', () => {
    const results = evaluateThresholds(SMALL_FLEET, limits({ maxWastePct: 10, minVramHeadroomPct: 5 }));
    expect(results.every((result) => !('basis' in result))).toBe(true);
  });

  it('sets nothing it was not asked to check', () => {
    expect(evaluateThresholds(SMALL_FLEET, limits({}))).toEqual([]);
  });

  it('says no-data, not pass or fail, where the report has no figure (snapshots: no waste, no prices)', () => {
    expect(SNAPSHOT_ONLY.summary.wastePct).toBeNull();
    const [result] = evaluateThresholds(SNAPSHOT_ONLY, limits({ maxWastePct: 10 }));
    expect(result).toMatchObject({ actual: null, status: 'no-data', failsCheck: false });
  });
});

describe('per-GPU VRAM headroom thresholds', () => {
  // Headroom per device: MIG 3g.40gb 256 / 40192 = 0.64 %, MIG 1g.10gb 4608 / 9728 = 47.37 %,
  // whole H100 5783 / 81559 = 7.09 %, A10G 20980 / 23028 = 91.11 %. The MIG parent is not checked:
  // its memory is split among its MIG devices, which are.
  it('checks every device except a MIG parent whose MIG devices are in the report', () => {
    const results = evaluateThresholds(SMALL_FLEET, limits({ minVramHeadroomPct: 5 }));
    expect(results.map((result) => result.target)).toEqual([`${H100_MIG_PARENT_ID}/1`, `${H100_MIG_PARENT_ID}/2`, H100_WHOLE_ID, A10G_ID]);
    expect(results.map((result) => result.status)).toEqual(['fail', 'pass', 'pass', 'pass']);
    expect(results[0]!.actual).toBeCloseTo(0.637, 3);
    expect(results[0]).toMatchObject({ host: 'node-a', scope: 'gpu', figure: 'gpus[].vramHeadroomPct' });
  });

  it('fails the GPUs with more unused memory than --max-vram-headroom-pct', () => {
    const results = evaluateThresholds(SMALL_FLEET, limits({ maxVramHeadroomPct: 90 }));
    expect(results.filter((result) => result.status === 'fail').map((result) => result.target)).toEqual([A10G_ID]);
    expect(results.find((result) => result.target === A10G_ID)!.actual).toBeCloseTo(91.106, 3);
  });

  it('keeps a set limit visible as one no-data result when no device reports headroom', () => {
    const report = copyOf(SMALL_FLEET);
    for (const gpu of report.gpus) gpu.vramHeadroomPct = null;
    expect(evaluateThresholds(report, limits({ minVramHeadroomPct: 5 }))).toMatchObject([{ target: 'fleet', status: 'no-data' }]);
  });
});

describe('finding levels', () => {
  // FINDINGS_AND_RECOMMENDATIONS: low-compute (info), idle-gpu (warning), vram-overprovisioned (info),
  // allocated-unused (error), cpu-bound-pipeline (warning).
  it('reports every finding at warn by default: findings fail nothing until a code is set to error', () => {
    const gated = gateFindings(FINDINGS_AND_RECOMMENDATIONS, limits({}));
    expect(gated.map((finding) => finding.level)).toEqual(gated.map(() => 'warn'));
    expect(gated.some((finding) => finding.failsCheck)).toBe(false);
    expect(gated.find((finding) => finding.code === 'allocated-unused')?.severity).toBe('error');
  });

  it('fails on a code set to error and drops a code set to off', () => {
    const gated = gateFindings(FINDINGS_AND_RECOMMENDATIONS, { limits: {}, findingLevels: { 'idle-gpu': 'error', 'low-compute': 'off' } });
    expect(gated.map((finding) => finding.code)).not.toContain('low-compute');
    expect(gated.find((finding) => finding.code === 'idle-gpu')).toMatchObject({ level: 'error', failsCheck: true, target: IDLE_L4_ID });
    expect(gated.filter((finding) => finding.failsCheck)).toHaveLength(1);
  });

  it('defaults an unnamed code (even one named like an Object method) to warn', () => {
    expect(findingLevel(limits({}), 'constructor')).toBe('warn');
    expect(findingLevel({ limits: {}, findingLevels: { 'short-window': 'off' } }, 'short-window')).toBe('off');
  });
});

describe('where thresholds come from', () => {
  it('takes the threshold flags commander parsed, and the --finding-level map', () => {
    expect(thresholdsFromFlags({ maxWastePct: 10, minVramHeadroomPct: 5, findingLevel: { 'idle-gpu': 'error' } })).toEqual({
      limits: { maxWastePct: 10, minVramHeadroomPct: 5 },
      findingLevels: { 'idle-gpu': 'error' },
    });
  });

  it('lets a flag win over the config, key by key', () => {
    const fromConfig: Thresholds = { limits: { maxWastePct: 30, minUtilization: 40 }, findingLevels: { 'idle-gpu': 'error', 'low-compute': 'off' } };
    const fromFlags: Thresholds = { limits: { maxWastePct: 10 }, findingLevels: { 'idle-gpu': 'warn' } };
    expect(mergeThresholds(fromConfig, fromFlags)).toEqual({
      limits: { maxWastePct: 10, minUtilization: 40 },
      findingLevels: { 'idle-gpu': 'warn', 'low-compute': 'off' },
    });
  });

  it('reads the thresholds: section of gpu-audit.yaml by flag name or camelCase key', () => {
    expect(thresholdsFromConfig({ 'max-waste-pct': 25, minUtilization: 30, findings: { 'idle-gpu': 'error' } })).toEqual({
      limits: { maxWastePct: 25, minUtilization: 30 },
      findingLevels: { 'idle-gpu': 'error' },
    });
  });

  it('rejects a finding code that is not one, with the code it was probably meant to be', () => {
    try {
      thresholdsFromConfig({ findings: { idle: 'error' } }, 'gpu-audit.yaml');
      expect.unreachable();
    } catch (error) {
      expect((error as InputError).describe()).toMatch(/^gpu-audit\.yaml: thresholds\.findings\.idle: unknown finding code `idle`; did you mean `idle-gpu`\? \(known: idle-gpu, /u);
    }
    expect(unknownFindingCode('vram-overprovisoned')).toMatch(/did you mean `vram-overprovisioned`/u);
    expect(unknownFindingCode('spot-blocked')).toBeUndefined();
  });

  it('rejects an unknown threshold name or a percentage over 100, naming the file and the key', () => {
    const unknown = (): Thresholds => thresholdsFromConfig({ 'max-wast-pct': 25 }, 'gpu-audit.yaml');
    expect(unknown).toThrow(InputError);
    expect(unknown).toThrow(/unknown threshold "max-wast-pct"; did you mean `max-waste-pct`\? \(known: max-waste-pct/u);
    try {
      thresholdsFromConfig({ 'min-utilization': 120 }, 'gpu-audit.yaml');
      expect.unreachable();
    } catch (error) {
      expect((error as InputError).describe()).toBe('gpu-audit.yaml: thresholds.min-utilization: expected a percentage from 0 to 100');
    }
  });
});

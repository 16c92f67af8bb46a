import { describe, expect, it } from 'vitest';
import { FINDING_RULES, gpuFindings } from '../../src/analysis/index.js';
import { gpuEntry } from './gpu-fixtures.js';

const options = { idleThresholdPct: 5 };
const DAY_SECONDS = 24 * 3600;
const codesOf = (gpus: Parameters<typeof gpuFindings>[0], windowSeconds = DAY_SECONDS) =>
  gpuFindings(gpus, windowSeconds, options).map((finding) => `${finding.code}:${finding.severity}:${finding.target}`);

describe('idle-gpu', () => {
  it('is a warning from half the observed time idle, an error from 90 %', () => {
    expect(codesOf([
      gpuEntry({ id: 'a', idleFraction: 0.49, idleHours: 49 }),
      gpuEntry({ id: 'b', idleFraction: 0.5, idleHours: 50 }),
      gpuEntry({ id: 'c', idleFraction: 0.9, idleHours: 90 }),
    ])).toEqual(['idle-gpu:warning:b', 'idle-gpu:error:c']);
  });

  it('needs at least an hour observed', () => {
    expect(codesOf([gpuEntry({ id: 'a', idleFraction: 1, idleHours: 0.99, gpuHours: 0.99 })])).toEqual([]);
    expect(codesOf([gpuEntry({ id: 'a', idleFraction: 1, idleHours: 1, gpuHours: 1 })])).toEqual(['idle-gpu:error:a']);
  });

  it('carries its numbers as evidence, wording apart', () => {
    const [finding] = gpuFindings([gpuEntry({ id: 'a', idleFraction: 0.75, idleHours: 75, computeBasis: 'sm-active' })], DAY_SECONDS, options);
    expect(finding).toMatchObject({
      id: 'idle-gpu:a',
      evidence: { idleFraction: 0.75, idleHours: 75, gpuHours: 100, computeBasis: 'sm-active', idleThresholdPct: 5 },
    });
    expect(finding!.message).toBe('Idle 75% of 100 h observed (75 h idle: sm-active below 5%).');
  });

  it('is not raised without an idle signal', () => {
    expect(codesOf([gpuEntry({ id: 'a', idleFraction: null, computeBasis: 'unknown', utilization: null })])).toEqual([]);
  });
});

describe('low-compute', () => {
  it('flags mean utilization below 20 % on a GPU that is not idle-gpu', () => {
    expect(codesOf([
      gpuEntry({ id: 'a', utilization: { mean: 19.9, p50: 20, p95: 40, max: 60 } }),
      gpuEntry({ id: 'b', utilization: { mean: 20, p50: 20, p95: 40, max: 60 } }),
      gpuEntry({ id: 'c', utilization: { mean: 3, p50: 0, p95: 10, max: 30 }, idleFraction: 0.8, idleHours: 80 }),
    ])).toEqual(['low-compute:warning:a', 'idle-gpu:warning:c']);
  });
});

describe('vram-overprovisioned', () => {
  it('flags a peak below half the board memory over at least an hour', () => {
    // 11513 / 23028 = 0.49996 < 0.5; 11514 / 23028 = 0.50000 is not below
    expect(codesOf([
      gpuEntry({ id: 'a', memoryUsedMiB: { mean: 5000, p95: 10000, max: 11513 } }),
      gpuEntry({ id: 'b', memoryUsedMiB: { mean: 5000, p95: 10000, max: 11514 } }),
      gpuEntry({ id: 'c', memoryUsedMiB: { mean: 5000, p95: 10000, max: 100 }, gpuHours: 0.5 }),
    ])).toEqual(['vram-overprovisioned:info:a']);
  });

  it('gives the peak share as evidence', () => {
    const [finding] = gpuFindings([gpuEntry({ id: 'a', memoryUsedMiB: { mean: 100, p95: 200, max: 5757 }, vramHeadroomMiB: 17271 })], DAY_SECONDS, options);
    // 5757 / 23028 = 0.25
    expect(finding!.evidence).toEqual({ peakMiB: 5757, memoryTotalMiB: 23028, peakShareOfTotal: 0.25, vramHeadroomMiB: 17271, gpuHours: 100 });
  });
});

describe('short-window', () => {
  it('is raised for the fleet below 24 hours of data', () => {
    const findings = gpuFindings([gpuEntry({ id: 'a' })], 23 * 3600, options);
    expect(findings.map((finding) => [finding.id, finding.severity])).toEqual([['short-window:fleet', 'info']]);
    expect(findings[0]!.evidence).toEqual({ windowSeconds: 82800, windowHours: 23, minWindowHours: 24, pointValuesOnly: false });
  });

  it('is raised when there are only point values', () => {
    const [finding] = gpuFindings([gpuEntry({ id: 'a', gpuHours: 0 })], 0, options);
    expect(finding).toMatchObject({ code: 'short-window', evidence: { pointValuesOnly: true } });
    expect(finding!.message).toMatch(/point values/);
  });

  it('is not raised for a day or more, nor without GPUs', () => {
    expect(codesOf([gpuEntry({ id: 'a' })], DAY_SECONDS)).toEqual([]);
    expect(codesOf([], 0)).toEqual([]);
  });
});

describe('thresholds', () => {
  it('live in one table', () => {
    expect(Object.keys(FINDING_RULES).sort()).toEqual(['idle-gpu', 'low-compute', 'short-window', 'vram-overprovisioned']);
  });
});

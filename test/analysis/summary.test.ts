import { describe, expect, it } from 'vitest';
import { summarizeFleet } from '../../src/analysis/index.js';
import { HOURS_PER_MONTH } from '../../src/model/index.js';
import { gpuEntry } from './gpu-fixtures.js';

describe('summarizeFleet', () => {
  // Two boards on two hosts and one MIG instance of the first.
  //   a: 100 h, 25 h idle (0.25), mean 40 %, $1.00/h
  //   b:  50 h, 40 h idle (0.80), mean 10 %, $2.00/h
  //   a/1 (MIG): 100 h, 100 h idle, no utilization, no cost of its own
  const gpus = [
    gpuEntry({ id: 'a', host: 'h1', gpuHours: 100, idleHours: 25, idleFraction: 0.25, utilization: { mean: 40, p50: 40, p95: 80, max: 100 }, hourlyCostUsd: 1 }),
    gpuEntry({ id: 'a/1', host: 'h1', parentId: 'a', gpuHours: 100, idleHours: 100, idleFraction: 1, utilization: null, computeBasis: 'processes' }),
    gpuEntry({ id: 'b', host: 'h2', gpuHours: 50, idleHours: 40, idleFraction: 0.8, utilization: { mean: 10, p50: 0, p95: 60, max: 90 }, hourlyCostUsd: 2 }),
  ];
  const summary = summarizeFleet(gpus, 123);

  it('counts physical GPUs, MIG devices and hosts', () => {
    expect(summary).toMatchObject({ gpuCount: 2, migDeviceCount: 1, hostCount: 2, potentialMonthlySavingsUsd: 123 });
  });

  it('totals hours over physical GPUs only', () => {
    // 100 + 50 = 150 h, idle 25 + 40 = 65 h; waste 65 / 150 x 100 = 43.33 %
    expect(summary.gpuHours).toBe(150);
    expect(summary.idleGpuHours).toBe(65);
    expect(summary.wastePct).toBeCloseTo((65 / 150) * 100, 12);
  });

  it('weights mean utilization by GPU-hours', () => {
    // (40 x 100 + 10 x 50) / 150 = 4500 / 150 = 30
    expect(summary.meanUtilization).toBe(30);
  });

  it('prices a month at 730 hours', () => {
    // cost (1 + 2) x 730 = 2190; waste 1 x 0.25 x 730 + 2 x 0.8 x 730 = 182.5 + 1168 = 1350.5
    expect(HOURS_PER_MONTH).toBe(730);
    expect(summary.monthlyCostUsd).toBe(2190);
    expect(summary.monthlyWasteUsd).toBeCloseTo(1350.5, 9);
  });

  it('leaves cost unknown where no GPU has a price', () => {
    const unpriced = summarizeFleet(gpus.map((gpu) => ({ ...gpu, hourlyCostUsd: null })), 0);
    expect(unpriced.monthlyCostUsd).toBeNull();
    expect(unpriced.monthlyWasteUsd).toBeNull();
  });

  it('takes a plain mean of utilization when all GPUs are point values', () => {
    // snapshots: (40 + 10) / 2 = 25; no hours, so no waste percentage
    const snapshots = summarizeFleet(gpus.map((gpu) => ({ ...gpu, gpuHours: 0, idleHours: 0 })), 0);
    expect(snapshots.meanUtilization).toBe(25);
    expect(snapshots.wastePct).toBeNull();
    expect(snapshots.gpuHours).toBe(0);
  });

  it('takes the mean compute on each GPU\'s own compute basis, weighted by GPU-hours', () => {
    // a: utilization basis, mean 40, 100 h; b: utilization basis, mean 10, 50 h; the MIG device is not counted
    // -> (40 x 100 + 10 x 50) / 150 = 30 on the utilization basis
    expect(summary).toMatchObject({ meanComputePct: 30, computeBasis: 'utilization' });
  });

  it('reads sm-active, gr-engine-active, utilization and processes from their own figures and says mixed', () => {
    const stats = (mean: number): { mean: number; p50: number; p95: number; max: number } => ({ mean, p50: mean, p95: mean, max: mean });
    const mixed = summarizeFleet(
      [
        // sm 20 %, though utilization says 90 %: the basis wins; 10 h
        gpuEntry({ id: 's', gpuHours: 10, computeBasis: 'sm-active', smActive: stats(20), utilization: stats(90) }),
        // gr-engine 60 %; 30 h
        gpuEntry({ id: 'g', gpuHours: 30, computeBasis: 'gr-engine-active', grEngineActive: stats(60), utilization: stats(95) }),
        // processes: idle a quarter of the time -> (1 - 0.25) x 100 = 75 %; 40 h
        gpuEntry({ id: 'p', gpuHours: 40, computeBasis: 'processes', utilization: null, idleFraction: 0.25 }),
        // utilization 5 %; 20 h
        gpuEntry({ id: 'u', gpuHours: 20, computeBasis: 'utilization', utilization: stats(5) }),
        // unknown: no compute signal, left out (its 1000 h would otherwise drown the mean)
        gpuEntry({ id: 'x', gpuHours: 1000, computeBasis: 'unknown', utilization: null, idleFraction: null }),
      ],
      0,
    );
    // (20 x 10 + 60 x 30 + 75 x 40 + 5 x 20) / (10 + 30 + 40 + 20) = (200 + 1800 + 3000 + 100) / 100 = 51
    expect(mixed.meanComputePct).toBeCloseTo(51, 12);
    expect(mixed.computeBasis).toBe('mixed');
  });

  it('names the one basis all counted GPUs share, and takes a plain mean of point values', () => {
    // two snapshots on processes: one idle (0 %), one busy (100 %) -> (0 + 100) / 2 = 50; the unknown one is left out
    const snapshots = summarizeFleet(
      [
        gpuEntry({ id: 'idle', gpuHours: 0, computeBasis: 'processes', utilization: null, idleFraction: 1 }),
        gpuEntry({ id: 'busy', gpuHours: 0, computeBasis: 'processes', utilization: null, idleFraction: 0 }),
        gpuEntry({ id: 'blind', gpuHours: 0, computeBasis: 'unknown', utilization: null, idleFraction: null }),
      ],
      0,
    );
    expect(snapshots).toMatchObject({ meanComputePct: 50, computeBasis: 'processes' });
  });

  it('has no mean compute, on basis unknown, when no GPU has a compute signal', () => {
    const blind = summarizeFleet([gpuEntry({ id: 'x', computeBasis: 'unknown', utilization: null, idleFraction: null })], 0);
    expect(blind).toMatchObject({ meanComputePct: null, computeBasis: 'unknown' });
  });

  it('has no mean utilization when no GPU reports one', () => {
    expect(summarizeFleet([gpuEntry({ id: 'x', utilization: null })], 0).meanUtilization).toBeNull();
  });
});

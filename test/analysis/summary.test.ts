import { describe, expect, it } from 'vitest';
import { HOURS_PER_MONTH, summarizeFleet } from '../../src/analysis/index.js';
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

  it('has no mean utilization when no GPU reports one', () => {
    expect(summarizeFleet([gpuEntry({ id: 'x', utilization: null })], 0).meanUtilization).toBeNull();
  });
});

/**
 * MIG boards are paid whole and used slice by slice: idle instances and unpartitioned slices
 * are the board's idle time, and each instance carries its share of the price.
 */
import { describe, expect, it } from 'vitest';
import { accountMigBoards } from '../../src/analysis/mig-accounting.js';
import { summarizeFleet } from '../../src/analysis/summary.js';
import { board, migBoard, migDevice } from '../recommend/plan/fleet.js';

describe('MIG accounting', () => {
  // An 8-GPU A100 host at $4/GPU-hour over a week (168 h): seven whole GPUs busy all along, and
  // GPU 7 in MIG mode with 3g.40gb (busy), 2g.20gb (busy) and a 1g.10gb that never ran, 1 of 7
  // slices left unpartitioned.
  const whole = Array.from({ length: 7 }, (_, index) => board('a100-node', index, { modelKey: 'a100-sxm4-80gb', instanceType: 'p4de.24xlarge', hourlyUsd: 4, idleFraction: 0 }));
  const parent = { ...migBoard('a100-node', 7, { modelKey: 'a100-sxm4-80gb', instanceType: 'p4de.24xlarge', hourlyUsd: 4 }), idleFraction: 0, idleHours: 0 };
  const devices = [migDevice(parent, 1, '3g.40gb', 40192, { idleFraction: 0 }), migDevice(parent, 2, '2g.20gb', 19968, { idleFraction: 0 }), migDevice(parent, 3, '1g.10gb', 9728, { idleFraction: 1 })];
  const accounted = accountMigBoards([...whole, parent, ...devices]);
  const board7 = accounted.find((gpu) => gpu.id === parent.id)!;

  it('counts the idle instance and the unpartitioned slice as the board\'s idle time', () => {
    // (3 x 0 + 2 x 0 + 1 x 1 + 1 unpartitioned) / 7 = 2/7 = 0.2857; x 168 h = 48 h.
    expect(board7.idleFraction).toBeCloseTo(2 / 7, 12);
    expect(board7.idleHours).toBeCloseTo(48, 9);
  });

  it('gives each instance its share of the board\'s price: slices / 7', () => {
    // $4 x 3/7 = $1.7143, x 2/7 = $1.1429, x 1/7 = $0.5714 per hour.
    expect(accounted.filter((gpu) => gpu.parentId !== null).map((gpu) => gpu.hourlyCostUsd)).toEqual([12 / 7, 8 / 7, 4 / 7]);
  });

  it('puts that idle time into the fleet\'s waste, which a board judged by its busy instances hid', () => {
    const before = summarizeFleet([...whole, parent, ...devices], 0);
    const after = summarizeFleet(accounted, 0);
    expect(before.idleGpuHours).toBe(0);
    // 8 GPUs x 168 h = 1,344 GPU-hours, 48 idle: 3.571%; $4 x 2/7 x 730 = $834.29 a month.
    expect(after.idleGpuHours).toBeCloseTo(48, 9);
    expect(after.wastePct).toBeCloseTo((48 / 1344) * 100, 9);
    expect(after.monthlyWasteUsd).toBeCloseTo(834.2857, 3);
    // The board's price is counted once: $4 x 8 x 730 = $23,360.
    expect(after.monthlyCostUsd).toBeCloseTo(23360, 6);
  });

  it('leaves a board alone where a profile is unknown', () => {
    const odd = migDevice(parent, 4, 'unnamed', 40000, { idleFraction: 1 });
    expect(accountMigBoards([parent, odd])).toEqual([parent, odd]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  breakEvenDiscount,
  checkpointFindings,
  curveFromBusyFractions,
  curveFromHourOfWeek,
  planPurchase,
  reservedCount,
  spotExpectedUsdPerHour,
} from '../../src/recommend/purchase.js';
import { unit, weekProfile } from './helpers.js';

/** 8 GPUs needed 40% of hours, 4 GPUs the rest. */
const CURVE = [
  { gpus: 4, weight: 0.6 },
  { gpus: 8, weight: 0.4 },
];

describe('purchase plan: the DESIGN.md reserved-count rule', () => {
  it('reserves 4 of 8 GPUs at 60% of on-demand, and costs the plan by hand', () => {
    // share(d >= k) = 1.0 for k <= 4, 0.4 for k = 5..8. R/O = 6/10 = 0.6: the largest k with share >= 0.6 is 4.
    expect(reservedCount(CURVE, 0.6)).toBe(4);
    const plan = planPurchase({ gpuCount: 8, curve: CURVE, onDemandUsdPerGpuHour: 10, currentUsdPerGpuHour: 10, reservedUsdPerGpuHour: 6, spotUsdPerGpuHour: null });
    // Current: 8 x $10 x 730 = $58,400. Reserved: 4 x $6 x 730 = $17,520.
    // On-demand above the base: mean max(0, d - 4) = 0.4 x 4 = 1.6 GPUs x $10 x 730 = $11,680. Proposed $29,200.
    expect(plan).toMatchObject({ reserved: 4, currentMonthlyUsd: 58400, reservedMonthlyUsd: 17520, spotMonthlyUsd: 0, breakEven: [] });
    expect(plan.onDemandMonthlyUsd).toBeCloseTo(11680, 6);
    expect(plan.proposedMonthlyUsd).toBeCloseTo(29200, 6);
  });

  it('reserves all 8 once the commitment costs at most 40% of on-demand', () => {
    expect(reservedCount(CURVE, 0.4)).toBe(8);
    expect(reservedCount(CURVE, 0.41)).toBe(4);
  });

  it('states break-even discounts instead of inventing a commitment price', () => {
    // Reserving k <= 4 pays at any discount above 1 - 1.0 = 0%; k = 5..8 above 1 - 0.4 = 60%.
    expect(breakEvenDiscount(CURVE, 4)).toBeCloseTo(0, 9);
    expect(breakEvenDiscount(CURVE, 5)).toBeCloseTo(0.6, 9);
    const plan = planPurchase({ gpuCount: 8, curve: CURVE, onDemandUsdPerGpuHour: 10, currentUsdPerGpuHour: 10, reservedUsdPerGpuHour: null, spotUsdPerGpuHour: null });
    expect(plan.reserved).toBe(0);
    expect(plan.breakEven.map((point) => Math.round(point.discount * 100))).toEqual([0, 0, 0, 0, 60, 60, 60, 60]);
    // Nothing reserved; on-demand for the mean demand 0.6 x 4 + 0.4 x 8 = 5.6 GPUs: 5.6 x $10 x 730 = $40,880.
    expect(plan.proposedMonthlyUsd).toBeCloseTo(40880, 6);
  });

  it('reads the same curve from busy fractions, assuming busy periods nest', () => {
    const curve = curveFromBusyFractions([1, 1, 1, 1, 0.4, 0.4, 0.4, 0.4]);
    expect(curve.map((point) => point.gpus)).toEqual([4, 8]);
    expect(curve[0]!.weight).toBeCloseTo(0.6, 9);
    expect(curve[1]!.weight).toBeCloseTo(0.4, 9);
  });

  it('reads the curve from hour-of-week profiles: an hour is busy at or above the idle threshold', () => {
    // Two GPUs: one busy 09:00-17:00 (8 h a day), one 09:00-13:00 (4 h). Per day: 4 h with 2 busy,
    // 4 h with 1, 16 h with none.
    const { curve, observedHours } = curveFromHourOfWeek([weekProfile((hour) => hour >= 9 && hour < 17), weekProfile((hour) => hour >= 9 && hour < 13)], 5);
    expect(observedHours).toBe(168);
    expect(curve).toEqual([
      { gpus: 0, weight: 16 / 24 },
      { gpus: 1, weight: 4 / 24 },
      { gpus: 2, weight: 4 / 24 },
    ]);
  });

});

describe('purchase plan: spot for checkpointed training', () => {
  it('adds lost work per interruption: half a checkpoint interval plus the restore time', () => {
    // 30 min interval, 5 min restore: 15 + 5 = 20 min = 1/3 h lost per interruption; 0.1 interruptions/h:
    // $3 x (1 + 0.1 x 1/3) = $3.10 per useful GPU-hour.
    expect(spotExpectedUsdPerHour(3, 0.1, { intervalSeconds: 1800, restoreSeconds: 300 })).toBeCloseTo(3.1, 9);
  });

  it('flags training that cannot use spot for want of checkpoints', () => {
    const findings = checkpointFindings([unit({ id: 'train', kind: 'training', checkpoint: 'none' }), unit({ id: 'serve', kind: 'inference' })]);
    expect(findings.map((finding) => [finding.code, finding.target])).toEqual([['no-checkpoint-on-spot-candidate', 'train']]);
    expect(findings[0]!.message).toMatch(/60-80%/);
  });
});

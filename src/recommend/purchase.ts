/**
 * Purchase arithmetic: the hourly demand curve, the commitment rule and the spot price of lost
 * work, and the checkpoint findings. Pure numbers; the plan (./plan/) buys with them.
 *
 * Demand curve (GPUs busy per hour, as shares of hours): from the hour-of-week profiles where
 * every unit has one (an hour counts a GPU busy when its mean compute is at or above the idle
 * threshold), else from busy fractions alone, assuming busy periods nest (the k-th busiest GPU
 * is busy only while the k-1 busier ones are): share(d >= k) = busy fraction of the k-th
 * busiest GPU. That assumption gives the largest base, so reserved counts read from it are
 * upper bounds.
 *
 * DESIGN.md section 5: reserve the largest k with share(d >= k) >= R/O; R is the negotiated
 * discount off on-demand, else the catalog's 1-year commitment price. Where R is unknown no
 * discount is assumed: nothing is reserved, and the break-even discount for each k is stated.
 */
import { HOURS_PER_MONTH } from '../model/index.js';
import type { Finding } from '../model/index.js';
import type { CheckpointFacts, DemandUnit } from './types.js';

/** Hourly demand as shares of hours: `weight` of the hours need `gpus` GPUs; weights sum to 1. */
export type DemandCurve = { gpus: number; weight: number }[];

/**
 * Spot Advisor's worst bucket (`>20%` of capacity reclaimed in the trailing month,
 * reference/cloud-economics.md) read as 20% a month; GPU pools usually sit in the top buckets.
 * Per instance-hour: 0.20 / 730.
 */
export const DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR = 0.2 / HOURS_PER_MONTH;

export function shareAtLeast(curve: DemandCurve, k: number): number {
  return curve.filter((point) => point.gpus >= k).reduce((sum, point) => sum + point.weight, 0);
}

/**
 * shareAtLeast for many k of one curve: a pool of n GPUs asks it for every k up to n, and a
 * curve of busy fractions has up to n + 1 points, which made n filtered copies of the curve.
 * On a curve in ascending order of GPUs (as both curve builders make it) the points with
 * at least k GPUs are a tail of it: each tail is summed once, in the same order and from the
 * same 0 as shareAtLeast, so every share is the same number to the last bit.
 */
export function shareAtLeastOf(curve: DemandCurve): (k: number) => number {
  const ascending = curve.every((point, index) => index === 0 || point.gpus > curve[index - 1]!.gpus);
  if (!ascending) return (k) => shareAtLeast(curve, k);
  const tailSums = new Map<number, number>();
  return (k) => {
    let low = 0;
    let high = curve.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (curve[middle]!.gpus >= k) high = middle;
      else low = middle + 1;
    }
    let sum = tailSums.get(low);
    if (sum === undefined) {
      sum = 0;
      for (let index = low; index < curve.length; index += 1) sum += curve[index]!.weight;
      tailSums.set(low, sum);
    }
    return sum;
  };
}

export function meanDemand(curve: DemandCurve): number {
  return curve.reduce((sum, point) => sum + point.gpus * point.weight, 0);
}

/** Hours above the base: mean of max(0, d - k), in GPUs. */
export function meanAbove(curve: DemandCurve, k: number): number {
  return curve.reduce((sum, point) => sum + Math.max(0, point.gpus - k) * point.weight, 0);
}

/**
 * DESIGN.md rule: the largest k with share(d >= k) >= R/O (1e-9 absorbs float noise in shares).
 * `share` is the curve's shareAtLeastOf, where the caller has made it already.
 */
export function reservedCount(curve: DemandCurve, priceRatio: number, share = shareAtLeastOf(curve)): number {
  const peak = Math.max(0, ...curve.map((point) => point.gpus));
  for (let k = peak; k >= 1; k -= 1) if (share(k) >= priceRatio - 1e-9) return k;
  return 0;
}

/** Discount off on-demand above which reserving k GPUs pays: 1 - share(d >= k). */
export function breakEvenDiscount(curve: DemandCurve, k: number): number {
  return 1 - shareAtLeast(curve, k);
}

export function curveFromBusyFractions(busyFractions: readonly number[]): DemandCurve {
  const sorted = [...busyFractions].sort((a, b) => b - a);
  const curve: DemandCurve = [];
  let previous = 1;
  for (const [index, fraction] of sorted.entries()) {
    // `previous - fraction` of the hours have exactly `index` GPUs busy.
    if (previous - fraction > 0) curve.push({ gpus: index, weight: previous - fraction });
    previous = fraction;
  }
  if (previous > 0) curve.push({ gpus: sorted.length, weight: previous });
  return curve;
}

/** `alwaysOn[i]`: unit i counts as busy every hour (an inference service must answer at any hour). */
/** `gpusOf[i]`: GPUs unit i holds while busy (default 1). */
export function curveFromHourOfWeek(
  profiles: readonly (readonly (number | null)[])[],
  idleThresholdPct: number,
  alwaysOn: readonly boolean[] = [],
  gpusOf: readonly number[] = [],
): { curve: DemandCurve; observedHours: number } {
  const counts = new Map<number, number>();
  let observedHours = 0;
  for (let hour = 0; hour < 168; hour += 1) {
    const values = profiles.map((profile) => profile[hour] ?? null);
    if (values.some((value) => value === null)) continue;
    observedHours += 1;
    const busy = values.reduce<number>((sum, value, index) => sum + (alwaysOn[index] === true || value! >= idleThresholdPct ? (gpusOf[index] ?? 1) : 0), 0);
    counts.set(busy, (counts.get(busy) ?? 0) + 1);
  }
  const curve = [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([gpus, hours]) => ({ gpus, weight: hours / observedHours }));
  return { curve, observedHours };
}

/** Spot cost per useful GPU-hour: spot price x (1 + interruptions/h x (interval / 2 + restore) in hours). */
export function spotExpectedUsdPerHour(spotUsdPerHour: number, interruptionsPerHour: number, checkpoint: CheckpointFacts): number {
  const lostHoursPerInterruption = (checkpoint.intervalSeconds / 2 + checkpoint.restoreSeconds) / 3600;
  return spotUsdPerHour * (1 + interruptionsPerHour * lostHoursPerInterruption);
}

export interface PlanInput {
  gpuCount: number;
  curve: DemandCurve;
  onDemandUsdPerGpuHour: number;
  currentUsdPerGpuHour: number;
  /** Effective committed price per GPU-hour, or null when unknown. */
  reservedUsdPerGpuHour: number | null;
  /** Expected spot cost per useful GPU-hour (lost work included), or null where spot is not for this pool. */
  spotUsdPerGpuHour: number | null;
}

export interface PurchasePlan {
  reserved: number;
  currentMonthlyUsd: number;
  proposedMonthlyUsd: number;
  reservedMonthlyUsd: number;
  onDemandMonthlyUsd: number;
  spotMonthlyUsd: number;
  /** Break-even discount for k = 1..peak, when the committed price is unknown. */
  breakEven: { gpus: number; discount: number }[];
}

/** `share` is the curve's shareAtLeastOf, where the caller has made it already. */
export function planPurchase(input: PlanInput, share = shareAtLeastOf(input.curve)): PurchasePlan {
  const { curve } = input;
  const flexiblePrice = input.spotUsdPerGpuHour !== null && input.spotUsdPerGpuHour < input.onDemandUsdPerGpuHour ? input.spotUsdPerGpuHour : null;
  // The base is committed against whatever would otherwise serve it: on-demand, or spot where
  // spot is cheaper (then the rule reads R / spot, and a commitment dearer than spot buys nothing).
  const reserved = input.reservedUsdPerGpuHour === null ? 0 : reservedCount(curve, input.reservedUsdPerGpuHour / (flexiblePrice ?? input.onDemandUsdPerGpuHour), share);
  const aboveGpuHours = meanAbove(curve, reserved) * HOURS_PER_MONTH;
  const reservedMonthlyUsd = reserved * (input.reservedUsdPerGpuHour ?? 0) * HOURS_PER_MONTH;
  const onDemandMonthlyUsd = flexiblePrice === null ? aboveGpuHours * input.onDemandUsdPerGpuHour : 0;
  const spotMonthlyUsd = flexiblePrice === null ? 0 : aboveGpuHours * flexiblePrice;
  const peak = Math.max(0, ...curve.map((point) => point.gpus));
  // breakEvenDiscount(curve, k) for every k, from the shares of one table.
  const breakEven =
    input.reservedUsdPerGpuHour === null
      ? Array.from({ length: peak }, (_, index) => ({ gpus: index + 1, discount: 1 - share(index + 1) }))
      : [];
  return {
    reserved,
    currentMonthlyUsd: input.gpuCount * input.currentUsdPerGpuHour * HOURS_PER_MONTH,
    proposedMonthlyUsd: reservedMonthlyUsd + onDemandMonthlyUsd + spotMonthlyUsd,
    reservedMonthlyUsd,
    onDemandMonthlyUsd,
    spotMonthlyUsd,
    breakEven,
  };
}

/** Findings the purchase planner raises: training that cannot use spot for want of checkpoints. */
export function checkpointFindings(units: readonly DemandUnit[]): Finding[] {
  return units
    .filter((unit) => unit.kind === 'training' && unit.migProfile === null && (unit.checkpoint === null || unit.checkpoint === 'none'))
    .map((unit) => ({
      id: `no-checkpoint-on-spot-candidate:${unit.id}`,
      code: 'no-checkpoint-on-spot-candidate',
      severity: 'info' as const,
      target: unit.id,
      message:
        unit.checkpoint === 'none'
          ? 'Training without checkpoints cannot use spot capacity; checkpointing would unlock spot savings (the field reports 60-80%).'
          : 'Training with no checkpoint interval declared: declare it (or add checkpointing) to price spot capacity, which the field reports saves 60-80%.',
      evidence: { kind: unit.kind, checkpointing: unit.checkpoint === 'none' ? 'none' : 'unknown', hourlyUsd: unit.hourlyUsdPerGpu },
    }));
}

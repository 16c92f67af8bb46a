/**
 * Purchase plans per pool of interchangeable GPUs (same instance type and GPU model):
 * commitment for the base of the hourly demand curve, on-demand for the rest, spot for
 * checkpointed training and batch.
 *
 * Needs: instanceType, modelKey, hourlyUsdPerGpu, and per unit either hourOfWeekPct or
 * compute.busyFraction; kind and checkpoint for spot.
 *
 * Demand curve (GPUs busy per hour, as shares of hours): from the hour-of-week profiles where
 * every unit of the pool has one (an hour counts a GPU busy when its mean compute is at or
 * above the idle threshold), else from busy fractions alone, assuming busy periods nest (the
 * k-th busiest GPU is busy only while the k-1 busier ones are): share(d >= k) = busy fraction
 * of the k-th busiest GPU. That assumption gives the largest base, so reserved counts read
 * from it are upper bounds; the evidence names which curve was used.
 *
 * DESIGN.md section 5: reserve the largest k with share(d >= k) >= R/O; R is the config's
 * negotiated discount off on-demand, else the catalog's 1-year commitment price. Where R is unknown
 * (neither) no discount is assumed:
 * the plan reserves nothing and states the break-even discount for each k instead.
 */
import { HOURS_PER_MONTH } from '../model/index.js';
import type { Finding, Recommendation } from '../model/index.js';
import { priceAt } from '../catalog/index.js';
import { gpuName } from './candidates.js';
import { confidenceOf, weaknessesOf } from './confidence.js';
import { type CheckpointFacts, type DemandUnit, type RecommendOptions, type StrategyResult } from './types.js';
import { money, percent, round2 } from './units.js';

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

interface Pool {
  key: string;
  instanceType: string;
  modelKey: string;
  units: DemandUnit[];
}

function poolsOf(units: readonly DemandUnit[]): Pool[] {
  const pools = new Map<string, Pool>();
  for (const unit of units) {
    if (unit.migProfile !== null || unit.instanceType === null || unit.hourlyUsdPerGpu === null) continue;
    const key = `${unit.instanceType}/${unit.modelKey}`;
    const pool = pools.get(key) ?? { key, instanceType: unit.instanceType, modelKey: unit.modelKey, units: [] };
    pool.units.push(unit);
    pools.set(key, pool);
  }
  return [...pools.values()];
}

const SPOT_KINDS = new Set(['training', 'batch']);

function poolGpus(pool: Pool): number {
  return pool.units.reduce((sum, unit) => sum + unit.gpuCount, 0);
}

/**
 * A service must answer at any hour, so an inference unit counts as one busy GPU every hour:
 * turning its only replica off between bursts is the autoscaler's decision (./autoscale.ts),
 * made with cold-start time and demand ramp, not a purchase plan's.
 */
function isAlwaysOn(unit: DemandUnit): boolean {
  return unit.kind === 'inference';
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

export function purchase(units: readonly DemandUnit[], options: RecommendOptions): StrategyResult {
  const result: StrategyResult = { recommendations: [], notEnoughData: [] };
  for (const pool of poolsOf(units)) {
    const instance = options.catalog.instances.find((candidate) => candidate.name === pool.instanceType && (options.region === undefined || candidate.region === options.region));
    const targets = pool.units.map((unit) => unit.id);
    if (instance === undefined || instance.gpuCount <= 0 || instance.prices.onDemand === null) {
      result.notEnoughData.push({ strategy: 'purchase', targets, reason: `no on-demand price for ${pool.instanceType} in the catalog` });
      continue;
    }
    const profiles = pool.units.map((unit) => unit.hourOfWeekPct);
    let curve: DemandCurve;
    let curveBasis: string;
    let observedHours: number | null = null;
    if (profiles.every((profile) => profile !== null)) {
      const fromProfile = curveFromHourOfWeek(profiles as (number | null)[][], options.idleThresholdPct, pool.units.map(isAlwaysOn), pool.units.map((unit) => unit.gpuCount));
      curve = fromProfile.curve;
      observedHours = fromProfile.observedHours;
      curveBasis = 'hour-of-week';
    } else if (pool.units.every((unit) => unit.compute.busyFraction !== null)) {
      // A unit on several GPUs is busy on all of them at once: one entry per GPU it holds.
      curve = curveFromBusyFractions(pool.units.flatMap((unit) => Array.from({ length: unit.gpuCount }, () => (isAlwaysOn(unit) ? 1 : unit.compute.busyFraction!))));
      curveBasis = 'busy-fractions-nested';
    } else {
      result.notEnoughData.push({ strategy: 'purchase', targets, reason: 'neither hour-of-week profiles nor idle fractions for every GPU of the pool' });
      continue;
    }
    if (curve.length === 0 || Math.max(...curve.map((point) => point.gpus)) === 0) continue; // never busy: rightsize releases it
    const gpus = instance.gpuCount;
    const onDemand = instance.prices.onDemand / gpus;
    // A negotiated discount from the config replaces the catalog's commitment price.
    const committed = priceAt(instance, 'reserved-1y');
    const reservedPrice = options.commitment !== undefined ? onDemand * (1 - options.commitment.fraction) : committed === null ? null : committed.usdPerHour / gpus;
    const reservedSource = options.commitment !== undefined ? options.commitment.source : committed === null ? null : `catalog ${committed.term} price`;
    const checkpoint = pool.units.every((unit) => SPOT_KINDS.has(unit.kind) && typeof unit.checkpoint === 'object' && unit.checkpoint !== null) ? (pool.units[0]!.checkpoint as CheckpointFacts) : null;
    const interruptions = options.spotInterruptionsPerHour ?? DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR;
    const spot = checkpoint !== null && instance.prices.spot !== null ? spotExpectedUsdPerHour(instance.prices.spot / gpus, interruptions, checkpoint) : null;
    // One table of shares serves the plan, its break-even discounts and the rationale.
    const share = shareAtLeastOf(curve);
    const plan = planPurchase({
      gpuCount: poolGpus(pool),
      curve,
      onDemandUsdPerGpuHour: onDemand,
      currentUsdPerGpuHour: pool.units[0]!.hourlyUsdPerGpu!,
      reservedUsdPerGpuHour: reservedPrice,
      spotUsdPerGpuHour: spot,
    }, share);
    const savings = plan.currentMonthlyUsd - plan.proposedMonthlyUsd;
    if (savings <= 0.005) continue;
    result.recommendations.push(recommendationFor(pool, plan, { curve, share, curveBasis, observedHours, onDemand, reservedPrice, reservedSource, spot, interruptions }, options));
  }
  return result;
}

interface PlanFacts {
  curve: DemandCurve;
  /** shareAtLeastOf(curve). */
  share: (k: number) => number;
  curveBasis: string;
  observedHours: number | null;
  onDemand: number;
  reservedPrice: number | null;
  reservedSource: string | null;
  spot: number | null;
  interruptions: number;
}

/** "reserving 1-4 GPUs pays off at any discount above 0%": runs of k with the same rounded discount in one sentence. */
export function breakEvenSentences(points: readonly { gpus: number; discount: number }[]): string[] {
  const runs: { from: number; to: number; label: string }[] = [];
  for (const point of points) {
    if (point.discount >= 1) continue;
    const label = percent(point.discount);
    const last = runs.at(-1);
    if (last !== undefined && last.label === label && last.to === point.gpus - 1) last.to = point.gpus;
    else runs.push({ from: point.gpus, to: point.gpus, label });
  }
  return runs.map((run) => `reserving ${run.from === run.to ? run.from : `${run.from}-${run.to}`} GPU${run.to === 1 ? '' : 's'} pays off at any discount above ${run.label}`);
}

function recommendationFor(pool: Pool, plan: PurchasePlan, facts: PlanFacts, options: RecommendOptions): Recommendation {
  const reasons = weaknessesOf(pool.units, options, { vram: false, compute: true });
  if (facts.curveBasis === 'busy-fractions-nested') reasons.push('demand curve from idle fractions alone, assuming busy periods coincide (no hour-of-week profile)');
  if (facts.observedHours !== null && facts.observedHours < 168) reasons.push(`${facts.observedHours} of the 168 hours of the week observed: the plan assumes the rest of the week looks alike`);
  const mean = meanDemand(facts.curve);
  const parts = [
    plan.reserved > 0 ? `${plan.reserved} GPU${plan.reserved === 1 ? '' : 's'} committed (${money(facts.reservedPrice!)}/GPU-h, ${facts.reservedSource})` : 'no commitment',
    `${plan.spotMonthlyUsd > 0 ? 'spot' : 'on-demand'} only while busy (mean ${round2(meanAbove(facts.curve, plan.reserved))} GPUs)`,
  ];
  const breakEvenText = breakEvenSentences(plan.breakEven);
  const training = pool.units.some((unit) => unit.kind === 'training');
  const { share } = facts;
  return {
    id: `purchase:${pool.key}`,
    kind: 'purchase',
    targets: pool.units.map((unit) => unit.id),
    current: `${poolGpus(pool)} x ${gpuName(pool.modelKey)} (${pool.instanceType}) always on, ${money(plan.currentMonthlyUsd)}/month`,
    proposed: `${parts.join('; ')}: ${money(plan.proposedMonthlyUsd)}/month`,
    monthlySavingsUsd: round2(plan.currentMonthlyUsd - plan.proposedMonthlyUsd),
    confidence: confidenceOf(reasons),
    confidenceReasons: reasons,
    risks: [
      'GPUs above the committed base must be started and stopped with demand (autoscaler or job scheduler); capacity for large GPU types is not always available on demand',
      `${pool.instanceType} holds ${poolGpus(pool) > 1 ? 'several GPUs' : 'its GPUs'} per instance: demand is bought in whole instances, so savings shrink when busy GPUs are spread over instances`,
      ...(plan.spotMonthlyUsd > 0 ? [`spot instances are reclaimed (assumed ${round2(facts.interruptions * HOURS_PER_MONTH * 100)}% a month); each interruption loses half a checkpoint interval plus the restore time`] : []),
      ...(facts.reservedPrice === null ? breakEvenText.slice(0, 4) : []),
      ...(training && facts.spot === null ? ['training could run on spot once it checkpoints (the field reports 60-80% savings)'] : []),
    ],
    rationale: `Busy GPUs per hour average ${round2(mean)} of ${poolGpus(pool)}; share of hours with demand >= k: ${Array.from({ length: poolGpus(pool) }, (_, index) => `${index + 1}: ${percent(share(index + 1))}`).join(', ')}. ${facts.reservedPrice === null ? 'No commitment price in the catalog and no discount configured: none is assumed.' : `DESIGN.md rule: reserve the largest k whose share is at least R/O = ${round2(facts.reservedPrice / facts.onDemand)}.`}`,
    evidence: {
      poolGpus: poolGpus(pool),
      instanceType: pool.instanceType,
      demandCurveBasis: facts.curveBasis,
      observedHoursOfWeek: facts.observedHours,
      meanBusyGpus: round2(mean),
      onDemandUsdPerGpuHour: round2(facts.onDemand),
      reservedUsdPerGpuHour: facts.reservedPrice === null ? null : round2(facts.reservedPrice),
      reservedPriceSource: facts.reservedSource,
      spotExpectedUsdPerGpuHour: facts.spot === null ? null : round2(facts.spot),
      reservedGpus: plan.reserved,
      currentMonthlyUsd: round2(plan.currentMonthlyUsd),
      proposedMonthlyUsd: round2(plan.proposedMonthlyUsd),
      reservedMonthlyUsd: round2(plan.reservedMonthlyUsd),
      onDemandMonthlyUsd: round2(plan.onDemandMonthlyUsd),
      spotMonthlyUsd: round2(plan.spotMonthlyUsd),
      ...Object.fromEntries(plan.breakEven.map((point) => [`breakEvenDiscountPct.reserve${point.gpus}`, round2(point.discount * 100)])),
    },
  };
}

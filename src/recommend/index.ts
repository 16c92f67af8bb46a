/**
 * The recommender's public face: demand units in, recommendations out. Pure: the same units
 * and catalog give the same recommendations, so a report's recommendations can be redone
 * from its JSON. Each strategy declares the unit fields it needs (see its file header) and
 * answers "not enough data" with the reason where they are missing.
 */
import type { WorkloadDefinition } from '../analysis/index.js';
import type { Finding, GpuEntry, Recommendation, WorkloadEntry } from '../model/index.js';
import { autoscale } from './autoscale.js';
import { gapFindings } from './gaps.js';
import { demandUnitsFromGpus } from './demand-units.js';
import { replicas } from './pool.js';
import { checkpointFindings, purchase } from './purchase.js';
import { rightsize } from './rightsize.js';
import { selectExclusive } from './select.js';
import { mig } from './sharing/mig.js';
import { mps } from './sharing/mps.js';
import { timeSlicing } from './sharing/timeslice.js';
import { demandUnitsFromWorkloads } from './workload-units.js';
import type { DemandUnit, NotEnoughData, RecommendOptions, StrategyResult } from './types.js';

export type Strategy = (units: readonly DemandUnit[], options: RecommendOptions) => StrategyResult;

/** Every strategy, in the order their results are listed before ranking. */
export const STRATEGIES: Readonly<Record<string, Strategy>> = {
  rightsize,
  mig,
  'time-slicing': timeSlicing,
  mps,
  purchase,
  replicas,
  autoscale,
};

export interface RecommendResult {
  /** Largest saving first; `counted` marks the mutually exclusive set the total sums. */
  recommendations: Recommendation[];
  /** Training that cannot use spot for want of checkpoints; every "not enough data" and tenant refusal (./gaps.ts). */
  findings: Finding[];
  notEnoughData: NotEnoughData[];
  potentialMonthlySavingsUsd: number;
}

export function recommend(units: readonly DemandUnit[], options: RecommendOptions): RecommendResult {
  const all: Recommendation[] = [];
  const notEnoughData: NotEnoughData[] = [];
  for (const strategy of Object.values(STRATEGIES)) {
    const result = strategy(units, options);
    all.push(...result.recommendations);
    notEnoughData.push(...result.notEnoughData);
  }
  // A target is a unit id (its GPUs) or, for MIG repacks, a physical GPU id itself.
  const gpusOfTarget = new Map(units.map((unit) => [unit.id, unit.gpuIds]));
  const selection = selectExclusive(all, (recommendation) => [...new Set(recommendation.targets.flatMap((target) => gpusOfTarget.get(target) ?? [target]))]);
  return {
    recommendations: selection.recommendations,
    findings: [...checkpointFindings(units), ...gapFindings(notEnoughData)],
    notEnoughData,
    potentialMonthlySavingsUsd: selection.potentialMonthlySavingsUsd,
  };
}

/** Units from the report's GPUs alone (no workloads configured). */
export function recommendForGpus(gpus: readonly GpuEntry[], options: RecommendOptions): RecommendResult {
  return recommend(demandUnitsFromGpus(gpus, options.vramHeadroom), options);
}

/**
 * The audit's entry: workload units where workloads are profiled (with their config facts),
 * per-GPU units for the GPUs no movable workload holds.
 */
export function recommendForFleet(
  fleet: { gpus: readonly GpuEntry[]; workloads: readonly WorkloadEntry[]; definitions: readonly WorkloadDefinition[] },
  options: RecommendOptions,
): RecommendResult {
  if (fleet.workloads.length === 0) return recommendForGpus(fleet.gpus, options);
  return recommend(demandUnitsFromWorkloads(fleet.workloads, fleet.definitions, fleet.gpus, options.vramHeadroom), options);
}

export { demandUnitsFromGpus, kindFromProcesses, preallocates, vramProfileOf } from './demand-units.js';
export { demandUnitsFromWorkloads } from './workload-units.js';
export { sizePool, DEFAULT_POOL_HEADROOM, ceilTolerant } from './pool.js';
export { selectExclusive } from './select.js';
export { gapFindings, NOT_ENOUGH_DATA, TENANT_ISOLATION } from './gaps.js';
export { planSize } from './size-plan.js';
export { validateMigPartedConfig, migPartedConfig, packProfiles, smallestProfile } from './sharing/mig.js';
export { planPurchase, reservedCount, breakEvenDiscount, spotExpectedUsdPerHour, DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR } from './purchase.js';
export { DEFAULT_RECOMMEND_SETTINGS } from './types.js';
export type { CommitmentDiscount, DemandUnit, NotEnoughData, RecommendOptions, ServingFacts, WorkloadKind } from './types.js';

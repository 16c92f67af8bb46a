/**
 * Spot for the target instances that only checkpointed training and batch run on (docs/planner.md,
 * "Purchase"): an instance taken on spot while its work runs and given back between runs costs
 * the spot price, plus the work an interruption loses (half a checkpoint interval and the
 * restore, DESIGN.md section 5), for the share of hours the work runs. It is proposed where that
 * costs less than the instance on demand all month. A service (inference, interactive) is never
 * put on spot: it must answer at any hour. A GPU idle the whole window needs nothing and blocks
 * nothing; a service beside the jobs does, and says so (`spotBlockers`).
 */
import { HOURS_PER_MONTH } from '../../model/index.js';
import type { CheckpointFacts } from '../types.js';
import { DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR, spotExpectedUsdPerHour } from '../purchase.js';
import { inUse, type PlanDemand } from './demand.js';
import type { PlanOptions, TargetInstance } from './types.js';

const SPOT_KINDS: ReadonlySet<string> = new Set(['training', 'batch']);

/** A spot price observed longer ago than this before the window's end is stale. */
export const SPOT_PRICE_FRESH_DAYS = 30;

/**
 * Spot Advisor's worst bucket starts at 20% of capacity reclaimed a month; reference/cloud-economics.md
 * calls such pools unsuitable for multi-hour single-node training without frequent checkpoints.
 */
export const UNSUITABLE_MONTHLY_INTERRUPTIONS = 0.2;

/** Lost work above this share of the run hours makes a pool in the worst bucket unsuitable. */
export const SMALL_EXPECTED_LOSS = 0.01;

function checkpointOf(demands: readonly PlanDemand[]): CheckpointFacts | undefined {
  let longest: CheckpointFacts | undefined;
  for (const demand of demands) {
    const checkpoint = demand.unit.checkpoint;
    if (!SPOT_KINDS.has(demand.unit.kind) || checkpoint === null || checkpoint === 'none') return undefined;
    // The instance loses what its slowest-checkpointing job loses.
    if (longest === undefined || checkpoint.intervalSeconds / 2 + checkpoint.restoreSeconds > longest.intervalSeconds / 2 + longest.restoreSeconds) longest = checkpoint;
  }
  return longest;
}

/** The share of hours the instance's work runs: its jobs' busy shares added up, at most every hour. */
function runShareOf(demands: readonly PlanDemand[]): number | undefined {
  let share = 0;
  for (const demand of demands) {
    const busy = demand.unit.compute.busyFraction;
    if (busy === null) return undefined;
    share += busy;
  }
  return Math.min(1, share);
}

export interface SpotRisk {
  interruptionsPerMonth: number;
  /** Where the rate comes from: the user's setting, or the assumed worst bucket. */
  rateBasis: 'configured' | 'assumed';
  /** Hours of work one interruption loses: half a checkpoint interval and the restore. */
  lostHoursPerInterruption: number;
  /** Lost work as a share of the run hours. */
  expectedLossShare: number;
  /** In the worst bucket with a loss above SMALL_EXPECTED_LOSS. */
  unsuitable: boolean;
}

export function spotRiskOf(checkpoint: CheckpointFacts, options: PlanOptions): SpotRisk {
  const perHour = options.spotInterruptionsPerHour ?? DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR;
  const lostHoursPerInterruption = (checkpoint.intervalSeconds / 2 + checkpoint.restoreSeconds) / 3600;
  const expectedLossShare = perHour * lostHoursPerInterruption;
  const interruptionsPerMonth = perHour * HOURS_PER_MONTH;
  return {
    interruptionsPerMonth,
    rateBasis: options.spotInterruptionsPerHour === undefined ? 'assumed' : 'configured',
    lostHoursPerInterruption,
    expectedLossShare,
    unsuitable: interruptionsPerMonth >= UNSUITABLE_MONTHLY_INTERRUPTIONS - 1e-12 && expectedLossShare > SMALL_EXPECTED_LOSS,
  };
}

export function spotPriceOf(instance: TargetInstance, options: PlanOptions): TargetInstance['spot'] {
  const demands = inUse(instance.demands);
  if (demands.length === 0) return undefined;
  const spot = instance.type.prices.spot;
  const checkpoint = checkpointOf(demands);
  const runShare = runShareOf(demands);
  if (spot === null || checkpoint === undefined || runShare === undefined) return undefined;
  // To the hundredth of a cent, as catalog prices are given: the month is costed from what is shown.
  const expected = Math.round(spotExpectedUsdPerHour(spot, options.spotInterruptionsPerHour ?? DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR, checkpoint) * 1e4) / 1e4;
  return expected * runShare < instance.hourlyUsd - 1e-9 ? { hourlyUsd: expected, runShare, onDemandHourlyUsd: instance.hourlyUsd, checkpoint } : undefined;
}

/**
 * An instance with a spot price whose checkpointed jobs could take it on spot but for the
 * workloads beside them that must run at any hour (or declare no checkpoint): those workloads.
 */
export function spotBlockers(instance: TargetInstance): PlanDemand[] {
  if (instance.spot !== undefined || instance.type.prices.spot === null) return [];
  const demands = inUse(instance.demands);
  const ready = demands.filter((demand) => SPOT_KINDS.has(demand.unit.kind) && demand.unit.checkpoint !== null && demand.unit.checkpoint !== 'none');
  if (ready.length === 0) return [];
  return demands.filter((demand) => !ready.includes(demand));
}

/** Days from a YYYY-MM-DD observation to an ISO instant; null where either is missing. */
export function daysBefore(observedAt: string | undefined, end: string | null): number | null {
  if (observedAt === undefined || end === null) return null;
  return Math.floor((Date.parse(end) - Date.parse(`${observedAt}T00:00:00Z`)) / 86_400_000);
}

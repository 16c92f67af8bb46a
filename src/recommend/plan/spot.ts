/**
 * Spot for the target instances that only checkpointed training and batch run on (docs/planner.md,
 * "Purchase"): an instance taken on spot while its work runs and given back between runs costs
 * the spot price, plus the work an interruption loses (half a checkpoint interval and the
 * restore, DESIGN.md section 5), for the share of hours the work runs. It is proposed where that
 * costs less than the instance on demand all month. A service (inference, interactive) is never
 * put on spot: it must answer at any hour.
 */
import type { CheckpointFacts } from '../types.js';
import { DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR, spotExpectedUsdPerHour } from '../purchase.js';
import type { PlanOptions, TargetInstance } from './types.js';

const SPOT_KINDS: ReadonlySet<string> = new Set(['training', 'batch']);

function checkpointOf(instance: TargetInstance): CheckpointFacts | undefined {
  let longest: CheckpointFacts | undefined;
  for (const demand of instance.demands) {
    const checkpoint = demand.unit.checkpoint;
    if (!SPOT_KINDS.has(demand.unit.kind) || checkpoint === null || checkpoint === 'none') return undefined;
    // The instance loses what its slowest-checkpointing job loses.
    if (longest === undefined || checkpoint.intervalSeconds / 2 + checkpoint.restoreSeconds > longest.intervalSeconds / 2 + longest.restoreSeconds) longest = checkpoint;
  }
  return longest;
}

/** The share of hours the instance's work runs: its jobs' busy shares added up, at most every hour. */
function runShareOf(instance: TargetInstance): number | undefined {
  let share = 0;
  for (const demand of instance.demands) {
    const busy = demand.unit.compute.busyFraction;
    if (busy === null) return undefined;
    share += busy;
  }
  return Math.min(1, share);
}

export function spotPriceOf(instance: TargetInstance, options: PlanOptions): TargetInstance['spot'] {
  if (instance.demands.length === 0) return undefined;
  const spot = instance.type.prices.spot;
  const checkpoint = checkpointOf(instance);
  const runShare = runShareOf(instance);
  if (spot === null || checkpoint === undefined || runShare === undefined) return undefined;
  // To the hundredth of a cent, as catalog prices are given: the month is costed from what is shown.
  const expected = Math.round(spotExpectedUsdPerHour(spot, options.spotInterruptionsPerHour ?? DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR, checkpoint) * 1e4) / 1e4;
  return expected * runShare < instance.hourlyUsd - 1e-9 ? { hourlyUsd: expected, runShare, onDemandHourlyUsd: instance.hourlyUsd } : undefined;
}

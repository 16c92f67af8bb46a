/**
 * Purchase arithmetic the plan (./plan/) buys with: the expected cost of spot with the work an
 * interruption loses, and the checkpoint findings. The commitment rule is ./plan/commitments.ts.
 */
import { HOURS_PER_MONTH } from '../model/index.js';
import type { Finding } from '../model/index.js';
import type { CheckpointFacts, DemandUnit } from './types.js';

/**
 * Spot Advisor's worst bucket (`>20%` of capacity reclaimed in the trailing month,
 * reference/cloud-economics.md) read as 20% a month; GPU pools usually sit in the top buckets.
 * Per instance-hour: 0.20 / 730.
 */
export const DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR = 0.2 / HOURS_PER_MONTH;

/** Spot cost per useful GPU-hour: spot price x (1 + interruptions/h x (interval / 2 + restore) in hours). */
export function spotExpectedUsdPerHour(spotUsdPerHour: number, interruptionsPerHour: number, checkpoint: CheckpointFacts): number {
  const lostHoursPerInterruption = (checkpoint.intervalSeconds / 2 + checkpoint.restoreSeconds) / 3600;
  return spotUsdPerHour * (1 + interruptionsPerHour * lostHoursPerInterruption);
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

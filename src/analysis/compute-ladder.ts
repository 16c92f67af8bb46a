/**
 * Which signal tells whether a GPU is busy (DESIGN.md section 5), best first. Each rung says
 * how to read its signal from a sample and when that reading means idle. The first rung with
 * any reading on a device becomes its `computeBasis`.
 *
 * MIG devices have no utilization of their own (nvidia-smi prints N/A, DCGM has no GPU_UTIL
 * per instance), so the utilization rung does not apply to them: they go from DCGM activity
 * straight to their processes. A MIG-enabled parent whose utilization is N/A reaches the
 * processes rung by itself.
 */
import { isIdleSignal, type ComputeBasis, type LadderBasis } from '../model/index.js';
import type { SampleValues } from './sample-values.js';

export type { LadderBasis } from '../model/index.js';

export interface ComputeRung {
  basis: LadderBasis;
  signal(values: SampleValues): number | undefined;
  isIdle(signal: number, idleThresholdPct: number): boolean;
  appliesToMigDevice: boolean;
}

export const COMPUTE_LADDER: readonly ComputeRung[] = [
  { basis: 'sm-active', signal: (v) => v.smActivePct, isIdle: isIdleSignal, appliesToMigDevice: true },
  { basis: 'gr-engine-active', signal: (v) => v.grEngineActivePct, isIdle: isIdleSignal, appliesToMigDevice: true },
  { basis: 'utilization', signal: (v) => v.utilizationPct, isIdle: isIdleSignal, appliesToMigDevice: false },
  { basis: 'processes', signal: (v) => v.computeProcessCount, isIdle: (count) => count === 0, appliesToMigDevice: true },
];

/** The best rung for which `hasReadings` is true, or `unknown`. */
export function chooseComputeBasis(hasReadings: (basis: LadderBasis) => boolean, isMigDevice: boolean): ComputeBasis {
  for (const rung of COMPUTE_LADDER) {
    if (isMigDevice && !rung.appliesToMigDevice) continue;
    if (hasReadings(rung.basis)) return rung.basis;
  }
  return 'unknown';
}

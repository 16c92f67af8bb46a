/**
 * Confidence of a recommendation from the facts it rests on. Each weakness lowers it one step
 * and is named: a reader sees why a recommendation is `low`, not just that it is.
 */
import type { Recommendation } from '../model/index.js';
import type { DemandUnit } from './types.js';

export type Confidence = Recommendation['confidence'];

const LEVELS: readonly Confidence[] = ['high', 'medium', 'low'];

export interface ConfidenceSettings {
  minWindowHours: number;
  minSamples: number;
}

/** The reasons that lower confidence for these units; empty when the data is solid. */
export function weaknessesOf(units: readonly DemandUnit[], settings: ConfidenceSettings, uses: { vram: boolean; compute: boolean }): string[] {
  const reasons = new Set<string>();
  for (const unit of units) {
    if (unit.window.hours < settings.minWindowHours) {
      reasons.add(`window of ${unit.window.hours.toFixed(1)} h is under ${settings.minWindowHours} h: a day's cycle may be missing (${unit.label})`);
    }
    if (unit.window.samples < settings.minSamples) {
      reasons.add(`${unit.window.samples} samples, fewer than ${settings.minSamples} (${unit.label})`);
    }
    if (uses.compute && unit.compute.basis === 'utilization') {
      reasons.add('compute need read from utilization.gpu (last rung of the ladder): it says a kernel ran, not how busy the SMs were');
    }
    if (uses.compute && (unit.compute.basis === 'processes' || unit.compute.basis === 'unknown')) {
      reasons.add(`no compute signal (basis ${unit.compute.basis}): busy means a process was present`);
    }
    if (unit.instanceTypeBasis === 'inferred') {
      reasons.add(`instance type ${unit.instanceType ?? '?'} inferred from GPU model and count: prices may not be what you pay`);
    }
    if (uses.vram && unit.vram.basis === 'estimated') reasons.add('VRAM need estimated, not measured');
    if (uses.vram && unit.vram.basis === 'upper-bound') {
      // A workload's profile says preallocating false when the bound is a sum of process peaks on a shared GPU.
      reasons.add(unit.vram.preallocating === false
        ? `measured VRAM is an upper bound (sum of ${unit.label}'s process peaks on a shared GPU): the real need may be lower`
        : `measured VRAM is an upper bound (preallocating server in ${unit.label}): the real need may be lower, sized on the allocation`);
    }
  }
  return [...reasons];
}

/** high with no weakness, medium with one, low with two or more. */
export function confidenceOf(reasons: readonly string[]): Confidence {
  return LEVELS[Math.min(reasons.length, LEVELS.length - 1)]!;
}

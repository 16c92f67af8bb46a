/**
 * Confidence of a recommendation from the facts it rests on. Each weakness lowers it one step
 * and is named: a reader sees why a recommendation is `low`, not just that it is.
 */
import type { Recommendation } from '../model/index.js';
import { someNamed } from '../support/index.js';
import type { DemandUnit } from './types.js';

export type Confidence = Recommendation['confidence'];

const LEVELS: readonly Confidence[] = ['high', 'medium', 'low'];

export interface ConfidenceSettings {
  minWindowHours: number;
  minSamples: number;
}

/** Units named in a reason, at most this many: a fleet's step may hold thousands. */
const NAMED = 3;

/** `a, b, c and 9,997 more` */
export function namedUnits(labels: readonly string[]): string {
  return someNamed(labels, NAMED);
}

/** The reasons that lower confidence for these units, each once, naming the units it concerns; empty when the data is solid. */
export function weaknessesOf(units: readonly DemandUnit[], settings: ConfidenceSettings, uses: { vram: boolean; compute: boolean }): string[] {
  const reasons = new Map<string, string[]>();
  const add = (reason: string, label?: string): void => {
    const labels = reasons.get(reason) ?? [];
    if (label !== undefined) labels.push(label);
    reasons.set(reason, labels);
  };
  for (const unit of units) {
    if (unit.window.hours < settings.minWindowHours) {
      add(`window under ${settings.minWindowHours} h: a day's cycle may be missing`, `${unit.label}: ${unit.window.hours.toFixed(1)} h`);
    }
    if (unit.window.samples < settings.minSamples) add(`fewer than ${settings.minSamples} samples`, `${unit.label}: ${unit.window.samples}`);
    if (uses.compute && unit.compute.basis === 'utilization') {
      add('compute need read from utilization.gpu (last rung of the ladder): it says a kernel ran, not how busy the SMs were');
    }
    if (uses.compute && (unit.compute.basis === 'processes' || unit.compute.basis === 'unknown')) {
      add(`no compute signal (basis ${unit.compute.basis}): busy means a process was present`);
    }
    if (unit.instanceTypeBasis === 'inferred') {
      add(`instance type ${unit.instanceType ?? '?'} inferred from GPU model and count: prices may not be what you pay`);
    }
    if (uses.vram && unit.vram.basis === 'estimated') add('VRAM need estimated, not measured');
    if (uses.vram && unit.vram.basis === 'upper-bound') {
      // A workload's profile says preallocating false when the bound is a sum of process peaks on a shared GPU.
      if (unit.vram.preallocating === false) add('measured VRAM is an upper bound (sum of process peaks on a shared GPU): the real need may be lower', unit.label);
      else add('measured VRAM is an upper bound (preallocating server): the real need may be lower, sized on the allocation', unit.label);
    }
  }
  return [...reasons].map(([reason, labels]) => (labels.length === 0 ? reason : `${reason} (${namedUnits(labels)})`));
}

/** high with no weakness, medium with one, low with two or more. */
export function confidenceOf(reasons: readonly string[]): Confidence {
  return LEVELS[Math.min(reasons.length, LEVELS.length - 1)]!;
}

/**
 * The compute reading of a sample on each rung of the ladder, as a percent, for figures that
 * average the basis signal over time (timeline buckets, hour-of-week).
 *
 * The activity rungs are percentages already. The processes rung is a count: it reads 100 when
 * a compute process runs and 0 when none does, so its time-weighted mean is the share of time
 * with a process - the busy share the idle figures use.
 */
import { COMPUTE_LADDER, type LadderBasis } from './compute-ladder.js';
import type { SampleValues } from './sample-values.js';

export const RUNG_COUNT = COMPUTE_LADDER.length;

/**
 * Writes the percent of every rung into `out` (NaN where the sample has no reading) and returns
 * how many rungs have one. Called once per sample: it fills a caller's array, allocating nothing.
 */
export function computePercents(values: SampleValues, out: Float64Array): number {
  let present = 0;
  for (let rung = 0; rung < RUNG_COUNT; rung += 1) {
    const { basis, signal } = COMPUTE_LADDER[rung]!;
    const reading = signal(values);
    if (reading === undefined) {
      out[rung] = Number.NaN;
      continue;
    }
    out[rung] = basis === 'processes' ? (reading > 0 ? 100 : 0) : reading;
    present += 1;
  }
  return present;
}

export function rungIndex(basis: LadderBasis): number {
  return COMPUTE_LADDER.findIndex((rung) => rung.basis === basis);
}

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
 * how many rungs have one. Called once per sample: it fills a caller's array, allocating nothing,
 * and reads the rungs' signals by name, in COMPUTE_LADDER order, rather than through each rung's
 * `signal` function (test/perf/sample-hot-path.test.ts holds the two to the same answers).
 */
export function computePercents(values: SampleValues, out: Float64Array): number {
  const { smActivePct, grEngineActivePct, utilizationPct, computeProcessCount } = values;
  out[0] = smActivePct ?? Number.NaN;
  out[1] = grEngineActivePct ?? Number.NaN;
  out[2] = utilizationPct ?? Number.NaN;
  out[3] = computeProcessCount === undefined ? Number.NaN : computeProcessCount > 0 ? 100 : 0;
  return (smActivePct === undefined ? 0 : 1) + (grEngineActivePct === undefined ? 0 : 1)
    + (utilizationPct === undefined ? 0 : 1) + (computeProcessCount === undefined ? 0 : 1);
}

export function rungIndex(basis: LadderBasis): number {
  return COMPUTE_LADDER.findIndex((rung) => rung.basis === basis);
}

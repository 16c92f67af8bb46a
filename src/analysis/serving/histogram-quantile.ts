/**
 * Quantiles of a Prometheus histogram as `histogram_quantile` computes them: the rank q x
 * total is found among the cumulative bucket counts, and the value interpolated linearly
 * inside the bucket that holds it (from 0 for the first bucket). Where the rank falls in the
 * +Inf bucket, Prometheus answers the highest finite bound: here too, and the answer says it
 * is a lower bound (`above`), for the latency lies somewhere past the buckets' last edge.
 */

export interface Bucket {
  /** Upper bound (`le`); Infinity for `+Inf`. */
  bound: number;
  /** Cumulative count: observations at most `bound`. */
  count: number;
}

export interface HistogramQuantile {
  value: number;
  /** The quantile lies above the highest finite bound, which `value` then is. */
  above: boolean;
}

/**
 * The q-quantile (0 < q < 1) of cumulative buckets in any order; null without a +Inf bucket
 * (the histogram is cut) or without observations. Counts that fall from one bucket to the
 * next (readings taken at slightly different moments) are raised to keep them cumulative, as
 * Prometheus does.
 */
export function histogramQuantile(q: number, buckets: readonly Bucket[]): HistogramQuantile | null {
  const sorted = [...buckets].sort((left, right) => left.bound - right.bound);
  const last = sorted.at(-1);
  if (last === undefined || last.bound !== Infinity || sorted.length < 2) return null;
  let running = 0;
  const cumulative = sorted.map((bucket) => {
    running = Math.max(running, bucket.count);
    return { bound: bucket.bound, count: running };
  });
  const total = cumulative.at(-1)!.count;
  if (total <= 0) return null;
  const rank = q * total;
  const index = cumulative.findIndex((bucket) => bucket.count >= rank);
  const bucket = cumulative[index]!;
  if (bucket.bound === Infinity) return { value: cumulative[cumulative.length - 2]!.bound, above: true };
  const lower = index === 0 ? (bucket.bound > 0 ? 0 : bucket.bound) : cumulative[index - 1]!.bound;
  const countBelow = index === 0 ? 0 : cumulative[index - 1]!.count;
  const inBucket = bucket.count - countBelow;
  if (inBucket <= 0) return { value: bucket.bound, above: false };
  return { value: lower + ((bucket.bound - lower) * (rank - countBelow)) / inBucket, above: false };
}

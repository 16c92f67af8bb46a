/** Summaries of repeated measurements: the median and how far the runs spread. */

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** Quartiles, linear interpolation between closest ranks (the common "type 7" definition). */
  q1: number;
  q3: number;
  runs: number;
}

function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sorted[below]!;
  return low + (sorted[above]! - low) * (position - below);
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('spread() of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    runs: sorted.length,
  };
}

/** Throughput in MB/s (10^6 bytes, as disk and network rates are quoted) of `bytes` read in `seconds`. */
export function megabytesPerSecond(bytes: number, seconds: number): number {
  return bytes / 1e6 / seconds;
}

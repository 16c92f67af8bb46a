/**
 * The joint compute demand of workloads that might share one GPU (docs/planner.md, "Sharing"):
 * their compute series (GpuEntry.computeSeries, a minute a bucket where the audit could hold it)
 * aligned bucket by bucket and summed. Judged on the sum, not on each member's p95: two services
 * that burst in different minutes of the same hour never add up, two that burst together do.
 */
import type { GpuComputeSeries } from '../../model/index.js';

export interface JointDemand {
  /** Buckets in which every member was observed, and their width. */
  buckets: number;
  bucketSeconds: number;
  /** Of the summed series, in percent of one GPU of the members' model. */
  p95Pct: number;
  p99Pct: number;
  maxPct: number;
  /** Share of those buckets in which the sum passed one GPU (100%). */
  overShare: number;
  /** While over one GPU, how much longer work takes: mean of sum / 100 over those buckets (1 where never over). */
  slowdown: number;
  /** Share of buckets in which every member was busy (at or above the idle threshold) at once. */
  concurrentShare: number;
}

/** Each series widened once per width: a workload is judged against several partners. */
const WIDENED = new WeakMap<GpuComputeSeries, Map<number, Map<number, number>>>();

function widened(series: GpuComputeSeries, width: number): Map<number, number> {
  let byWidth = WIDENED.get(series);
  if (byWidth === undefined) {
    byWidth = new Map();
    WIDENED.set(series, byWidth);
  }
  let buckets = byWidth.get(width);
  if (buckets === undefined) {
    buckets = widen(series, width);
    byWidth.set(width, buckets);
  }
  return buckets;
}

/** A series in buckets of `width` seconds (a multiple of its own, both aligned to the epoch): means of the parts it holds. */
function widen(series: GpuComputeSeries, width: number): Map<number, number> {
  const factor = width / series.bucketSeconds;
  const first = Date.parse(series.start) / 1000 / series.bucketSeconds;
  const sums = new Map<number, { sum: number; count: number }>();
  series.meanPct.forEach((value, offset) => {
    if (value === null) return;
    const bucket = Math.floor((first + offset) / factor);
    const entry = sums.get(bucket) ?? { sum: 0, count: 0 };
    entry.sum += value;
    entry.count += 1;
    sums.set(bucket, entry);
  });
  return new Map([...sums].map(([bucket, { sum, count }]) => [bucket, sum / count]));
}

/** The sum's value at the q-quantile (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The members' summed demand, on the coarsest of their bucket widths; undefined where a member has no series or they never overlap in time. */
export function jointDemand(members: readonly (GpuComputeSeries | null | undefined)[], idleThresholdPct: number): JointDemand | undefined {
  if (members.length === 0 || members.some((series) => series === null || series === undefined)) return undefined;
  const series = members as readonly GpuComputeSeries[];
  const width = Math.max(...series.map((one) => one.bucketSeconds));
  if (series.some((one) => width % one.bucketSeconds !== 0)) return undefined;
  const [first, ...rest] = series.map((one) => widened(one, width));
  const sums: number[] = [];
  let concurrent = 0;
  for (const [bucket, value] of first!) {
    let sum = value;
    let everyone = true;
    let allBusy = value >= idleThresholdPct;
    for (const other of rest) {
      const theirs = other.get(bucket);
      if (theirs === undefined) {
        everyone = false;
        break;
      }
      sum += theirs;
      allBusy &&= theirs >= idleThresholdPct;
    }
    if (!everyone) continue;
    sums.push(sum);
    if (allBusy) concurrent += 1;
  }
  if (sums.length === 0) return undefined;
  const over = sums.filter((sum) => sum > 100 + 1e-9);
  sums.sort((a, b) => a - b);
  return {
    buckets: sums.length,
    bucketSeconds: width,
    p95Pct: quantile(sums, 0.95),
    p99Pct: quantile(sums, 0.99),
    maxPct: sums[sums.length - 1]!,
    overShare: over.length / sums.length,
    slowdown: over.length === 0 ? 1 : over.reduce((total, sum) => total + sum / 100, 0) / over.length,
    concurrentShare: concurrent / sums.length,
  };
}

/**
 * A serving workload's pool, from its servers' intervals (./serving-intervals.ts): the
 * servers' rates and latency buckets added interval by interval (two servers bursting in
 * different minutes of one hour add up to neither burst twice), the pool's peak and its
 * fastest ramp, and what one GPU served within the latency SLO (docs/serving.md, "Measured
 * capacity"):
 *
 *   capacity per GPU = the highest pool rate of an interval whose p95 <= SLO / the pool's GPUs
 *
 * The basis says how far to trust it: a knee (an interval at 90% of that load or more went over
 * the SLO), approached (the p95 reached 80% of the SLO there, nothing heavier breached), or a
 * lower bound (the window never came near the SLO).
 */
import type { ServingCapacity, ServingEntry, WorkloadEntry, WorkloadServing } from '../../model/index.js';
import type { WorkloadDefinition } from '../workloads/index.js';
import { intervalP95, type ServingTimeline } from './serving-entries.js';
import type { ServingInterval } from './serving-intervals.js';

/** An over-SLO interval at this share of the capacity load or more shows the knee. */
export const KNEE_LOAD_SHARE = 0.9;
/** A p95 at this share of the SLO at the capacity load has approached it. */
export const APPROACHED_SLO_SHARE = 0.8;
/** The ramp is read over this long unless the cold start is longer. */
export const RAMP_SPAN_SECONDS = 300;

interface PoolInterval {
  key: number;
  requestsPerSecond: number;
  tokensPerSecond: number;
  /** p95 of the pool's summed buckets; null without requests or buckets. */
  p95: { seconds: number; above: boolean } | null;
}

function poolIntervals(intervalsOf: readonly ReadonlyMap<number, ServingInterval>[]): PoolInterval[] {
  const byKey = new Map<number, { requestsPerSecond: number; tokensPerSecond: number; merged: ServingInterval }>();
  for (const intervals of intervalsOf) {
    for (const [key, interval] of intervals) {
      if (interval.spanMs <= 0) continue;
      const seconds = interval.spanMs / 1000;
      const pool = byKey.get(key) ?? { requestsPerSecond: 0, tokensPerSecond: 0, merged: { spanMs: 0, requests: 0, generationTokens: 0, waitingSum: 0, waitingCount: 0, e2e: new Map() } };
      pool.requestsPerSecond += interval.requests / seconds;
      pool.tokensPerSecond += interval.generationTokens / seconds;
      pool.merged.requests += interval.requests;
      for (const [bound, count] of interval.e2e) pool.merged.e2e.set(bound, (pool.merged.e2e.get(bound) ?? 0) + count);
      byKey.set(key, pool);
    }
  }
  return [...byKey].sort(([left], [right]) => left - right).map(([key, pool]) => ({
    key,
    requestsPerSecond: pool.requestsPerSecond,
    tokensPerSecond: pool.tokensPerSecond,
    p95: pool.merged.requests > 0 ? intervalP95(pool.merged) : null,
  }));
}

/** Within the SLO only where shown: a p95 in the +Inf bucket is a lower bound, within nothing. */
function withinSlo(p95: { seconds: number; above: boolean }, sloMs: number): boolean {
  return !p95.above && p95.seconds * 1000 <= sloMs;
}

function measuredCapacity(intervals: readonly PoolInterval[], sloMs: number | null, gpus: number, hasTokens: boolean): { capacity: ServingCapacity | null; note: string } {
  if (sloMs === null) return { capacity: null, note: 'no slo.p95Ms declared for the workload: capacity within a latency target cannot be read' };
  const timed = intervals.filter((interval) => interval.requestsPerSecond > 0 && interval.p95 !== null);
  if (timed.length === 0) return { capacity: null, note: 'the servers write no end-to-end latency histogram with requests in it: no latency by interval to read capacity from' };
  const within = timed.filter((interval) => withinSlo(interval.p95!, sloMs));
  const over = timed.filter((interval) => !withinSlo(interval.p95!, sloMs));
  if (within.length === 0) {
    const lowest = Math.min(...timed.map((interval) => interval.requestsPerSecond)) / gpus;
    return { capacity: null, note: `p95 over the ${sloMs} ms SLO in every interval with requests: one GPU serves less than the lightest load seen, ${lowest.toPrecision(3)} requests/s` };
  }
  const best = within.reduce((top, interval) => (interval.requestsPerSecond > top.requestsPerSecond ? interval : top));
  const knee = over.some((interval) => interval.requestsPerSecond >= best.requestsPerSecond * KNEE_LOAD_SHARE);
  const approached = best.p95!.seconds * 1000 >= sloMs * APPROACHED_SLO_SHARE;
  const basis: ServingCapacity['basis'] = knee ? 'knee' : approached ? 'approached' : 'lower-bound';
  const perGpu = best.requestsPerSecond / gpus;
  const capacity: ServingCapacity = {
    requestsPerSecondPerGpu: perGpu,
    generationTokensPerSecondPerGpu: hasTokens ? best.tokensPerSecond / gpus : null,
    p95Ms: best.p95!.seconds * 1000,
    basis,
    confidence: knee ? 'high' : approached ? 'medium' : 'low',
    intervalsWithinSlo: within.length,
    intervalsOverSlo: over.length,
  };
  const load = `${perGpu.toPrecision(3)} requests/s per GPU at p95 ${Math.round(capacity.p95Ms)} ms`;
  const note = knee
    ? `${load}; heavier intervals went over the ${sloMs} ms SLO`
    : approached
      ? `${load}, near the ${sloMs} ms SLO; no heavier load was seen`
      : `at least ${load}: the window never came near the ${sloMs} ms SLO (p95 under ${Math.round(APPROACHED_SLO_SHARE * 100)}% of it), so the GPUs may serve more`;
  return { capacity, note };
}

/** The fastest growth of the pool rate between intervals at most `spanSeconds` apart, per minute. */
function fastestRamp(intervals: readonly PoolInterval[], widthMs: number, spanSeconds: number): number | null {
  if (intervals.length < 2) return null;
  const reach = Math.max(1, Math.floor((spanSeconds * 1000) / widthMs));
  let fastest = 0;
  for (let i = 0; i < intervals.length; i += 1) {
    for (let j = i + 1; j < intervals.length && intervals[j]!.key - intervals[i]!.key <= reach; j += 1) {
      const minutes = ((intervals[j]!.key - intervals[i]!.key) * widthMs) / 60_000;
      fastest = Math.max(fastest, (intervals[j]!.requestsPerSecond - intervals[i]!.requestsPerSecond) / minutes);
    }
  }
  return fastest;
}

const per1000 = (hourlyPerGpu: number | null, perSecondPerGpu: number | null | undefined): number | null =>
  hourlyPerGpu === null || perSecondPerGpu == null || perSecondPerGpu <= 0 ? null : (hourlyPerGpu / (perSecondPerGpu * 3600)) * 1000;

export function servingPools(entries: readonly ServingEntry[], timeline: ServingTimeline | undefined, workloads: readonly WorkloadEntry[], definitions: readonly WorkloadDefinition[]): Map<string, WorkloadServing> {
  const pools = new Map<string, WorkloadServing>();
  for (const workload of workloads) {
    const servers = entries.filter((entry) => entry.workload === workload.name);
    if (servers.length === 0) continue;
    const definition = definitions.find((candidate) => candidate.name === workload.name);
    const sloMs = definition?.slo?.p95Ms ?? null;
    const widthMs = timeline?.widthMs ?? 0;
    const timelines = servers.map((entry) => timeline?.byInstance.get(entry.instance)).filter((found): found is Map<number, ServingInterval> => found !== undefined);
    const intervals = poolIntervals(timelines);
    const gpus = Math.max(1, workload.gpus.length);
    const hasTokens = servers.some((entry) => entry.generationTokens !== null);
    const peak = intervals.length === 0 ? null : intervals.reduce((top, interval) => (interval.requestsPerSecond > top.requestsPerSecond ? interval : top));
    const { capacity, note } = intervals.length === 0
      ? { capacity: null, note: 'no timed scrapes of the servers: load and latency by interval are unknown' }
      : measuredCapacity(intervals, sloMs, gpus, hasTokens);
    const windowed = servers.filter((entry) => entry.basis === 'window');
    const sum = (pick: (entry: ServingEntry) => number | null): number | null => (windowed.some((entry) => pick(entry) !== null) ? windowed.reduce((total, entry) => total + (pick(entry) ?? 0), 0) : null);
    const requests = sum((entry) => entry.requests);
    const tokens = sum((entry) => entry.generationTokens);
    // The servers' cost shares add up to the workload's cost over their window (serving-workloads.ts).
    const cost = windowed.reduce((total, entry) => total + (entry.costPer1000RequestsUsd === null || entry.requests === null ? 0 : (entry.costPer1000RequestsUsd * entry.requests) / 1000), 0);
    const hourlyPerGpu = workload.cost.hourlyUsd === null ? null : workload.cost.hourlyUsd / gpus;
    pools.set(workload.name, {
      servers: servers.length,
      intervalSeconds: intervals.length === 0 ? null : widthMs / 1000,
      peakRequestsPerSecond: peak?.requestsPerSecond ?? null,
      peakAt: peak === null ? null : new Date(peak.key * widthMs).toISOString(),
      peakGenerationTokensPerSecond: peak === null || !hasTokens ? null : Math.max(...intervals.map((interval) => interval.tokensPerSecond)),
      rampRequestsPerSecondPerMinute: fastestRamp(intervals, widthMs, Math.max(RAMP_SPAN_SECONDS, definition?.coldStartSeconds ?? 0)),
      sloP95Ms: sloMs,
      capacity,
      capacityNote: note,
      requests,
      costPer1000RequestsUsd: cost > 0 && requests !== null && requests > 0 ? (cost / requests) * 1000 : null,
      costPer1000RequestsAtCapacityUsd: per1000(hourlyPerGpu, capacity?.requestsPerSecondPerGpu),
      costPer1000TokensUsd: cost > 0 && tokens !== null && tokens > 0 ? (cost / tokens) * 1000 : null,
      costPer1000TokensAtCapacityUsd: per1000(hourlyPerGpu, capacity?.generationTokensPerSecondPerGpu),
    });
  }
  return pools;
}

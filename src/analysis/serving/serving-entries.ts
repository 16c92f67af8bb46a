/**
 * The report's serving entries from the table of readings (./serving-table.ts): per server
 * instance, requests and tokens over the basis and their rates, latency quantiles from the
 * histograms (./histogram-quantile.ts), the gauges' means and maxima. Figures a page cannot
 * support are null with a warning that says why: a cut histogram, Triton summary quantiles
 * that cannot be true beside its own sum, a histogram whose every observation sits in its
 * first bucket (a server that does not measure it).
 */
import type { ServingEntry, ServingGauge, ServingLatency, ServingMetric, ServingPoint } from '../../model/index.js';
import { histogramQuantile, type Bucket } from './histogram-quantile.js';
import type { ServingInterval } from './serving-intervals.js';
import type { ServingInstanceState } from './serving-table.js';

const MICROSECONDS = 1e-6;

/**
 * A first bucket this small holding every observation of a latency no LLM request can have
 * (a first token, a whole request) is a server not measuring it (vLLM 0.5.1 reported TTFT as
 * 0), not a fast one. A queue time of 0 is real.
 */
const NOT_MEASURED_BOUND_SECONDS = 0.001;
const UNDER_A_MILLISECOND_IMPOSSIBLE: ReadonlySet<ServingMetric> = new Set(['ttft', 'e2e-latency']);

/** A summary whose mean is this many times its largest quantile is not the summary of its own observations. */
const IMPOSSIBLE_MEAN_FACTOR = 10;

export interface ServingEntriesResult {
  entries: Omit<ServingEntry, 'workload' | 'costPer1000RequestsUsd' | 'costPer1000TokensUsd'>[];
  /** Each instance's intervals, for pools (./serving-pools.ts); instances past the timeline bound are absent. */
  timeline: ServingTimeline;
  /** `instance: what was left out and why`. */
  warnings: string[];
}

export interface ServingTimeline {
  widthMs: number;
  /** Instance -> interval key (`floor(time / widthMs)`) -> interval. */
  byInstance: Map<string, Map<number, ServingInterval>>;
}

/** The p95 of an interval's end-to-end buckets: its value, and whether it is only the lower bound a +Inf bucket gives. */
export function intervalP95(interval: ServingInterval): { seconds: number; above: boolean } | null {
  if (interval.e2e.size === 0) return null;
  const found = histogramQuantile(0.95, [...interval.e2e].map(([bound, count]) => ({ bound, count })));
  return found === null ? null : { seconds: found.value, above: found.above };
}

/** The report's points: intervals with scrape time in them, in time order. */
function seriesOf(intervals: ReadonlyMap<number, ServingInterval> | null, widthMs: number): ServingPoint[] {
  if (intervals === null) return [];
  return [...intervals].filter(([, interval]) => interval.spanMs > 0).sort(([left], [right]) => left - right).map(([key, interval]) => {
    const seconds = interval.spanMs / 1000;
    const p95 = interval.requests > 0 ? intervalP95(interval) : null;
    return {
      start: new Date(key * widthMs).toISOString(),
      requestsPerSecond: interval.requests / seconds,
      generationTokensPerSecond: interval.generationTokens / seconds,
      e2eP95Seconds: p95?.seconds ?? null,
      e2eP95Above: p95?.above ?? false,
      waitingMean: interval.waitingCount === 0 ? null : interval.waitingSum / interval.waitingCount,
    };
  });
}

function isWindow(state: ServingInstanceState): boolean {
  return state.times.size >= 2;
}

/** A counter's figure on the basis: the increase over the window, or its total since the server started. */
function counterValue(state: ServingInstanceState, metric: ServingMetric, kinds: readonly string[] = ['counter']): number | null {
  let total: number | null = null;
  for (const counter of state.counters.values()) {
    if (counter.metric !== metric || !kinds.includes(counter.kind)) continue;
    total = (total ?? 0) + (isWindow(state) ? counter.increase : counter.first + counter.increase);
  }
  return total;
}

function gauge(state: ServingInstanceState, metric: ServingMetric, scale = 1): ServingGauge | null {
  const found = state.gauges.get(metric);
  return found === undefined || found.count === 0 ? null : { mean: (found.sum / found.count) * scale, max: found.max * scale };
}

function latency(state: ServingInstanceState, metric: ServingMetric, warnings: string[]): ServingLatency | null {
  const byBound = new Map<number, number>();
  for (const counter of state.counters.values()) {
    if (counter.metric !== metric || counter.kind !== 'bucket') continue;
    const value = isWindow(state) ? counter.increase : counter.first + counter.increase;
    byBound.set(counter.bound!, (byBound.get(counter.bound!) ?? 0) + value);
  }
  const count = counterValue(state, metric, ['count']);
  const sum = counterValue(state, metric, ['sum']);
  if (byBound.size === 0 && count === null) return null;
  const buckets: Bucket[] = [...byBound].map(([bound, value]) => ({ bound, count: value }));
  const observations = count ?? byBound.get(Infinity) ?? 0;
  if (byBound.size > 0 && !byBound.has(Infinity)) warnings.push(`${state.instance}: ${metric} histogram has no +Inf bucket (a cut excerpt?): no quantiles`);
  const quantiles = [0.5, 0.95, 0.99].map((q) => histogramQuantile(q, buckets));
  const sorted = [...buckets].sort((left, right) => left.bound - right.bound);
  if (UNDER_A_MILLISECOND_IMPOSSIBLE.has(metric) && observations > 0 && sorted.length > 1 && sorted[0]!.bound <= NOT_MEASURED_BOUND_SECONDS && sorted[0]!.count >= observations) {
    warnings.push(`${state.instance}: every ${metric} observation (${observations}) lies in the first bucket (≤ ${sorted[0]!.bound} s): the server does not seem to measure it; quantiles left out`);
    return { count: observations, meanSeconds: sum === null || observations === 0 ? null : sum / observations, p50Seconds: null, p95Seconds: null, p99Seconds: null, aboveSeconds: null };
  }
  const above = quantiles.find((quantile) => quantile?.above === true);
  return {
    count: observations,
    meanSeconds: sum === null || observations === 0 ? null : sum / observations,
    p50Seconds: quantiles[0]?.value ?? null,
    p95Seconds: quantiles[1]?.value ?? null,
    p99Seconds: quantiles[2]?.value ?? null,
    aboveSeconds: above === undefined || above === null ? null : above.value,
  };
}

/** Triton: the mean of its cumulative request duration; the summary's quantiles where they can be true. */
function tritonLatency(state: ServingInstanceState, requests: number | null, warnings: string[]): ServingLatency | null {
  const durationUs = counterValue(state, 'request-duration-us');
  if (durationUs === null || requests === null) return null;
  const meanSeconds = requests > 0 ? (durationUs / requests) * MICROSECONDS : null;
  const summary = state.quantiles.get('request-summary-us');
  const quantileSeconds = (q: number): number | null => {
    const value = summary?.get(q);
    return value === undefined || !Number.isFinite(value) ? null : value * MICROSECONDS;
  };
  // A summary of no observations has no quantiles, whatever it prints.
  let [p50, p95, p99] = requests > 0 ? [quantileSeconds(0.5), quantileSeconds(0.95), quantileSeconds(0.99)] : [null, null, null];
  const largest = Math.max(...[...(summary?.values() ?? [])].filter(Number.isFinite)) * MICROSECONDS;
  if (meanSeconds !== null && summary !== undefined && summary.size > 0 && meanSeconds > largest * IMPOSSIBLE_MEAN_FACTOR) {
    warnings.push(`${state.instance}: the request summary's quantiles (largest ${largest / MICROSECONDS} µs) cannot hold beside its mean of ${Math.round(meanSeconds / MICROSECONDS)} µs: left out`);
    [p50, p95, p99] = [null, null, null];
  }
  return { count: requests, meanSeconds, p50Seconds: p50, p95Seconds: p95, p99Seconds: p99, aboveSeconds: null };
}

export function servingEntries(instances: Iterable<ServingInstanceState>, widthMs: number): ServingEntriesResult {
  const warnings: string[] = [];
  const entries: ServingEntriesResult['entries'] = [];
  const byInstance = new Map<string, Map<number, ServingInterval>>();
  for (const state of instances) {
    if (state.intervals !== null && state.intervals.size > 0) byInstance.set(state.instance, state.intervals);
    const window = isWindow(state);
    let firstMs = Infinity;
    for (const time of state.times) firstMs = Math.min(firstMs, time);
    const windowSeconds = window ? (state.latestMs - firstMs) / 1000 : null;
    const readings = Math.max(1, ...[...state.counters.values()].map((counter) => counter.readings));
    const requests = counterValue(state, 'requests');
    // TGI counts tokens only in its token histograms: their sums.
    const promptTokens = counterValue(state, 'prompt-tokens', ['counter', 'sum']);
    const generationTokens = counterValue(state, 'generation-tokens', ['counter', 'sum']);
    const perSecond = (value: number | null): number | null => (value === null || windowSeconds === null || windowSeconds === 0 ? null : value / windowSeconds);
    const latencyWarnings: string[] = [];
    entries.push({
      server: state.server,
      instance: state.instance,
      host: state.host,
      model: state.model,
      namespace: state.namespace,
      pod: state.pod,
      basis: window ? 'window' : 'since-start',
      scrapes: window || state.times.size === 1 ? Math.max(1, state.times.size) : readings,
      windowSeconds,
      // A restart resets every counter at once: the most resets of any one counter is the restarts seen.
      counterResets: Math.max(0, ...[...state.counters.values()].map((counter) => counter.resets)),
      requests,
      failedRequests: counterValue(state, 'failed-requests'),
      requestsPerSecond: perSecond(requests),
      promptTokens,
      generationTokens,
      generationTokensPerSecond: perSecond(generationTokens),
      preemptions: counterValue(state, 'preemptions'),
      e2eLatency: state.server === 'triton' ? tritonLatency(state, requests, latencyWarnings) : latency(state, 'e2e-latency', latencyWarnings),
      ttft: latency(state, 'ttft', latencyWarnings),
      tpot: latency(state, 'tpot', latencyWarnings),
      queueTime: state.server === 'triton' ? tritonQueue(state, requests) : latency(state, 'queue-time', latencyWarnings),
      running: gauge(state, 'running'),
      waiting: gauge(state, 'waiting'),
      // vLLM and SGLang write the share as a fraction.
      kvCacheUsagePct: gauge(state, 'kv-cache-usage', 100),
      intervalSeconds: window && state.intervals !== null ? widthMs / 1000 : null,
      series: window ? seriesOf(state.intervals, widthMs) : [],
    });
    warnings.push(...latencyWarnings);
  }
  entries.sort((left, right) => (left.instance < right.instance ? -1 : left.instance > right.instance ? 1 : 0));
  return { entries, timeline: { widthMs, byInstance }, warnings };
}

function tritonQueue(state: ServingInstanceState, requests: number | null): ServingLatency | null {
  const queueUs = counterValue(state, 'queue-duration-us');
  if (queueUs === null || requests === null) return null;
  return { count: requests, meanSeconds: requests > 0 ? (queueUs / requests) * MICROSECONDS : null, p50Seconds: null, p95Seconds: null, p99Seconds: null, aboveSeconds: null };
}

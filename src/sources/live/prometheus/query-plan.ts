/**
 * The query planner: before the aggregation queries run, how big the fleet is (series per
 * metric, samples per series per second: ./queries.ts ESTIMATE queries), and from that how to
 * cut the work so that every query stays within budgets that fit the engines' default limits.
 *
 * Two cuts, both exact for what they combine (./read-prometheus.ts):
 *  - by series: shards of GPUs by the first hex digits of dcgm-exporter's UUID label. UUIDs
 *    are random, so the shards are even; the matchers are short whatever the fleet (a regex of
 *    host names would pass VictoriaMetrics' 16 KiB query limit at a few hundred hosts); and
 *    every series of a GPU carries the same UUID, so each GPU falls in exactly one shard. A
 *    last shard takes the series whose UUID is not `GPU-<hex>…` (none, or another spelling).
 *  - by time: chunk queries over shorter chunks, in whole steps.
 * Whole-window queries (quantiles, the timeline) can only be cut by series, so the shard count
 * comes from them; the chunk length then keeps the subquery-heavy chunk queries in budget.
 * Refusals the estimate did not foresee are still split on the spot (withinLimits).
 *
 * Costs are counted as the engines count them: stored samples a range function reads
 * (VictoriaMetrics' -search.maxSamplesPerQuery, 1e9 by default, and the time Prometheus spends
 * decoding them), and points a subquery evaluates, series x steps (what Prometheus'
 * --query.max-samples, 50 M by default, holds at its peak, and its time per query: the budget
 * leaves room under the default 2-minute --query.timeout on a loaded server).
 */

export interface QueryBudgets {
  /** Subquery points (series x steps, summed over a query's subqueries) one query may evaluate. */
  points: number;
  /** Stored samples one query may read through range functions. */
  samples: number;
}

export const DEFAULT_QUERY_BUDGETS: Readonly<QueryBudgets> = { points: 10_000_000, samples: 200_000_000 };

/** Where the shards come from: dcgm-exporter's GPU UUID label, `GPU-` and hex. */
export const SHARD_LABEL = 'UUID';
/** The label the estimate puts a series' first UUID hex digit in ('' for none). */
export const SHARD_DIGIT_LABEL = 'gpu_audit_shard';

const HEX = '0123456789abcdef';
/** 16 x 16 two-digit prefixes at most: past that the remainder is time cuts. */
const MAX_SHARDS = 256;

export interface FleetEstimate {
  /** Series by first UUID hex digit (lower case; '' for series without one), then by metric name. */
  seriesByDigit: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Stored samples per series per second (the scrape rate). */
  samplesPerSecond: number;
}

export interface Shard {
  /** The matcher that selects the shard's series; undefined: the whole fleet, one shard. */
  matcher?: string;
  /** Series per metric name in the shard, as estimated. */
  series: ReadonlyMap<string, number>;
}

export interface QueryPlan {
  shards: Shard[];
  /** Length of a chunk of the chunk queries, whole steps. */
  chunkSeconds: number;
}

/** What the plan needs to know of the queries it sizes (./read-prometheus.ts). */
export interface PlannedQueries {
  windowSeconds: number;
  stepSeconds: number;
  /** The default chunk length: the plan never makes chunks longer. */
  chunkSeconds: number;
  /** Metric names read by each signal's chunk and quantile queries. */
  signals: readonly string[];
  /** Names averaged per bucket by the timeline's compute query, which reads them all at once. */
  compute: readonly string[];
}

/**
 * Subqueries per chunk query, each over the query's series: the device query's steps, first,
 * last and memory total, and the pod mapping's three (./queries.ts deviceChunkQuery); a
 * signal's steps and idle steps (signalChunkQuery). Range functions per signal chunk query: count, sum, max.
 */
const DEVICE_SUBQUERIES = 7;
const SIGNAL_SUBQUERIES = 2;
const SIGNAL_RANGE_READS = 3;

const sum = (values: Iterable<number>): number => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

function shardSeries(estimate: FleetEstimate, prefixes: readonly string[]): Map<string, number> {
  const series = new Map<string, number>();
  for (const prefix of prefixes) {
    for (const [name, count] of estimate.seriesByDigit.get(prefix) ?? []) series.set(name, (series.get(name) ?? 0) + count);
  }
  return series;
}

/** A regex character class of hex digits in both cases: `[89abAB]`. */
const hexClass = (digits: string): string => `[${digits}${digits.replace(/[0-9]/g, '').toUpperCase()}]`;

/**
 * `count` shards (a power of two up to MAX_SHARDS) of the hex prefixes, each a matcher on the
 * UUID label, and the remainder shard where the estimate saw series outside them.
 */
function shardsOf(count: number, estimate: FleetEstimate): Shard[] {
  if (count <= 1) return [{ series: shardSeries(estimate, [...estimate.seriesByDigit.keys()]) }];
  const shards: Shard[] = [];
  const perFirst = Math.max(1, count / 16);
  const firstWidth = Math.max(1, 16 / count);
  for (let first = 0; first < 16; first += firstWidth) {
    const firsts = HEX.slice(first, first + firstWidth);
    const secondWidth = 16 / perFirst;
    for (let second = 0; second < 16; second += secondWidth) {
      // Two-digit shards are sized by their first digit's share: the estimate counts by the first only.
      const pattern = perFirst === 1 ? hexClass(firsts) : `${hexClass(firsts)}${hexClass(HEX.slice(second, second + secondWidth))}`;
      const series = new Map([...shardSeries(estimate, [...firsts]).entries()].map(([name, n]) => [name, Math.ceil(n / perFirst)]));
      shards.push({ matcher: `${SHARD_LABEL}=~"GPU-${pattern}.*"`, series });
    }
  }
  const remainder = shardSeries(estimate, ['']);
  if (sum(remainder.values()) > 0) shards.push({ matcher: `${SHARD_LABEL}!~"GPU-${hexClass(HEX)}.*"`, series: remainder });
  return shards;
}

/** The largest whole-window read (a quantile, the timeline) and the points and samples per second of chunk of a shard. */
function costsOf(shard: Shard, queries: PlannedQueries, rate: number): { wholeSamples: number; chunkPointsPerSecond: number; chunkSamplesPerSecond: number } {
  const of = (name: string): number => shard.series.get(name) ?? 0;
  const all = sum(shard.series.values());
  const largestSignal = Math.max(0, ...queries.signals.map(of));
  return {
    wholeSamples: Math.max(largestSignal, sum(queries.compute.map(of))) * queries.windowSeconds * rate,
    chunkPointsPerSecond: (Math.max(DEVICE_SUBQUERIES * all, SIGNAL_SUBQUERIES * largestSignal)) / queries.stepSeconds,
    chunkSamplesPerSecond: SIGNAL_RANGE_READS * largestSignal * rate,
  };
}

/**
 * The fewest shards whose whole-window queries fit the sample budget, then the longest chunk
 * (up to the default) whose queries fit both budgets in every shard. Where one step of one
 * shard already passes, shards double (up to MAX_SHARDS) before chunks shrink below an hour.
 */
export function planQueries(estimate: FleetEstimate, queries: PlannedQueries, budgets: QueryBudgets): QueryPlan {
  const rate = estimate.samplesPerSecond;
  const worst = (shards: Shard[]): ReturnType<typeof costsOf> => {
    const costs = shards.map((shard) => costsOf(shard, queries, rate));
    return {
      wholeSamples: Math.max(0, ...costs.map((cost) => cost.wholeSamples)),
      chunkPointsPerSecond: Math.max(0, ...costs.map((cost) => cost.chunkPointsPerSecond)),
      chunkSamplesPerSecond: Math.max(0, ...costs.map((cost) => cost.chunkSamplesPerSecond)),
    };
  };
  const longestChunk = (cost: ReturnType<typeof costsOf>): number => Math.min(
    queries.chunkSeconds,
    cost.chunkPointsPerSecond > 0 ? budgets.points / cost.chunkPointsPerSecond : Infinity,
    cost.chunkSamplesPerSecond > 0 ? budgets.samples / cost.chunkSamplesPerSecond : Infinity,
  );
  let count = 1;
  let shards = shardsOf(count, estimate);
  const minimumChunk = Math.min(queries.chunkSeconds, Math.max(queries.stepSeconds, 3600));
  while (count < MAX_SHARDS && (worst(shards).wholeSamples > budgets.samples || longestChunk(worst(shards)) < minimumChunk)) {
    count *= 2;
    shards = shardsOf(count, estimate);
  }
  const steps = Math.max(1, Math.floor(longestChunk(worst(shards)) / queries.stepSeconds));
  return { shards, chunkSeconds: steps * queries.stepSeconds };
}

/**
 * The Serving section of every text format: one row per inference-server instance with its
 * throughput, latency quantiles, queue and KV cache, and what serving costs. Only formatting:
 * every figure is in the Report's `serving[]`. A quantile that fell in the +Inf bucket is
 * shown as `>` the highest finite bound, as it is only known to be above it.
 */
import type { ServingEntry, ServingLatency, WorkloadEntry, WorkloadServing } from '../model/index.js';
import { MISSING, formatNumber, formatUsd } from './format.js';

/** Seconds as shown: `>` where the quantile lies past the last finite bucket. */
export function quantileText(latency: ServingLatency | null, quantile: 'p50Seconds' | 'p95Seconds' | 'p99Seconds', scale = 1, digits = 2): string {
  const value = latency?.[quantile] ?? null;
  if (value === null) return MISSING;
  const above = latency!.aboveSeconds !== null && value >= latency!.aboveSeconds;
  return `${above ? '>' : ''}${formatNumber(value * scale, digits)}`;
}

const count = (value: number | null): string => formatNumber(value, 0);
const rate = (value: number | null): string => formatNumber(value, 2);

export interface ServingColumn {
  terminalHeader: string;
  documentHeader: string;
  align: 'left' | 'right';
  cell: (entry: ServingEntry) => string;
  shrink?: { minimum: number };
  dropPriority?: number;
}

/** Ten columns: the instance, what it served, how fast, how full, and what it cost. */
export const SERVING_COLUMNS: readonly ServingColumn[] = [
  { terminalHeader: 'server', documentHeader: 'Server', align: 'left', cell: (entry) => entry.workload === null ? entry.instance : `${entry.instance} (${entry.workload})`, shrink: { minimum: 12 } },
  { terminalHeader: 'requests', documentHeader: 'Requests', align: 'right', cell: (entry) => count(entry.requests) },
  { terminalHeader: 'req/s', documentHeader: 'Requests/s', align: 'right', cell: (entry) => rate(entry.requestsPerSecond), dropPriority: 3 },
  { terminalHeader: 'gen\ntok/s', documentHeader: 'Generated tokens/s', align: 'right', cell: (entry) => rate(entry.generationTokensPerSecond), dropPriority: 2 },
  { terminalHeader: 'e2e\np95 s', documentHeader: 'E2E p95 (s)', align: 'right', cell: (entry) => quantileText(entry.e2eLatency, 'p95Seconds') },
  { terminalHeader: 'TTFT\np95 s', documentHeader: 'TTFT p95 (s)', align: 'right', cell: (entry) => quantileText(entry.ttft, 'p95Seconds', 1, 3) },
  { terminalHeader: 'TPOT\np95 ms', documentHeader: 'TPOT p95 (ms)', align: 'right', cell: (entry) => quantileText(entry.tpot, 'p95Seconds', 1000, 1), dropPriority: 1 },
  { terminalHeader: 'waiting\nmean', documentHeader: 'Waiting (mean)', align: 'right', cell: (entry) => formatNumber(entry.waiting?.mean, 1) },
  { terminalHeader: 'KV\nmax %', documentHeader: 'KV cache max (%)', align: 'right', cell: (entry) => formatNumber(entry.kvCacheUsagePct?.max, 1) },
  { terminalHeader: '$/1k\nreq', documentHeader: 'Cost per 1,000 requests ($)', align: 'right', cell: (entry) => (entry.costPer1000RequestsUsd === null ? MISSING : formatUsd(entry.costPer1000RequestsUsd, 3)) },
];

export const SERVING_NOTE =
  'Figures over the window between the first and last timed scrape; on one scrape (basis since-start), totals since the server started and no rates. '
  + 'Quantiles interpolate inside histogram buckets as histogram_quantile does; >X: above the last finite bucket X. Cost per 1,000 requests: the workload\'s GPU cost over the window / requests.';

/** A workload with its pool figures. */
export interface ServingPool {
  workload: string;
  serving: WorkloadServing;
}

export function servingPools(workloads: readonly WorkloadEntry[]): ServingPool[] {
  return workloads.flatMap((workload) => (workload.serving === undefined ? [] : [{ workload: workload.name, serving: workload.serving }]));
}

const usd = (value: number | null, digits: number): string => (value === null ? MISSING : formatUsd(value, digits));

/** `4.24 (knee)`, `>= 1.95 (lower bound)`. */
function capacityText(pool: WorkloadServing): string {
  const capacity = pool.capacity;
  if (capacity === null) return MISSING;
  return `${capacity.basis === 'lower-bound' ? '>=' : ''}${formatNumber(capacity.requestsPerSecondPerGpu, 2)} (${capacity.basis === 'lower-bound' ? 'lower bound' : capacity.basis})`;
}

/** Nine columns: the pool's peak, what one GPU served within the SLO, and what serving costs measured and at capacity. */
export const POOL_COLUMNS: readonly (Omit<ServingColumn, 'cell'> & { cell: (pool: ServingPool) => string })[] = [
  { terminalHeader: 'workload', documentHeader: 'Workload', align: 'left', cell: (pool) => pool.workload, shrink: { minimum: 10 } },
  { terminalHeader: 'servers', documentHeader: 'Servers', align: 'right', cell: (pool) => count(pool.serving.servers) },
  { terminalHeader: 'peak\nreq/s', documentHeader: 'Peak requests/s', align: 'right', cell: (pool) => rate(pool.serving.peakRequestsPerSecond) },
  { terminalHeader: 'capacity\nreq/s/GPU', documentHeader: 'Capacity within SLO (requests/s per GPU)', align: 'right', cell: (pool) => capacityText(pool.serving) },
  { terminalHeader: 'p95 at\ncap. ms', documentHeader: 'p95 at capacity (ms)', align: 'right', cell: (pool) => formatNumber(pool.serving.capacity?.p95Ms, 0) },
  { terminalHeader: 'SLO\np95 ms', documentHeader: 'SLO p95 (ms)', align: 'right', cell: (pool) => formatNumber(pool.serving.sloP95Ms, 0), dropPriority: 2 },
  { terminalHeader: 'ramp\nreq/s/min', documentHeader: 'Fastest ramp (requests/s per minute)', align: 'right', cell: (pool) => rate(pool.serving.rampRequestsPerSecondPerMinute), dropPriority: 1 },
  { terminalHeader: '$/1k req\nmeasured', documentHeader: 'Cost per 1,000 requests, measured ($)', align: 'right', cell: (pool) => usd(pool.serving.costPer1000RequestsUsd, 3) },
  { terminalHeader: '$/1k req\nat cap.', documentHeader: 'Cost per 1,000 requests at capacity ($)', align: 'right', cell: (pool) => usd(pool.serving.costPer1000RequestsAtCapacityUsd, 3) },
];

export const POOL_NOTE =
  'Per serving workload, its servers added interval by interval. Capacity: the highest interval\'s load whose p95 stayed within the SLO, per GPU; knee: heavier intervals breached it, '
  + 'approached: the p95 came within 20% of it, lower bound: the window never came near it. At capacity: the GPU\'s hourly cost were it kept at that load.';

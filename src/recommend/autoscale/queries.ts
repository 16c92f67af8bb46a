/**
 * The PromQL an autoscaler of a serving pool reads, per inference server, where gpu-audit.yaml
 * gives none: the requests waiting in all the pool's servers, and the pool's p95 end-to-end
 * latency from the server's own histogram (as the servers' dashboards compute it,
 * inference-servers/QUERIES.md in the corpus). A data table: the names are the servers'.
 * Triton has no latency histogram, only cumulative durations: its latency query is the mean.
 */
import type { ServingServer } from '../../model/index.js';

interface ServerQueries {
  waiting: string;
  /** The histogram's base name; null where the server has none. */
  e2eHistogram: string | null;
  /** Label holding the model name; null where the server writes none (TGI). */
  modelLabel: string | null;
}

const SERVER_QUERIES: Readonly<Record<ServingServer, ServerQueries>> = {
  vllm: { waiting: 'vllm:num_requests_waiting', e2eHistogram: 'vllm:e2e_request_latency_seconds', modelLabel: 'model_name' },
  nim: { waiting: 'num_requests_waiting', e2eHistogram: 'e2e_request_latency_seconds', modelLabel: 'model_name' },
  sglang: { waiting: 'sglang:num_queue_reqs', e2eHistogram: 'sglang:e2e_request_latency_seconds', modelLabel: 'model_name' },
  tgi: { waiting: 'tgi_queue_size', e2eHistogram: 'tgi_request_duration', modelLabel: null },
  triton: { waiting: 'nv_inference_pending_request_count', e2eHistogram: null, modelLabel: 'model' },
};

/** The window rate() reads over: four scrapes at the usual 30 s. */
const RATE_WINDOW = '2m';

export interface PoolSelector {
  server: ServingServer;
  namespace: string | null;
  model: string | null;
}

/** PromQL label value: backslash and quote escaped. */
function quoted(value: string): string {
  return `"${value.replace(/\\/gu, '\\\\').replace(/"/gu, '\\"')}"`;
}

function matchers(selector: PoolSelector): string {
  const label = SERVER_QUERIES[selector.server].modelLabel;
  const parts = [
    ...(selector.namespace === null ? [] : [`namespace=${quoted(selector.namespace)}`]),
    ...(label === null || selector.model === null ? [] : [`${label}=${quoted(selector.model)}`]),
  ];
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** The pool's waiting requests: the server's queue gauge summed over its replicas. */
export function queueQuery(selector: PoolSelector): string {
  return `sum(${SERVER_QUERIES[selector.server].waiting}${matchers(selector)})`;
}

/** The pool's p95 end-to-end latency in seconds (Triton: the mean, from its microsecond counters). */
export function latencyQuery(selector: PoolSelector): string {
  const histogram = SERVER_QUERIES[selector.server].e2eHistogram;
  const where = matchers(selector);
  if (histogram === null) {
    return `sum(rate(nv_inference_request_duration_us${where}[${RATE_WINDOW}])) / sum(rate(nv_inference_request_success${where}[${RATE_WINDOW}])) / 1e6`;
  }
  return `histogram_quantile(0.95, sum by (le) (rate(${histogram}_bucket${where}[${RATE_WINDOW}])))`;
}

/** A series the metric is computed from, for prometheus-adapter's discovery (`seriesQuery`). */
export function seriesOf(selector: PoolSelector, metric: 'queue' | 'latency'): string {
  const names = SERVER_QUERIES[selector.server];
  const name = metric === 'queue' ? names.waiting : names.e2eHistogram === null ? 'nv_inference_request_success' : `${names.e2eHistogram}_bucket`;
  return `{__name__=${quoted(name)}}`;
}

/**
 * The inference servers' metric names, as each server writes them, and what each measures
 * (model/observations.ts ServingMetric). A data table, so that a server's next rename is a row:
 *
 * - vLLM: `vllm:` names of the V0 and V1 engines (V1 renamed `gpu_cache_usage_perc` to
 *   `kv_cache_usage_perc` and measures `inter_token_latency_seconds` beside the older
 *   `time_per_output_token_seconds`); NVIDIA NIM for LLMs writes the same names unprefixed.
 * - SGLang: `sglang:` names (v0.4 and later).
 * - TGI (Hugging Face text-generation-inference): `tgi_` names without `_total`; its token
 *   counts are the sums of its token histograms.
 * - Triton: `nv_inference_` counters, including the cumulative microsecond durations, and
 *   the request summary's quantiles where summaries are enabled.
 *
 * Sources: vLLM `vllm/v1/metrics/loggers.py` and `vllm/engine/metrics.py`; SGLang
 * `sglang/srt/metrics/collector.py`; TGI `router/src/server.rs` metric registrations; Triton
 * `docs/user_guide/metrics.md`; each checked against the captures in the shared corpus
 * (inference-servers/).
 */
import type { ServingMetric, ServingServer } from '../../model/index.js';

export type ServingFamilyType = 'counter' | 'gauge' | 'histogram' | 'summary';

export interface ServingFamily {
  server: ServingServer;
  metric: ServingMetric;
  type: ServingFamilyType;
  /** Multiply by this to get the unit ServingMetric names (vLLM's percent gauges are fractions; TGI's are plain). */
  scale?: number;
}

const vllmLike = (prefix: string, server: ServingServer): Record<string, ServingFamily> => ({
  [`${prefix}request_success_total`]: { server, metric: 'requests', type: 'counter' },
  [`${prefix}request_failure_total`]: { server, metric: 'failed-requests', type: 'counter' },
  [`${prefix}prompt_tokens_total`]: { server, metric: 'prompt-tokens', type: 'counter' },
  [`${prefix}generation_tokens_total`]: { server, metric: 'generation-tokens', type: 'counter' },
  [`${prefix}num_preemptions_total`]: { server, metric: 'preemptions', type: 'counter' },
  [`${prefix}num_requests_running`]: { server, metric: 'running', type: 'gauge' },
  [`${prefix}num_requests_waiting`]: { server, metric: 'waiting', type: 'gauge' },
  [`${prefix}gpu_cache_usage_perc`]: { server, metric: 'kv-cache-usage', type: 'gauge' },
  [`${prefix}kv_cache_usage_perc`]: { server, metric: 'kv-cache-usage', type: 'gauge' },
  [`${prefix}e2e_request_latency_seconds`]: { server, metric: 'e2e-latency', type: 'histogram' },
  [`${prefix}time_to_first_token_seconds`]: { server, metric: 'ttft', type: 'histogram' },
  [`${prefix}time_per_output_token_seconds`]: { server, metric: 'tpot', type: 'histogram' },
  [`${prefix}inter_token_latency_seconds`]: { server, metric: 'tpot', type: 'histogram' },
  [`${prefix}request_queue_time_seconds`]: { server, metric: 'queue-time', type: 'histogram' },
});

export const SERVING_FAMILIES: Readonly<Record<string, ServingFamily>> = {
  ...vllmLike('vllm:', 'vllm'),
  ...vllmLike('', 'nim'),
  'sglang:num_requests_total': { server: 'sglang', metric: 'requests', type: 'counter' },
  'sglang:prompt_tokens_total': { server: 'sglang', metric: 'prompt-tokens', type: 'counter' },
  'sglang:generation_tokens_total': { server: 'sglang', metric: 'generation-tokens', type: 'counter' },
  'sglang:num_running_reqs': { server: 'sglang', metric: 'running', type: 'gauge' },
  'sglang:num_queue_reqs': { server: 'sglang', metric: 'waiting', type: 'gauge' },
  'sglang:token_usage': { server: 'sglang', metric: 'kv-cache-usage', type: 'gauge' },
  'sglang:e2e_request_latency_seconds': { server: 'sglang', metric: 'e2e-latency', type: 'histogram' },
  'sglang:time_to_first_token_seconds': { server: 'sglang', metric: 'ttft', type: 'histogram' },
  'sglang:inter_token_latency_seconds': { server: 'sglang', metric: 'tpot', type: 'histogram' },
  'sglang:time_per_output_token_seconds': { server: 'sglang', metric: 'tpot', type: 'histogram' },
  'sglang:queue_time_seconds': { server: 'sglang', metric: 'queue-time', type: 'histogram' },
  tgi_request_success: { server: 'tgi', metric: 'requests', type: 'counter' },
  tgi_request_failure: { server: 'tgi', metric: 'failed-requests', type: 'counter' },
  tgi_queue_size: { server: 'tgi', metric: 'waiting', type: 'gauge' },
  tgi_batch_current_size: { server: 'tgi', metric: 'running', type: 'gauge' },
  tgi_request_duration: { server: 'tgi', metric: 'e2e-latency', type: 'histogram' },
  tgi_request_queue_duration: { server: 'tgi', metric: 'queue-time', type: 'histogram' },
  tgi_request_mean_time_per_token_duration: { server: 'tgi', metric: 'tpot', type: 'histogram' },
  // TGI counts tokens only in these histograms: their sums are the counters.
  tgi_request_input_length: { server: 'tgi', metric: 'prompt-tokens', type: 'histogram' },
  tgi_request_generated_tokens: { server: 'tgi', metric: 'generation-tokens', type: 'histogram' },
  nv_inference_request_success: { server: 'triton', metric: 'requests', type: 'counter' },
  nv_inference_request_failure: { server: 'triton', metric: 'failed-requests', type: 'counter' },
  nv_inference_pending_request_count: { server: 'triton', metric: 'waiting', type: 'gauge' },
  nv_inference_request_duration_us: { server: 'triton', metric: 'request-duration-us', type: 'counter' },
  nv_inference_queue_duration_us: { server: 'triton', metric: 'queue-duration-us', type: 'counter' },
  nv_inference_compute_infer_duration_us: { server: 'triton', metric: 'compute-duration-us', type: 'counter' },
  nv_inference_request_summary_us: { server: 'triton', metric: 'request-summary-us', type: 'summary' },
};

/** Metric names no other format uses, whose presence makes a page an inference server's (NIM's unprefixed names are too common alone). */
export const SERVING_MARKERS = /^(?:vllm:|sglang:|tgi_(?:request|queue|batch)|nv_inference_|nv_trt_llm_)/u;

/** NIM's unprefixed page: both of these together. */
export const NIM_MARKERS = ['time_to_first_token_seconds', 'request_success_total'] as const;

/** The family a sample name belongs to, with the sample's part of it (`_bucket`, `_sum`, `_count`), or undefined. */
export function servingFamilyOf(name: string): { family: ServingFamily; part: 'value' | 'bucket' | 'sum' | 'count' } | undefined {
  const whole = SERVING_FAMILIES[name];
  if (whole !== undefined) return { family: whole, part: 'value' };
  for (const part of ['bucket', 'sum', 'count'] as const) {
    if (!name.endsWith(`_${part}`)) continue;
    const family = SERVING_FAMILIES[name.slice(0, -part.length - 1)];
    if (family !== undefined && (family.type === 'histogram' || family.type === 'summary')) return { family, part };
  }
  return undefined;
}

/**
 * Live Prometheus as a source: `gpu-audit audit --prometheus URL --since 7d`. Aggregations run
 * in PromQL (./queries.ts), so what is fetched grows with GPUs, not with samples; the result is
 * per-device aggregates for analysis/aggregates.ts rather than samples.
 */
import type { KubernetesSourceRead, ServingSample, SourceSummary } from '../../../model/index.js';
import { fetchServing } from './serving.js';
import { fetchKubeStateMetrics } from './kube-state-metrics.js';
import { prometheusConnection, type PrometheusConnectionFlags } from './auth.js';
import { type ClientOptions, PrometheusClient, type TransferStats } from './client.js';
import { type CollectedDevice, type Collection, collectFromPrometheus } from './read-prometheus.js';
import { DEFAULT_QUERY_BUDGETS, type QueryBudgets } from './query-plan.js';
import { clusterMatcher, parseSelector } from './selector.js';
import { sigV4Signer } from './sigv4.js';
import { InputError, UpstreamError } from '../../../support/index.js';
import { resolveWindow, type AuditWindow } from './window.js';
import { inputLimitsOf, type InputLimits } from '../../input-limits.js';

export type { CollectedDevice, CollectedPod } from './read-prometheus.js';
export type { PrometheusContainerCpu, PrometheusHostCpu } from './cpu.js';
export type { RangeRule } from './window.js';
export type { TransferStats } from './client.js';
export { PROMETHEUS_ENV } from './auth.js';
export type { PrometheusConnectionFlags } from './auth.js';
export { parseSelector } from './selector.js';
export { DEFAULT_QUERY_BUDGETS } from './query-plan.js';
export { parseDurationSeconds, resolveWindow, DEFAULT_STEP_SECONDS } from './window.js';

export interface PrometheusSourceOptions {
  url: string;
  since: string;
  until?: string;
  step?: string;
  selector?: string;
  /** --prometheus-cluster-label: one cluster of a multi-cluster store (./selector.ts clusterMatcher). */
  clusterLabel?: string;
  /** The connection flags, each over its environment variable (./auth.ts). */
  connection?: PrometheusConnectionFlags;
  /** --prometheus-sigv4: the AWS region whose Amazon Managed Service for Prometheus signs the requests (./sigv4.ts). */
  sigv4Region?: string;
  idleThresholdPct: number;
  env: NodeJS.ProcessEnv;
  nowMs: number;
  timeoutMs?: number;
  /** --prometheus-max-answer-mib, in bytes. */
  maxAnswerBytes?: number;
  concurrency?: number;
  /** --input-limit: the label and series caps (../../input-limits.ts). */
  inputLimits?: Partial<InputLimits>;
  /** --prometheus-query-points / -samples: what one query may cost (./query-plan.ts); defaults where absent. */
  budgets?: Partial<QueryBudgets>;
  /** Test hooks and tuning (backoff, chunk sizes). */
  client?: Partial<ClientOptions>;
  chunkSeconds?: number;
  rangeChunkSeconds?: number;
  /** Progress: queries done of planned. */
  onProgress?: (done: number, planned: number) => void;
  /** Inference-server readings (./serving.ts), in time order per server; without it no serving series are read. */
  onServing?: (reading: ServingSample) => void;
}

export interface PrometheusSourceResult {
  devices: CollectedDevice[];
  window: AuditWindow;
  /** Metric names found and read. */
  metrics: string[];
  stats: TransferStats;
  /** The report's `sources[]` entry: `records` counts the API queries made. */
  summary: SourceSummary;
  /** node_exporter / cAdvisor CPU counters' increases; empty lists where not scraped. */
  cpu: Collection['cpu'];
  /** Whether the server's ranges include their start (2.x) or not (3.x), as probed. */
  rangeRule: Collection['rangeRule'];
  /** Pods and nodes from kube-state-metrics series, where the server holds them (./kube-state-metrics.ts). */
  kubernetes?: KubernetesSourceRead;
}

/** Validates every option before the first request, then collects. */
export async function readPrometheus(options: PrometheusSourceOptions): Promise<PrometheusSourceResult> {
  const matchers = [
    ...(options.selector === undefined ? [] : parseSelector(options.selector)),
    ...(options.clusterLabel === undefined ? [] : [clusterMatcher(options.clusterLabel)]),
  ];
  const window = resolveWindow({ since: options.since, ...(options.until === undefined ? {} : { until: options.until }), ...(options.step === undefined ? {} : { step: options.step }) }, options.nowMs);
  const connection = prometheusConnection(options.url, options.env, options.connection);
  if (options.sigv4Region !== undefined) {
    if (Object.keys(connection.headers).some((name) => name.toLowerCase() === 'authorization')) {
      throw new InputError('--prometheus-sigv4 signs every request itself: drop the other credentials (GPU_AUDIT_PROMETHEUS_TOKEN, _USER, user:password in the URL, an Authorization header)');
    }
    connection.sign = await sigV4Signer(options.sigv4Region, options.env);
  }
  let planned = 0;
  const client = new PrometheusClient(connection, {
    ...options.client,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.maxAnswerBytes === undefined ? {} : { maxAnswerBytes: options.maxAnswerBytes }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.inputLimits === undefined ? {} : { inputLimits: inputLimitsOf(options.inputLimits) }),
    onQueryDone: (stats) => options.onProgress?.(stats.queries, Math.max(planned, stats.queries)),
  });
  const collection = await collectFromPrometheus(client, {
    window,
    matchers,
    idleThresholdPct: options.idleThresholdPct,
    defaultHost: connection.baseUrl.host,
    budgets: { ...DEFAULT_QUERY_BUDGETS, ...options.budgets },
    ...(options.chunkSeconds === undefined ? {} : { chunkSeconds: options.chunkSeconds }),
    ...(options.rangeChunkSeconds === undefined ? {} : { rangeChunkSeconds: options.rangeChunkSeconds }),
    onPlan: (queries) => {
      planned = queries;
    },
  });
  // kube-state-metrics: the cluster's matcher only (--selector names GPU series' labels).
  const clusterOnly = options.clusterLabel === undefined ? [] : [clusterMatcher(options.clusterLabel)];
  // An enrichment, never a reason to fail: a refused or failed kube-state-metrics read is a warning.
  const kubernetesWarnings: string[] = [];
  const kubernetes = await fetchKubeStateMetrics(client, window, collection.rangeRule, clusterOnly).catch((error: unknown) => {
    if (!(error instanceof UpstreamError)) throw error;
    kubernetesWarnings.push(`kube-state-metrics series not read (${error.message}): pods and nodes need --k8s or --kubectl`);
    return undefined;
  });
  const serving = options.onServing === undefined
    ? undefined
    : await fetchServing(client, { window, matchers, rule: collection.rangeRule, defaultHost: connection.baseUrl.host, onReading: options.onServing });
  // Last, once everything else answered: a courtesy request never stands between the user and the audit's figures or failure.
  const engineName = await client.engine();
  return {
    devices: collection.devices,
    window,
    metrics: [...collection.metrics, ...(serving?.metrics ?? [])],
    stats: { ...client.stats },
    cpu: collection.cpu,
    rangeRule: collection.rangeRule,
    summary: {
      ref: connection.displayUrl, format: 'prometheus', records: client.stats.queries, warnings: [...collection.warnings, ...kubernetesWarnings, ...(serving?.warnings ?? [])],
      ...(engineName === undefined ? {} : { engine: engineName }),
    },
    ...(kubernetes === undefined ? {} : { kubernetes: { ...kubernetes, ref: `${connection.displayUrl} (kube-state-metrics)` } }),
  };
}

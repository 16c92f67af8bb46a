/**
 * CPU counters for the data-pipeline verdict from a live Prometheus: node_exporter's
 * `node_cpu_seconds_total` per host and cAdvisor's `container_cpu_*` per container, pushed
 * down as increases over the whole window, so what is fetched grows with hosts x CPU modes
 * and with containers, never with samples. The same counters the file source reads
 * (../node-metrics.ts); analysis turns the increases into the same figures
 * (analysis/cpu-pipeline/cpu-usage.ts definitions; src/engine/run-audit.ts converts).
 *
 * Host of a series: the same rule as the file source (../node-metrics.ts hostOf): `node`, else
 * `nodename`, else `Hostname`, else `instance` without its `:port`. Host CPU is read for every
 * host node_exporter reports (the --selector matchers are dcgm-exporter labels, which
 * node_exporter series do not carry); analysis keeps the hosts that hold the audited GPUs,
 * matching names as Kubernetes nodes match (exact, else the same short name).
 *
 * Containers are read only for the pods seen on the audited GPUs (dcgm-exporter's pod
 * mapping), in one query with `namespace=~` and `pod=~` matchers: a cluster's other
 * containers are neither fetched nor kept. cAdvisor's pod cgroup (`container=""`) and pause
 * container (`POD`) are left out, as in the file source.
 *
 * Increases are those of the file source (analysis/cpu-pipeline/counters.ts): the last reading in the
 * window minus the first, per series (a counter only grows, so its first reading is its
 * smallest). `increase()` would extrapolate to the window's edges, by up to a scrape interval
 * more than the readings show, so it only stands in for series whose counter was reset in the
 * window (where it follows the reset as the file source does, but extrapolated). Cores used
 * divide the usage increase by the time from the first to the last step of the --step grid at
 * which the usage series was present: the file source's span from first to last reading, at
 * the resolution of the step.
 *
 * No node_exporter or cAdvisor series: empty answers, no figures, the verdict `unknown`.
 */
import type { ContainerCpuTotals, HostCpuTotals } from '../../../model/index.js';
import { CONTAINER_CPU_METRICS, CPU_HOST_LABELS, NODE_CPU_METRIC, hostOf } from '../../formats/node-metrics.js';
import type { Labels, PrometheusClient } from './client.js';
import { AGGREGATE_LABEL, tagged } from './queries.js';
import { promDuration, promSpan, type AuditWindow, type RangeRule } from './window.js';

/** Increases of one host's CPU seconds over the window (steps at which node_exporter was scraped). */
export type PrometheusHostCpu = HostCpuTotals;

/** Increases of one container's counters over the window (steps at which they were present). */
export type PrometheusContainerCpu = ContainerCpuTotals;

export interface PodRef {
  namespace: string;
  pod: string;
}

const by = (...labels: readonly string[]): string => `by (${labels.join(', ')})`;
const HOST_BY = by(...CPU_HOST_LABELS);
const CONTAINER_BY = by('namespace', 'pod', 'container', ...CPU_HOST_LABELS);
const COUNTER_NAME = Object.fromEntries(Object.entries(CONTAINER_CPU_METRICS).map(([name, counter]) => [counter, name]));

/** Regex alternatives matching exactly `values` (RE2 syntax, anchored by Prometheus). */
export function exactAlternatives(values: readonly string[]): string {
  const escaped = [...new Set(values)].sort().map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // The regex sits in a double-quoted PromQL string: its backslashes and quotes are escaped once more.
  return escaped.join('|').replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/**
 * A counter's increase per series over `range`: last - first reading (the smallest, for a counter)
 * where it was never reset, else increase() (extrapolated). The three share their label sets
 * (functions drop the metric name), so `and`/`or` pair them series by series.
 */
export function counterIncrease(series: string, range: string): string {
  return `(last_over_time(${series}[${range}]) - min_over_time(${series}[${range}])) and (resets(${series}[${range}]) == 0) or increase(${series}[${range}])`;
}

/** Unix seconds of the first and last step at which `series` is present, per group. */
function presence(grouped: string, subquery: string): [string, string] {
  return [`min_over_time((${grouped} * time())[${subquery}])`, `max_over_time((${grouped} * time())[${subquery}])`];
}

/**
 * Per host over the window: the increase of CPU seconds by mode, the number of CPUs (distinct
 * `cpu` labels), counter resets, and the first and last step at which CPU 0's idle counter
 * (one series per host) was present.
 */
export function hostCpuQuery(window: AuditWindow, rule: RangeRule): string {
  const range = promSpan((window.endMs - window.startMs) / 1000, rule);
  const subquery = `${range}:${promDuration(window.stepSeconds)}`;
  const [first, last] = presence(`group ${HOST_BY} (${NODE_CPU_METRIC}{cpu="0",mode="idle"})`, subquery);
  return [
    tagged('seconds', `sum ${by(...CPU_HOST_LABELS, 'mode')} (${counterIncrease(NODE_CPU_METRIC, range)})`),
    tagged('cores', `count ${HOST_BY} (count ${by(...CPU_HOST_LABELS, 'cpu')} (last_over_time(${NODE_CPU_METRIC}[${range}])))`),
    tagged('resets', `sum ${HOST_BY} (resets(${NODE_CPU_METRIC}[${range}]))`),
    tagged('first', first),
    tagged('last', last),
  ].join('\nor ');
}

/** Per container of the given pods over the window: usage, CFS periods and throttled periods increases, and the usage counter's first and last step. */
export function containerCpuQuery(window: AuditWindow, rule: RangeRule, pods: readonly PodRef[]): string {
  const range = promSpan((window.endMs - window.startMs) / 1000, rule);
  const subquery = `${range}:${promDuration(window.stepSeconds)}`;
  const matchers = `container!~"|POD",namespace=~"${exactAlternatives(pods.map((pod) => pod.namespace))}",pod=~"${exactAlternatives(pods.map((pod) => pod.pod))}"`;
  const usage = `${COUNTER_NAME['usage-seconds']!}{${matchers}}`;
  const [first, last] = presence(`group ${CONTAINER_BY} (${usage})`, subquery);
  return [
    tagged('usage', `sum ${CONTAINER_BY} (${counterIncrease(usage, range)})`),
    tagged('usage_first', first),
    tagged('usage_last', last),
    tagged('periods', `sum ${CONTAINER_BY} (${counterIncrease(`${COUNTER_NAME['cfs-periods']!}{${matchers}}`, range)})`),
    tagged('throttled', `sum ${CONTAINER_BY} (${counterIncrease(`${COUNTER_NAME['cfs-throttled-periods']!}{${matchers}}`, range)})`),
  ].join('\nor ');
}

const labelMap = (labels: Labels): Map<string, string> => new Map(Object.entries(labels));

/** Host CPU increases; [] where node_exporter is not scraped. */
export async function fetchHostCpu(client: PrometheusClient, window: AuditWindow, rule: RangeRule): Promise<PrometheusHostCpu[]> {
  const hosts = new Map<string, PrometheusHostCpu>();
  const hostOfLabels = (labels: Labels): PrometheusHostCpu => {
    const host = hostOf(labelMap(labels), '');
    let figures = hosts.get(host);
    if (figures === undefined) {
      figures = { host, cores: 0, secondsByMode: {}, windowSeconds: 0, counterResets: 0 };
      hosts.set(host, figures);
      spans.set(host, { firstMs: Infinity, lastMs: -Infinity });
    }
    return figures;
  };
  const spans = new Map<string, { firstMs: number; lastMs: number }>();
  for (const sample of await client.instant(hostCpuQuery(window, rule), window.endMs, window.startMs)) {
    if (!Number.isFinite(sample.value)) continue;
    const figures = hostOfLabels(sample.labels);
    switch (sample.labels[AGGREGATE_LABEL]) {
      case 'seconds': {
        const mode = sample.labels.mode ?? '';
        figures.secondsByMode[mode] = (figures.secondsByMode[mode] ?? 0) + sample.value;
        break;
      }
      case 'cores': figures.cores += sample.value; break;
      case 'resets': figures.counterResets += sample.value; break;
      case 'first': { const span = spans.get(figures.host)!; span.firstMs = Math.min(span.firstMs, sample.value * 1000); break; }
      case 'last': { const span = spans.get(figures.host)!; span.lastMs = Math.max(span.lastMs, sample.value * 1000); break; }
      default: break;
    }
  }
  for (const [host, span] of spans) if (span.lastMs > span.firstMs) hosts.get(host)!.windowSeconds = (span.lastMs - span.firstMs) / 1000;
  // A series without any host label cannot be matched to a GPU host.
  hosts.delete('');
  return [...hosts.values()];
}

/**
 * Pods per container query: their names travel in the query's regex, so a fleet whose GPUs saw
 * many short-lived pods asks in batches rather than in one request of megabytes.
 */
export const PODS_PER_CONTAINER_QUERY = 500;

/**
 * The longest query text sent: VictoriaMetrics refuses queries over its -search.maxQueryLen,
 * 16 KiB by default, and Prometheus behind a proxy meets similar URL and body limits.
 */
export const MAX_QUERY_CHARS = 12_000;

/** `items` in batches whose query stays within MAX_QUERY_CHARS, halving a batch until it does (one item always goes alone). */
export function withinQueryLength<T>(items: readonly T[], queryOf: (batch: readonly T[]) => string, maxChars = MAX_QUERY_CHARS): T[][] {
  if (items.length <= 1 || queryOf(items).length <= maxChars) return items.length === 0 ? [] : [[...items]];
  const half = Math.ceil(items.length / 2);
  return [...withinQueryLength(items.slice(0, half), queryOf, maxChars), ...withinQueryLength(items.slice(half), queryOf, maxChars)];
}

/** Container CPU increases of the given pods; [] without pods or without cAdvisor. */
export async function fetchContainerCpu(client: PrometheusClient, window: AuditWindow, rule: RangeRule, pods: readonly PodRef[]): Promise<PrometheusContainerCpu[]> {
  const wanted = new Set(pods.map((pod) => `${pod.namespace}/${pod.pod}`));
  const containers = new Map<string, PrometheusContainerCpu>();
  const spans = new Map<PrometheusContainerCpu, { firstMs: number; lastMs: number }>();
  const batches: PodRef[][] = [];
  for (let first = 0; first < pods.length; first += PODS_PER_CONTAINER_QUERY) batches.push(...withinQueryLength(pods.slice(first, first + PODS_PER_CONTAINER_QUERY), (batch) => containerCpuQuery(window, rule, batch)));
  const answers = await Promise.all(batches.map((batch) => client.instant(containerCpuQuery(window, rule, batch), window.endMs, window.startMs)));
  for (const sample of answers.flat()) {
    const { namespace, pod, container } = sample.labels;
    if (!Number.isFinite(sample.value) || namespace === undefined || pod === undefined || container === undefined) continue;
    // The matchers pair every namespace with every pod name: keep the pairs that were asked for.
    if (!wanted.has(`${namespace}/${pod}`)) continue;
    const host = hostOf(labelMap(sample.labels), '');
    const key = [host, namespace, pod, container].join('\u0000');
    let figures = containers.get(key);
    if (figures === undefined) {
      figures = { host, namespace, pod, container };
      containers.set(key, figures);
      spans.set(figures, { firstMs: Infinity, lastMs: -Infinity });
    }
    const span = spans.get(figures)!;
    switch (sample.labels[AGGREGATE_LABEL]) {
      case 'usage': figures.usageSeconds = (figures.usageSeconds ?? 0) + sample.value; break;
      case 'usage_first': span.firstMs = Math.min(span.firstMs, sample.value * 1000); break;
      case 'usage_last': span.lastMs = Math.max(span.lastMs, sample.value * 1000); break;
      case 'periods': figures.periods = (figures.periods ?? 0) + sample.value; break;
      case 'throttled': figures.throttledPeriods = (figures.throttledPeriods ?? 0) + sample.value; break;
      default: break;
    }
  }
  for (const [figures, span] of spans) if (span.lastMs > span.firstMs) figures.presentSeconds = (span.lastMs - span.firstMs) / 1000;
  return [...containers.values()];
}

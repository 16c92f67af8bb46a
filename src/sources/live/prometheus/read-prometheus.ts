/**
 * A live-Prometheus audit's data collection: which dcgm-exporter metrics exist, then the
 * pushed-down aggregates per chunk of the window, the quantiles over the whole window and the
 * hourly profiles, combined per device into aggregates the analysis takes
 * (analysis/aggregates.ts). What is fetched grows with devices x chunks, never with samples.
 *
 * Combining chunks is exact for counts, sums (hence means: sum of sums / sum of counts, so
 * every raw sample weighs the same), maxima, steps, first and last times. Quantiles are never
 * combined: they are asked over the whole window (./queries.ts quantileQuery).
 *
 * Chunk joins: the server's range rule (closed in Prometheus 2.x, left-open in 3.x) is asked
 * once GPU series are found, with a query that reads no data (./queries.ts RANGE_RULE_PROBE), and every range is
 * sized for it (./window.ts promSpan), so each chunk and bucket covers exactly
 * [its start + 1 ms, its end] on either server: no sample counted twice, none lost.
 *
 * Pods: the per-chunk device query also returns, per device and container of dcgm-exporter's
 * pod mapping, the steps it held the device and the first and last of them; the containers'
 * CPU counters are then read for those pods only (./cpu.ts).
 */
import { InputError, UpstreamError } from '../../../support/index.js';
import { MS_PER_HOUR, type DeviceAggregates } from '../../../model/index.js';
import { TARGET_POD_LABELS_WARNING, readSeriesLabels, type PodLabels } from '../../dcgm/labels.js';
import type { ReadingKey } from '../../dcgm/fields.js';
import { QueryLimitError, type Labels, type PartialAnswer, type PrometheusClient, type RangeSeries } from './client.js';
import { fetchContainerCpu, fetchHostCpu, type PrometheusContainerCpu, type PrometheusHostCpu } from './cpu.js';
import {
  DEVICE_LABELS, FRAMEBUFFER_PART_READINGS, FRAMEBUFFER_TOTAL_READING, KIB_PER_MIB, type MetricName, metricNamesOf,
  POD_NAME_LABELS, PUSH_DOWN_METRICS, PUSH_DOWN_PCIE, type PushDownMetric, type PushDownSignal, allMetricNames,
} from './metrics.js';
import {
  AGGREGATE_LABEL, RANGE_RULE_PROBE, SAMPLE_RATE_WINDOW_SECONDS, bucketComputeQuery, bucketMemoryMaxQuery, deviceChunkQuery, type PcieSelectors,
  pcieQuantileQuery, quantileQuery, rangeRuleOf, sampleRateQuery, type ScaledSelector, seriesEstimateQuery, signalChunkQuery,
} from './queries.js';
import { DEFAULT_QUERY_BUDGETS, type FleetEstimate, planQueries, type QueryBudgets, SHARD_DIGIT_LABEL } from './query-plan.js';
import { seriesSelector } from './selector.js';
import { type AuditWindow, type Chunk, type RangeRule, splitWindow, timelineBucketSeconds } from './window.js';

/** A container of dcgm-exporter's pod mapping seen on a device: steps of the --step grid at which it held it. */
export interface CollectedPod extends PodLabels {
  steps: number;
  /** Epoch ms of the first and last of those steps. */
  firstSeenMs: number;
  lastSeenMs: number;
}

/** What the server's aggregates make of a device: the analysis' own input (model/aggregates.ts), with its pods as dcgm-exporter labels them. */
export type CollectedDevice = DeviceAggregates & { pods?: CollectedPod[] };

export interface CollectOptions {
  window: AuditWindow;
  /** Label matchers of --selector (./selector.ts). */
  matchers: readonly string[];
  idleThresholdPct: number;
  /** Host for series without a Hostname label. */
  defaultHost: string;
  /** Longest chunk of the aggregation queries; default 7 days (the query planner may cut shorter). */
  chunkSeconds?: number;
  /** What one query may cost (./query-plan.ts); default DEFAULT_QUERY_BUDGETS. */
  budgets?: QueryBudgets;
  /** Length of the hourly range queries' pieces; default 7 days (168 points per series). */
  rangeChunkSeconds?: number;
  /** Called once the number of queries is known. */
  onPlan?: (queries: number) => void;
}

export interface Collection {
  devices: CollectedDevice[];
  /** Metric names found and read. */
  metrics: string[];
  warnings: string[];
  /** The server's range rule, as its probe answered. */
  rangeRule: RangeRule;
  /** node_exporter and cAdvisor CPU counters' increases over the window (./cpu.ts); empty lists where not scraped. */
  cpu: { hosts: PrometheusHostCpu[]; containers: PrometheusContainerCpu[] };
}

/**
 * A week per chunk: the work of one chunk query (every sample of every device in the chunk,
 * a few aggregations each) stays below that of the whole-window quantile queries for windows
 * over a week, while each chunk adds one value per device and aggregate to what is fetched.
 */
const DEFAULT_CHUNK_SECONDS = 7 * 86_400;
const DEFAULT_RANGE_CHUNK_SECONDS = 7 * 86_400;

interface SignalTotals {
  count: number;
  sum: number;
  max: number;
  steps: number;
  idleSteps: number;
  quantiles: Map<number, number>;
}

/** A PCIe direction's aggregates in MiB/s (count in samples). */
interface PcieTotals {
  count: number;
  sum: number;
  max: number;
  /** The whole window's PCIE_QUANTILE. */
  quantile?: number;
}

/** The PCIe quantile the report shows (ThroughputStats.p95). */
const PCIE_QUANTILE = 0.95;

/** `pcie_rx_sum` -> direction `pcie_rx`, aggregate `sum`. */
const PCIE_TAG = /^(pcie_(?:rx|tx))_(count|sum|max|quantile)$/u;

interface DeviceTotals {
  labels: Labels;
  steps: number;
  firstMs: number;
  lastMs: number;
  memoryTotalMiB: number;
  signals: Map<PushDownSignal, SignalTotals>;
  hourlyCompute: Map<number, number>;
  timelineCompute: Map<number, number>;
  timelineMemory: Map<number, number>;
  /** By the pod labels' JSON (the labels readSeriesLabels reads the pod from). */
  pods: Map<string, { labels: Labels; steps: number; firstMs: number; lastMs: number }>;
  /** By PUSH_DOWN_PCIE tag. */
  pcie: Map<string, PcieTotals>;
}

interface PresentMetric extends MetricName {
  metric: PushDownMetric;
  selector: string;
}

function deviceLabelKey(labels: Labels): string {
  return DEVICE_LABELS.map((name) => labels[name] ?? '').join('\u0000');
}

class Totals {
  private readonly byDevice = new Map<string, DeviceTotals>();

  device(labels: Labels): DeviceTotals {
    const key = deviceLabelKey(labels);
    let totals = this.byDevice.get(key);
    if (totals === undefined) {
      const deviceLabels: Record<string, string> = {};
      for (const name of DEVICE_LABELS) if (labels[name] !== undefined) deviceLabels[name] = labels[name];
      totals = {
        labels: deviceLabels, steps: 0, firstMs: Infinity, lastMs: -Infinity, memoryTotalMiB: -Infinity,
        signals: new Map(), hourlyCompute: new Map(), timelineCompute: new Map(), timelineMemory: new Map(), pods: new Map(), pcie: new Map(),
      };
      this.byDevice.set(key, totals);
    }
    return totals;
  }

  signal(labels: Labels, signal: PushDownSignal): SignalTotals {
    const signals = this.device(labels).signals;
    let totals = signals.get(signal);
    if (totals === undefined) {
      totals = { count: 0, sum: 0, max: -Infinity, steps: 0, idleSteps: 0, quantiles: new Map() };
      signals.set(signal, totals);
    }
    return totals;
  }

  /** The totals of the container of a pod-grouped answer's labels, on its device. */
  pod(labels: Labels): { steps: number; firstMs: number; lastMs: number } {
    const pods = this.device(labels).pods;
    const podLabels: Record<string, string> = {};
    for (const [name, value] of Object.entries(labels)) if (name !== AGGREGATE_LABEL && !(DEVICE_LABELS as readonly string[]).includes(name)) podLabels[name] = value;
    const key = JSON.stringify(Object.entries(podLabels).sort(([a], [b]) => a.localeCompare(b)));
    let totals = pods.get(key);
    if (totals === undefined) {
      totals = { labels: podLabels, steps: 0, firstMs: Infinity, lastMs: -Infinity };
      pods.set(key, totals);
    }
    return totals;
  }

  /**
   * Adds a PCIe aggregate of a tagged answer (`pcie_rx_sum`, …) to its device; false for a tag
   * that is not one. Chunks add up: counts and sums add, maxima take the larger.
   */
  addPcie(labels: Labels, tag: string, value: number): boolean {
    const match = PCIE_TAG.exec(tag);
    if (match === null) return false;
    const pcie = this.device(labels).pcie;
    let totals = pcie.get(match[1]!);
    if (totals === undefined) {
      totals = { count: 0, sum: 0, max: -Infinity };
      pcie.set(match[1]!, totals);
    }
    switch (match[2]) {
      case 'count': totals.count += value; break;
      case 'sum': totals.sum += value; break;
      case 'max': totals.max = Math.max(totals.max, value); break;
      default: totals.quantile = value; break;
    }
    return true;
  }

  all(): DeviceTotals[] {
    return [...this.byDevice.values()];
  }
}

/** The first name of `reading` that the server has, or undefined. */
function presentName(reading: ReadingKey, names: ReadonlySet<string>): MetricName | undefined {
  return metricNamesOf(reading).find((metric) => names.has(metric.name));
}

/** FB_TOTAL where exported, else used + free (+ reserved where exported), as ../dcgm/readings.ts. */
function memoryTotalExpression(names: ReadonlySet<string>, matchers: readonly string[]): string | undefined {
  const total = presentName(FRAMEBUFFER_TOTAL_READING, names);
  if (total !== undefined) return seriesSelector([total.name], matchers);
  const parts = FRAMEBUFFER_PART_READINGS.map((reading) => presentName(reading, names));
  if (parts[0] === undefined || parts[1] === undefined) return undefined;
  return parts.filter((part) => part !== undefined).map((part) => seriesSelector([part.name], matchers)).join(' + ');
}

/** Epoch-aligned buckets covering the window: bucket b is [startMs + b x bucketMs, + bucketMs). */
interface Grid {
  startMs: number;
  bucketMs: number;
  count: number;
}

function gridOf(window: AuditWindow, bucketSeconds: number): Grid {
  const bucketMs = bucketSeconds * 1000;
  const startMs = Math.floor(window.startMs / bucketMs) * bucketMs;
  return { startMs, bucketMs, count: Math.ceil((window.endMs - startMs) / bucketMs) };
}

function finite(value: number): boolean {
  return Number.isFinite(value);
}

/**
 * The server's range rule, from RANGE_RULE_PROBE evaluated at a whole second. An answer that is
 * neither rule's is a server gpu-audit cannot read figures from without risking double counts.
 */
async function probeRangeRule(client: PrometheusClient, atMs: number): Promise<RangeRule> {
  const answer = await client.instant(RANGE_RULE_PROBE, Math.floor(atMs / 1000) * 1000);
  const rule = answer.length === 1 ? rangeRuleOf(answer[0]!.value) : undefined;
  if (rule === undefined) {
    throw new UpstreamError(
      `${RANGE_RULE_PROBE} answered ${JSON.stringify(answer.map((sample) => sample.value))}, expected [3] (Prometheus 2.x) or [2] (3.x): ` +
      'cannot tell whether the server\'s ranges include their start',
      { endpoint: `${client.connection.displayUrl}/api/v1/query` },
    );
  }
  return rule;
}

/** The selectors of one shard's queries: every GPU query of the audit, under `matchers`. */
interface ShardSelectors {
  present: PresentMetric[];
  anySelector: string;
  memoryTotal?: string;
  computeSignals: ScaledSelector[];
  memoryUsed?: PresentMetric;
  podSelectors: string[];
  pcie: (Omit<PcieSelectors, 'sources'> & { sources: readonly { name: string; selector: string; perMiBps: number }[] })[];
}

function shardSelectors(found: readonly Omit<PresentMetric, 'selector'>[], names: ReadonlySet<string>, matchers: readonly string[]): ShardSelectors {
  const present = found.map((metric) => ({ ...metric, selector: seriesSelector([metric.name], matchers) }));
  const memoryTotal = memoryTotalExpression(names, matchers);
  const memoryUsed = present.find((metric) => metric.metric.signal === 'memoryUsedMiB');
  return {
    present,
    anySelector: seriesSelector(present.map((metric) => metric.name), matchers),
    ...(memoryTotal === undefined ? {} : { memoryTotal }),
    computeSignals: present.filter((metric) => metric.metric.basis !== undefined).map(({ selector, scale }) => ({ selector, scale })),
    ...(memoryUsed === undefined ? {} : { memoryUsed }),
    podSelectors: POD_NAME_LABELS.map((label) => seriesSelector(present.map((metric) => metric.name), [...matchers, `${label}!=""`])),
    // PCIe is not a presence signal (anySelector): it rides along in the device query and adds one quantile request.
    pcie: PUSH_DOWN_PCIE.flatMap((direction) => {
      const sources = metricNamesOf(direction.reading)
        .filter((metric) => names.has(metric.name))
        .map((metric) => ({ name: metric.name, selector: seriesSelector([metric.name], matchers), perMiBps: KIB_PER_MIB / metric.scale }));
      return sources.length === 0 ? [] : [{ tag: direction.tag, sources }];
    }),
  };
}

/** Points of the series estimate: a few over the window, on whole steps. */
const ESTIMATE_POINTS = 24;

/**
 * The query planner's look at the fleet (./query-plan.ts): series per metric and UUID digit at
 * the busiest of a few instants, and the scrape rate there. Where the engine refuses the
 * estimate for its size it is asked at fewer instants; refused at one, the plan is one shard
 * (and refusals are split on the spot).
 */
async function estimateFleet(client: PrometheusClient, selectors: ShardSelectors, window: AuditWindow): Promise<FleetEstimate> {
  const byDigit = new Map<string, Map<string, number>>();
  const totalAt = new Map<number, number>();
  const windowSteps = Math.max(1, Math.floor((window.endMs - window.startMs) / 1000 / window.stepSeconds));
  let series: RangeSeries[] | undefined;
  for (let points = ESTIMATE_POINTS; series === undefined && points >= 1; points = Math.floor(points / 2)) {
    const stepSeconds = Math.max(1, Math.ceil(windowSteps / points)) * window.stepSeconds;
    try {
      const startMs = Math.max(window.startMs + window.stepSeconds * 1000, window.endMs - (points - 1) * stepSeconds * 1000);
      series = await client.range(seriesEstimateQuery(selectors.anySelector), Math.min(startMs, window.endMs), window.endMs, stepSeconds, window.startMs);
    } catch (error) {
      if (!(error instanceof QueryLimitError)) throw error;
    }
  }
  if (series === undefined) return { seriesByDigit: byDigit, samplesPerSecond: 0 };
  for (const { labels, points } of series) {
    const digit = (labels[SHARD_DIGIT_LABEL] ?? '').toLowerCase();
    const name = labels.__name__ ?? '';
    const names = byDigit.get(digit) ?? new Map<string, number>();
    byDigit.set(digit, names);
    for (const [seconds, value] of points) {
      if (!finite(value)) continue;
      names.set(name, Math.max(names.get(name) ?? 0, value));
      totalAt.set(seconds, (totalAt.get(seconds) ?? 0) + value);
    }
  }
  const busiest = [...totalAt].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  const first = selectors.present[0];
  if (busiest === undefined || first === undefined) return { seriesByDigit: byDigit, samplesPerSecond: 0 };
  const [rate] = await client.instant(sampleRateQuery(first.selector), busiest[0] * 1000, busiest[0] * 1000 - SAMPLE_RATE_WINDOW_SECONDS * 1000).catch((error: unknown) => {
    if (error instanceof QueryLimitError) return [];
    throw error;
  });
  // No answer: the step stands in, as each series has at least a sample per step where it is seen.
  const perSecond = rate !== undefined && finite(rate.value) && rate.value > 0 ? rate.value / SAMPLE_RATE_WINDOW_SECONDS : 1 / window.stepSeconds;
  return { seriesByDigit: byDigit, samplesPerSecond: perSecond };
}

export async function collectFromPrometheus(client: PrometheusClient, options: CollectOptions): Promise<Collection> {
  const { window, matchers } = options;
  const windowSeconds = (window.endMs - window.startMs) / 1000;
  const discoverySelector = seriesSelector(allMetricNames(), matchers);
  const names = new Set(await client.labelValues('__name__', discoverySelector, window.startMs, window.endMs));
  const found: Omit<PresentMetric, 'selector'>[] = [];
  for (const metric of PUSH_DOWN_METRICS) {
    const name = presentName(metric.reading, names);
    if (name !== undefined) found.push({ ...name, metric });
  }
  if (found.length === 0) {
    throw new InputError(
      `no dcgm-exporter GPU series (${PUSH_DOWN_METRICS.map((metric) => metricNamesOf(metric.reading)[0]?.name).join(', ')}) ` +
      `between ${new Date(window.startMs).toISOString()} and ${new Date(window.endMs).toISOString()}` +
      (matchers.length === 0 ? '' : ` matching {${matchers.join(',')}}`),
      { file: client.connection.displayUrl },
    );
  }

  // Only once there is something to read: a server without GPU series is told so first (exit 2).
  const rule = await probeRangeRule(client, window.endMs);
  const whole = shardSelectors(found, names, matchers);
  const plan = planQueries(await estimateFleet(client, whole, window), {
    windowSeconds,
    stepSeconds: window.stepSeconds,
    chunkSeconds: options.chunkSeconds ?? DEFAULT_CHUNK_SECONDS,
    signals: found.map((metric) => metric.name),
    compute: found.filter((metric) => metric.metric.basis !== undefined).map((metric) => metric.name),
  }, options.budgets ?? DEFAULT_QUERY_BUDGETS);
  const chunks = splitWindow(window, plan.chunkSeconds);
  const hours = gridOf(window, 3600);
  const timeline = gridOf(window, timelineBucketSeconds(window.startMs, window.endMs));

  const totals = new Totals();
  const splits = { count: 0 };
  const refusedQuantiles = new Set<string>();
  const device = (labels: Labels): DeviceTotals => totals.device(labels);
  const tasks: (() => Promise<void>)[] = [];
  const stepMs = window.stepSeconds * 1000;
  const bucketTask = (grid: Grid, chunk: Chunk, query: string, target: (device: DeviceTotals) => Map<number, number>) => (): Promise<void> => withinLimits(chunk, grid.bucketMs, splits, async (part) => {
    // The point at t covers [t - bucket, t - 1 ms] (queries.ts inBucket: offset 1ms): evaluated
    // at each bucket's end, it is the bucket [b, b + bucket), so a sample on an edge counts once.
    for (const series of await client.range(query, part.startMs + grid.bucketMs, part.endMs, grid.bucketMs / 1000, part.startMs)) {
      const buckets = target(device(series.labels));
      for (const [seconds, value] of series.points) if (finite(value)) buckets.set(bucketOfPoint(seconds, grid), value);
    }
  });
  const hourChunks = splitWindow({ startMs: hours.startMs, endMs: hours.startMs + hours.count * MS_PER_HOUR, stepSeconds: 3600 }, options.rangeChunkSeconds ?? DEFAULT_RANGE_CHUNK_SECONDS);
  const wholeTimeline: Chunk = { startMs: timeline.startMs, endMs: timeline.startMs + timeline.count * timeline.bucketMs };
  for (const shard of plan.shards) {
    const { present, anySelector, memoryTotal, computeSignals, memoryUsed, podSelectors, pcie } = shard.matcher === undefined
      ? whole
      : shardSelectors(found, names, [...matchers, shard.matcher]);
    for (const chunk of chunks) {
      for (const metric of present) {
        const idleBelow = metric.metric.basis === undefined ? undefined : options.idleThresholdPct / metric.scale;
        tasks.push(() => withinLimits(chunk, stepMs, splits, async (part) => {
          const query = signalChunkQuery({ selector: metric.selector, chunkSeconds: (part.endMs - part.startMs) / 1000, stepSeconds: window.stepSeconds, rule, ...(idleBelow === undefined ? {} : { idleBelow }) });
          for (const sample of await client.instant(query, part.endMs, part.startMs)) {
            if (!finite(sample.value)) continue;
            const signal = totals.signal(sample.labels, metric.metric.signal);
            switch (sample.labels[AGGREGATE_LABEL]) {
              case 'count': signal.count += sample.value; break;
              case 'sum': signal.sum += sample.value * metric.scale; break;
              case 'max': signal.max = Math.max(signal.max, sample.value * metric.scale); break;
              case 'steps': signal.steps += sample.value; break;
              case 'idle_steps': signal.idleSteps += sample.value; break;
              default: break;
            }
          }
        }));
      }
      tasks.push(() => withinLimits(chunk, stepMs, splits, async (part) => {
        const deviceQuery = deviceChunkQuery({
          anySelector, podSelectors, chunkSeconds: (part.endMs - part.startMs) / 1000, stepSeconds: window.stepSeconds, rule,
          ...(memoryTotal === undefined ? {} : { memoryTotal }), ...(pcie.length === 0 ? {} : { pcie }),
        });
        for (const sample of await client.instant(deviceQuery, part.endMs, part.startMs)) {
          if (!finite(sample.value)) continue;
          const totalsOfDevice = device(sample.labels);
          switch (sample.labels[AGGREGATE_LABEL]) {
            case 'steps': totalsOfDevice.steps += sample.value; break;
            case 'first': totalsOfDevice.firstMs = Math.min(totalsOfDevice.firstMs, sample.value * 1000); break;
            case 'last': totalsOfDevice.lastMs = Math.max(totalsOfDevice.lastMs, sample.value * 1000); break;
            case 'memory_total': totalsOfDevice.memoryTotalMiB = Math.max(totalsOfDevice.memoryTotalMiB, sample.value); break;
            case 'pod_steps': totals.pod(sample.labels).steps += sample.value; break;
            case 'pod_first': { const pod = totals.pod(sample.labels); pod.firstMs = Math.min(pod.firstMs, sample.value * 1000); break; }
            case 'pod_last': { const pod = totals.pod(sample.labels); pod.lastMs = Math.max(pod.lastMs, sample.value * 1000); break; }
            default: totals.addPcie(sample.labels, sample.labels[AGGREGATE_LABEL] ?? '', sample.value); break;
          }
        }
      }));
    }
    for (const metric of present) {
      for (const quantile of metric.metric.quantiles) {
        tasks.push(async () => {
          let answer;
          try {
            answer = await client.instant(quantileQuery(metric.selector, quantile, windowSeconds, rule), window.endMs, window.startMs);
          } catch (error) {
            // A quantile over the whole window cannot be put together from parts: the mean stands in, and says so per GPU.
            if (!(error instanceof QueryLimitError)) throw error;
            refusedQuantiles.add(`${metric.name} p${Math.round(quantile * 100)}`);
            return;
          }
          for (const sample of answer) {
            if (finite(sample.value)) totals.signal(sample.labels, metric.metric.signal).quantiles.set(quantile, sample.value * metric.scale);
          }
        });
      }
    }
    if (pcie.length > 0) {
      tasks.push(async () => {
        for (const sample of await client.instant(pcieQuantileQuery(pcie, PCIE_QUANTILE, windowSeconds, rule), window.endMs, window.startMs)) {
          if (finite(sample.value)) totals.addPcie(sample.labels, sample.labels[AGGREGATE_LABEL] ?? '', sample.value);
        }
      });
    }
    if (computeSignals.length > 0) {
      const hourly = bucketComputeQuery(computeSignals, 3600, rule);
      for (const chunk of hourChunks) tasks.push(bucketTask(hours, chunk, hourly, (totalsOf) => totalsOf.hourlyCompute));
      tasks.push(bucketTask(timeline, wholeTimeline, bucketComputeQuery(computeSignals, timeline.bucketMs / 1000, rule), (totalsOf) => totalsOf.timelineCompute));
    }
    if (memoryUsed !== undefined) {
      tasks.push(bucketTask(timeline, wholeTimeline, bucketMemoryMaxQuery(memoryUsed.selector, timeline.bucketMs / 1000, rule), (totalsOf) => totalsOf.timelineMemory));
    }
  }

  let hostCpu: PrometheusHostCpu[] = [];
  tasks.push(async () => {
    hostCpu = await fetchHostCpu(client, window, rule);
  });

  // Discovery, probe and estimate, the tasks, and the containers' CPU once the pods are known.
  options.onPlan?.(tasks.length + 5);
  // The first failure ends the audit (exit 3): the rest are cancelled rather than left to run
  // out, and no report presents the chunks that did answer as the whole window.
  await Promise.all(tasks.map((task) => task().catch((error: unknown) => {
    client.abort();
    throw error;
  })));

  const warnings: string[] = [];
  const devices: CollectedDevice[] = [];
  for (const device of totals.all()) {
    const collected = toCollectedDevice(device, options, hours, timeline, warnings);
    if (collected === undefined) warnings.push(`series without a GPU label (UUID, gpu or pci_bus_id) left out: ${JSON.stringify(device.labels)}`);
    else if (collected.samples > 0) devices.push(collected);
  }
  const podsSeen = new Map(devices.flatMap((device) => device.pods ?? []).map((pod) => [`${pod.namespace}/${pod.pod}`, { namespace: pod.namespace, pod: pod.pod }]));
  const containerCpu = await fetchContainerCpu(client, window, rule, [...podsSeen.values()]);
  warnings.unshift(...partialWarnings(client.partialAnswers, window));
  if (refusedQuantiles.size > 0) warnings.push(`the engine refused the whole-window quantiles ${[...refusedQuantiles].sort().join(', ')} for their size: the means stand in for them (raise its --query.max-samples, or narrow the window)`);
  if (client.skippedSeries.count > 0) warnings.push(`${client.skippedSeries.count} series left out of the answers for a label cap (the first: ${client.skippedSeries.first})`);
  if (splits.count > 0) warnings.push(`the engine refused ${splits.count} queries for their size: each was asked again in halves of its time range until it answered (figures are exact; raise the engine's limits, or narrow the window, to ask less)`);
  const metrics = [...whole.present.map((metric) => metric.name), ...whole.pcie.flatMap((direction) => direction.sources.map((source) => source.name))];
  return { devices, metrics, warnings, rangeRule: rule, cpu: { hosts: hostCpu, containers: containerCpu } };
}

const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * One warning per distinct server warning, naming the parts of the window whose answers carried
 * it (overlapping and adjacent spans merged, clipped to the window): the figures of those parts
 * may lack data, and the report must not present them as complete.
 */
export function partialWarnings(answers: readonly PartialAnswer[], window: Pick<AuditWindow, 'startMs' | 'endMs'>): string[] {
  const spans = new Map<string, [number, number][]>();
  for (const answer of answers) {
    const fromMs = Math.max(window.startMs, answer.fromMs);
    const toMs = Math.min(window.endMs, answer.toMs);
    const list = spans.get(answer.warning) ?? [];
    list.push([fromMs, Math.max(fromMs, toMs)]);
    spans.set(answer.warning, list);
  }
  return [...spans].map(([warning, list]) => {
    list.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [fromMs, toMs] of list) {
      const last = merged.at(-1);
      if (last !== undefined && fromMs <= last[1]) last[1] = Math.max(last[1], toMs);
      else merged.push([fromMs, toMs]);
    }
    const whole = merged.length === 1 && merged[0]![0] <= window.startMs && merged[0]![1] >= window.endMs;
    const parts = merged.map(([fromMs, toMs]) => `${isoSeconds(fromMs)} to ${isoSeconds(toMs)}`).join(', ');
    return `Prometheus: ${warning} (partial answers for ${parts}${whole ? ', the whole window' : ''}: figures may lack data from that part of the window)`;
  });
}

/**
 * Runs `ask` over `chunk`; where the engine refuses it for its size (QueryLimitError), over its
 * two halves instead, each a whole number of `unitMs` (the step, or the bucket), down to one
 * unit. Sums, counts, maxima, steps and first/last combine exactly across the halves, as across
 * chunks (./window.ts splitWindow); a unit the engine still refuses ends the audit.
 */
export async function withinLimits(chunk: Chunk, unitMs: number, splits: { count: number }, ask: (part: Chunk) => Promise<void>): Promise<void> {
  try {
    await ask(chunk);
  } catch (error) {
    const units = Math.floor((chunk.endMs - chunk.startMs) / unitMs);
    if (!(error instanceof QueryLimitError) || units < 2) throw error;
    splits.count += 1;
    const middle = chunk.startMs + Math.floor(units / 2) * unitMs;
    await withinLimits({ startMs: chunk.startMs, endMs: middle }, unitMs, splits, ask);
    await withinLimits({ startMs: middle, endMs: chunk.endMs }, unitMs, splits, ask);
  }
}

/** The start of the bucket a range point stands for: the one whose end lies nearest the point's time (an engine may move points within a step). */
export function bucketOfPoint(seconds: number, grid: Pick<Grid, 'startMs' | 'bucketMs'>): number {
  const ends = Math.round((Math.round(seconds * 1000) - grid.startMs) / grid.bucketMs);
  return grid.startMs + (ends - 1) * grid.bucketMs;
}

/** The values on the grid, null where absent; undefined when there are none. */
function gridValues(buckets: ReadonlyMap<number, number>, grid: Grid): (number | null)[] | undefined {
  if (buckets.size === 0) return undefined;
  return Array.from({ length: grid.count }, (_, bucket) => buckets.get(grid.startMs + bucket * grid.bucketMs) ?? null);
}

/** The timeline from the first to the last bucket with data, as the streaming analysis spans a device's own samples. */
function timelineOf(device: DeviceTotals, grid: Grid): CollectedDevice['timeline'] {
  const compute = gridValues(device.timelineCompute, grid) ?? new Array<null>(grid.count).fill(null);
  const memory = gridValues(device.timelineMemory, grid) ?? new Array<null>(grid.count).fill(null);
  const observed = (bucket: number): boolean => compute[bucket] !== null || memory[bucket] !== null;
  let first = 0;
  while (first < grid.count && !observed(first)) first += 1;
  let last = grid.count - 1;
  while (last >= first && !observed(last)) last -= 1;
  if (first > last) return undefined;
  return {
    startMs: grid.startMs + first * grid.bucketMs,
    bucketSeconds: grid.bucketMs / 1000,
    computeMeanPct: compute.slice(first, last + 1),
    memoryUsedMaxMiB: memory.slice(first, last + 1),
  };
}

function toCollectedDevice(device: DeviceTotals, options: CollectOptions, hours: Grid, timelineGrid: Grid, warnings: string[]): CollectedDevice | undefined {
  const read = readSeriesLabels(new Map(Object.entries(device.labels)), options.defaultHost);
  if (read === undefined) return undefined;
  const stepSeconds = options.window.stepSeconds;
  const collected: CollectedDevice = {
    ref: read.device.ref,
    percent: {},
    idle: {},
    observedSeconds: device.steps * stepSeconds,
    samples: 0,
  };
  if (read.device.model !== undefined) collected.model = read.device.model;
  if (read.device.migProfile !== undefined) collected.migProfile = read.device.migProfile;
  if (finite(device.memoryTotalMiB)) collected.memoryTotalMiB = device.memoryTotalMiB;
  if (finite(device.firstMs)) collected.firstSeenMs = device.firstMs;
  if (finite(device.lastMs)) collected.lastSeenMs = device.lastMs;
  for (const metric of PUSH_DOWN_METRICS) {
    const totals = device.signals.get(metric.signal);
    if (totals === undefined || totals.count <= 0) continue;
    collected.samples = Math.max(collected.samples, totals.count);
    const mean = totals.sum / totals.count;
    // Every device with samples in a chunk has them in the whole window; a quantile can only be
    // missing from a partial answer, which the server's warning names. Say which figure stands in.
    const quantile = (q: number): number => {
      const value = totals.quantiles.get(q);
      if (value !== undefined) return value;
      const name = read.device.ref.uuid ?? read.device.ref.pciBusId ?? `gpu ${read.device.ref.index ?? '?'}`;
      warnings.push(`${name} on ${read.device.ref.host}: no ${metric.signal} quantile ${q} in the answer; the mean stands in for it`);
      return mean;
    };
    if (metric.signal === 'memoryUsedMiB') collected.memoryUsedMiB = { mean, p95: quantile(0.95), max: totals.max };
    else collected.percent[metric.signal] = { mean, p50: quantile(0.5), p95: quantile(0.95), max: totals.max };
    if (metric.basis !== undefined) collected.idle[metric.basis] = { observedSeconds: totals.steps * stepSeconds, idleSeconds: totals.idleSteps * stepSeconds };
  }
  // Observed time is never less than a signal's (an answer lost or empty in one query but not
  // another): otherwise a GPU would show idle hours beyond its observed hours.
  const signalSteps = Math.max(0, ...[...device.signals.values()].map((totals) => totals.steps));
  if (signalSteps > device.steps) {
    const name = read.device.ref.uuid ?? read.device.ref.pciBusId ?? `gpu ${read.device.ref.index ?? '?'}`;
    warnings.push(`${name} on ${read.device.ref.host}: the presence query answered ${device.steps} steps, a signal ${signalSteps}: an answer lacked data; observed time is the signal's`);
    collected.observedSeconds = signalSteps * stepSeconds;
  }
  for (const direction of PUSH_DOWN_PCIE) {
    const totals = device.pcie.get(direction.tag);
    if (totals === undefined || totals.count <= 0) continue;
    const mean = totals.sum / totals.count;
    if (totals.quantile === undefined) {
      const name = read.device.ref.uuid ?? read.device.ref.pciBusId ?? `gpu ${read.device.ref.index ?? '?'}`;
      warnings.push(`${name} on ${read.device.ref.host}: no ${direction.report} quantile ${PCIE_QUANTILE} in the answer; the mean stands in for it`);
    }
    collected[direction.report] = { mean, p95: totals.quantile ?? mean, max: totals.max };
  }
  const hourly = gridValues(device.hourlyCompute, hours);
  if (hourly !== undefined) collected.hourlyComputePct = { startMs: hours.startMs, values: hourly };
  const timeline = timelineOf(device, timelineGrid);
  if (timeline !== undefined) collected.timeline = timeline;
  const pods = podsOf(device, options.defaultHost, warnings);
  if (pods.length > 0) collected.pods = pods;
  return collected;
}

/**
 * The device's containers, each pod label set read as the file sources read it (exported_pod
 * first; `pod` ignored where Prometheus Operator target labels make it the exporter's own pod),
 * merged where two spellings name the same container.
 */
function podsOf(device: DeviceTotals, defaultHost: string, warnings: string[]): CollectedPod[] {
  const byContainer = new Map<string, CollectedPod>();
  for (const totals of device.pods.values()) {
    if (totals.steps <= 0) continue;
    const read = readSeriesLabels(new Map(Object.entries({ ...device.labels, ...totals.labels })), defaultHost);
    if (read?.targetPodLabelsIgnored === true && !warnings.includes(TARGET_POD_LABELS_WARNING)) warnings.push(TARGET_POD_LABELS_WARNING);
    if (read?.pod === undefined) continue;
    const key = [read.pod.namespace, read.pod.pod, read.pod.container ?? ''].join('\u0000');
    const known = byContainer.get(key);
    if (known === undefined) {
      byContainer.set(key, { ...read.pod, steps: totals.steps, firstSeenMs: totals.firstMs, lastSeenMs: totals.lastMs });
    } else {
      known.steps = Math.max(known.steps, totals.steps);
      known.firstSeenMs = Math.min(known.firstSeenMs, totals.firstMs);
      known.lastSeenMs = Math.max(known.lastSeenMs, totals.lastMs);
    }
  }
  return [...byContainer.values()].sort((a, b) =>
    a.namespace.localeCompare(b.namespace) || a.pod.localeCompare(b.pod) || (a.container ?? '').localeCompare(b.container ?? ''));
}

/**
 * The PromQL gpu-audit sends: pure builders, so tests can read the exact queries.
 *
 * Every aggregation is pushed down to the server and grouped `by` the device labels, so an
 * answer has one value per device whatever the number of samples. Several aggregates of one
 * metric travel in one request: each is tagged with a `gpu_audit` label by label_replace and
 * they are joined with `or` (their label sets differ by that tag, so none is dropped).
 *
 * Weighting (DESIGN.md section 5 weights a sample by the time until the next one):
 *  - `count_over_time`, `sum_over_time`, `max_over_time`, `quantile_over_time` over a raw range
 *    weight every sample equally. With a regular scrape interval that is the duration weighting;
 *    with an irregular one it over-weights densely sampled stretches.
 *  - Time figures (observed and idle time) sample the series on the `--step` grid with a
 *    subquery `[range:step]`: each step sees the latest sample within Prometheus' lookback
 *    (5 minutes by default), so `steps x step` is the time the series was present and `steps
 *    below the threshold x step` the idle time, at the resolution of the step. Gaps longer than
 *    the lookback are not counted (DESIGN caps gaps at twice the median interval instead), and
 *    a series' last sample stands for up to the lookback (DESIGN: the median interval).
 */
import { idleInPromQl } from '../../../model/index.js';
import { DEVICE_LABELS, POD_LABELS } from './metrics.js';
import { promDuration, promSpan, type RangeRule } from './window.js';
import { SHARD_DIGIT_LABEL, SHARD_LABEL } from './query-plan.js';

/** The label that tags each aggregate inside a combined answer. */
export const AGGREGATE_LABEL = 'gpu_audit';

const BY_DEVICE = `by (${DEVICE_LABELS.join(', ')})`;
/** The device labels and every spelling of dcgm-exporter's pod mapping (../dcgm/labels.ts reads them). */
const BY_DEVICE_AND_POD = `by (${[...DEVICE_LABELS, ...POD_LABELS].join(', ')})`;

/**
 * Asks the server which range rule it follows (window.ts RangeRule), without reading any data:
 * a subquery of 2 s at a 1 s resolution evaluated at a whole second T holds the steps T - 2,
 * T - 1 and T where the range is closed (Prometheus 2.x), only T - 1 and T where it is
 * left-open (3.x). Range selectors and subqueries changed together in 3.0.
 */
export const RANGE_RULE_PROBE = 'count_over_time(vector(1)[2s:1s])';

/** The rule a probe answer shows; undefined for an answer that is neither (a server gpu-audit cannot read). */
export function rangeRuleOf(steps: number): RangeRule | undefined {
  if (steps === 3) return 'closed';
  if (steps === 2) return 'left-open';
  return undefined;
}
/**
 * The query planner's first look at the fleet (./query-plan.ts): series per metric name and
 * first hex digit of the UUID, as a range query of a few points over the window. An instant
 * selector reads one sample per series and point, so this stays cheap at any fleet size.
 */
export function seriesEstimateQuery(anySelector: string): string {
  return `count by (__name__, ${SHARD_DIGIT_LABEL}) (label_replace(${anySelector}, "${SHARD_DIGIT_LABEL}", "$1", "${SHARD_LABEL}", "GPU-([0-9a-fA-F]).*"))`;
}

/** Samples per series in the 10 minutes before the evaluation time, averaged over the series: the scrape rate. */
export const SAMPLE_RATE_WINDOW_SECONDS = 600;
export function sampleRateQuery(selector: string): string {
  return `avg(count_over_time(${selector}[${promDuration(SAMPLE_RATE_WINDOW_SECONDS)}]))`;
}

/**
 * How far back a bucket without a sample looks for one to hold: twice Prometheus' default
 * lookback, so that scrapes up to 10 minutes apart (the demo's are 300-301 s, just over 5
 * minutes) leave no hole in a timeline of short buckets.
 */
const HOLD_LOOKBACK = '10m';

/** A selector, optionally scaled (profiling ratios to percent) before aggregation. */
export interface ScaledSelector {
  selector: string;
  scale: number;
}

/** `expression` with its series marked as the aggregate `name` (one query answers several). */
export function tagged(name: string, expression: string): string {
  return `label_replace(${expression}, "${AGGREGATE_LABEL}", "${name}", "", "")`;
}

function scaled(expression: string, scale: number): string {
  return scale === 1 ? expression : `(${expression}) * ${scale}`;
}

export interface SignalChunkQuery {
  selector: string;
  chunkSeconds: number;
  stepSeconds: number;
  rule: RangeRule;
  /** Set for signals that tell idleness: the threshold in the metric's own unit. */
  idleBelow?: number;
}

/** Aggregates of one signal over one chunk, evaluated at the chunk's end: count, sum, max, steps (and idle_steps). */
export function signalChunkQuery(query: SignalChunkQuery): string {
  const range = promSpan(query.chunkSeconds, query.rule);
  const subquery = `${range}:${promDuration(query.stepSeconds)}`;
  const parts = [
    tagged('count', `sum ${BY_DEVICE} (count_over_time(${query.selector}[${range}]))`),
    tagged('sum', `sum ${BY_DEVICE} (sum_over_time(${query.selector}[${range}]))`),
    tagged('max', `max ${BY_DEVICE} (max_over_time(${query.selector}[${range}]))`),
    tagged('steps', `count_over_time((max ${BY_DEVICE} (${query.selector}))[${subquery}])`),
  ];
  if (query.idleBelow !== undefined) {
    parts.push(tagged('idle_steps', `sum_over_time((${idleInPromQl(`max ${BY_DEVICE} (${query.selector})`, query.idleBelow)})[${subquery}])`));
  }
  return parts.join('\nor ');
}

/** One PCIe direction (metrics.ts PUSH_DOWN_PCIE): its tag and its series, best first, each with its units per MiB/s. */
export interface PcieSelectors {
  tag: string;
  sources: readonly { selector: string; perMiBps: number }[];
}

/**
 * The per-device aggregate of the first source a device has, in MiB/s (`scale`) or as counted:
 * `or` keeps a device's first answer, so a GPU with the profiling counters is read from them
 * and one without from the older throughput field, whatever the other GPUs export.
 */
function preferred(pcie: PcieSelectors, aggregate: (selector: string) => string, scale: boolean): string {
  return pcie.sources.map(({ selector, perMiBps }) => (scale ? `(${aggregate(selector)}) / ${perMiBps}` : aggregate(selector))).join(' or ');
}

/** Count, sum (MiB/s) and max (MiB/s) of each PCIe direction over a chunk, tagged `<tag>_count` and so on. */
function pcieChunkParts(pcie: readonly PcieSelectors[], range: string): string[] {
  return pcie.flatMap((direction) => [
    tagged(`${direction.tag}_count`, preferred(direction, (selector) => `sum ${BY_DEVICE} (count_over_time(${selector}[${range}]))`, false)),
    tagged(`${direction.tag}_sum`, preferred(direction, (selector) => `sum ${BY_DEVICE} (sum_over_time(${selector}[${range}]))`, true)),
    tagged(`${direction.tag}_max`, preferred(direction, (selector) => `max ${BY_DEVICE} (max_over_time(${selector}[${range}]))`, true)),
  ]);
}

/**
 * One quantile of every PCIe direction over the whole window, in MiB/s, tagged `<tag>_quantile`:
 * one request for both directions (as quantileQuery, a device's split series give their largest).
 */
export function pcieQuantileQuery(pcie: readonly PcieSelectors[], quantile: number, windowSeconds: number, rule: RangeRule): string {
  const range = promSpan(windowSeconds, rule);
  return pcie
    .map((direction) => tagged(`${direction.tag}_quantile`, preferred(direction, (selector) => `max ${BY_DEVICE} (quantile_over_time(${quantile}, ${selector}[${range}]))`, true)))
    .join('\nor ');
}

export interface DeviceChunkQuery {
  /** Selector of every GPU metric read (`{__name__=~"…"}`). */
  anySelector: string;
  /** Expression of the board's memory in MiB (FB_TOTAL, or used + free [+ reserved]); absent when unknown. */
  memoryTotal?: string;
  /**
   * Selectors of the GPU series that carry a pod mapping, one per spelling of the pod label
   * (`{__name__=~"…",pod!=""}`, `…exported_pod!=""}`, …); absent: no pod aggregates.
   */
  podSelectors?: readonly string[];
  /** PCIe directions whose count, sum and max travel in this query too (no request of their own); absent: none. */
  pcie?: readonly PcieSelectors[];
  chunkSeconds: number;
  stepSeconds: number;
  rule: RangeRule;
}

/**
 * Per device over one chunk: steps with any metric present, the first and last of those steps
 * (as Unix seconds: `group` is 1 where present, times time(), the step's time), and the largest
 * memory total (and, where asked, each PCIe direction's count, sum and max, which need no
 * request of their own). First and last are at step resolution: timestamp() of the samples would be
 * exact, but Prometheus 2.x re-reads the series at every step of a subquery over it (a week of
 * 100 GPUs took over its 2-minute query timeout).
 */
export function deviceChunkQuery(query: DeviceChunkQuery): string {
  const subquery = `${promSpan(query.chunkSeconds, query.rule)}:${promDuration(query.stepSeconds)}`;
  const parts = [
    tagged('steps', `count_over_time((group ${BY_DEVICE} (${query.anySelector}))[${subquery}])`),
    tagged('first', `min_over_time((group ${BY_DEVICE} (${query.anySelector}) * time())[${subquery}])`),
    tagged('last', `max_over_time((group ${BY_DEVICE} (${query.anySelector}) * time())[${subquery}])`),
  ];
  if (query.memoryTotal !== undefined) {
    parts.push(tagged('memory_total', `max_over_time((max ${BY_DEVICE} (${query.memoryTotal}))[${subquery}])`));
  }
  if (query.podSelectors !== undefined && query.podSelectors.length > 0) {
    // Per device and container (pod labels kept): the steps it held the device and the first
    // and last of them, as for the device itself. Only series with a pod mapping take part, so
    // a fleet without Kubernetes mode adds nothing to the answer.
    const withPod = `group ${BY_DEVICE_AND_POD} (${query.podSelectors.join(' or ')})`;
    parts.push(
      tagged('pod_steps', `count_over_time((${withPod})[${subquery}])`),
      tagged('pod_first', `min_over_time((${withPod} * time())[${subquery}])`),
      tagged('pod_last', `max_over_time((${withPod} * time())[${subquery}])`),
    );
  }
  if (query.pcie !== undefined) parts.push(...pcieChunkParts(query.pcie, promSpan(query.chunkSeconds, query.rule)));
  return parts.join('\nor ');
}

/**
 * One quantile of a signal over the whole window. Quantiles of chunks cannot be combined, so
 * this runs over the whole window; Prometheus evaluates a range function series by series, so
 * its sample limit applies to one series' samples (30 days at 30 s is 86,400), not the fleet's.
 * A device whose series were split (a pod change relabels them) gets the largest of its
 * series' quantiles: an upper bound, the safe side for sizing.
 */
export function quantileQuery(selector: string, quantile: number, windowSeconds: number, rule: RangeRule): string {
  return `max ${BY_DEVICE} (quantile_over_time(${quantile}, ${selector}[${promSpan(windowSeconds, rule)}]))`;
}

/**
 * Mean of the best compute signal of each device per bucket of `bucketSeconds` (1 h for the
 * hour-of-week profile, the timeline's width for the timeline), for a range query with that
 * step evaluated at each bucket's end with `offset 1ms`: the range (promSpan, per the server's
 * rule) then covers [bucket start, bucket end). `or` keeps, per device, the first signal of the
 * ladder that has data in the bucket. Values are rounded to 0.01 % to keep the answer small.
 *
 * A bucket shorter than the scrape interval may hold no sample: it then takes the latest
 * sample of the last 10 minutes, as the streaming analysis lets a sample stand for the time
 * until the next one.
 */
export function bucketComputeQuery(signals: readonly ScaledSelector[], bucketSeconds: number, rule: RangeRule): string {
  return signals
    .map(({ selector, scale }) => `round(avg ${BY_DEVICE} (${scaled(inBucket('avg_over_time', selector, bucketSeconds, rule), scale)}), 0.01)`)
    .join('\nor ');
}

/** Largest memory used of each device per bucket (MiB), as bucketComputeQuery. */
export function bucketMemoryMaxQuery(selector: string, bucketSeconds: number, rule: RangeRule): string {
  return `max ${BY_DEVICE} (${inBucket('max_over_time', selector, bucketSeconds, rule)})`;
}

/**
 * `fn` over the bucket's samples, else the sample held into the bucket (both without the metric
 * name, so `or` pairs them). Evaluated at the bucket's end, 1 ms back (`offset 1ms`): the points
 * then fall on whole steps, where VictoriaMetrics puts them whatever was asked, and every engine
 * reads the same [bucket start, bucket end).
 */
function inBucket(fn: string, selector: string, bucketSeconds: number, rule: RangeRule): string {
  return `${fn}(${selector}[${promSpan(bucketSeconds, rule)}] offset 1ms) or last_over_time(${selector}[${HOLD_LOOKBACK}] offset 1ms)`;
}

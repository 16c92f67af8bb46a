/**
 * Answers of the Prometheus HTTP API (`/api/v1/query` vector, `/api/v1/query_range`
 * matrix), saved to a file, for dcgm-exporter series. VictoriaMetrics and Thanos answer
 * in the same shape.
 *
 *   {"status":"success","data":{"resultType":"vector","result":[
 *     {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","UUID":"GPU-...","gpu":"0",...},
 *      "value":[1775721747.082,"32"]}]}}
 *
 * Values are strings, times are Unix seconds. The series' labels are the exporter's,
 * read as in a scrape (dcgm/labels.ts), plus the target labels Prometheus adds. Values of
 * one device at one timestamp become one GpuSample; samples go out device by device.
 *
 * The answer is one JSON document, parsed whole: Prometheus' own answers are bounded by
 * its query limits, and a document above MAX_DOCUMENT_CHARS is refused with advice
 * rather than risking the process' memory. Parsed objects cost about three times the
 * text: a 256 MiB range answer (14.6 million points) was read within a 2 GB heap.
 */
import { InputError } from '../model/errors.js';
import type { ObservationSink } from '../model/observations.js';
import type { ParseResult, SourceContext, SourceParser } from './types.js';
import { DCGM_METRIC_PREFIX, fieldByMetricName } from './dcgm/fields.js';
import type { DcgmField } from './dcgm/fields.js';
import { readSeriesLabels, TARGET_POD_LABELS_WARNING } from './dcgm/labels.js';
import type { PodLabels, SeriesDevice } from './dcgm/labels.js';
import { DcgmDevices } from './dcgm/devices.js';
import { emptyReadings, mergeDeviceLabels, recordSeries, sendReadings } from './dcgm/scrape.js';
import type { DeviceReadings } from './dcgm/scrape.js';
import { readDcgmValue } from './dcgm/values.js';
import { WarningLimiter } from './text/warnings.js';
import type { Warn } from './text/warnings.js';

/** 256 MiB of text (for the ASCII of JSON, characters are bytes). */
export const MAX_DOCUMENT_CHARS = 256 * 1024 * 1024;

const OPENS_OBJECT = /^\s*\{/;
const STATUS = /"status"\s*:\s*"(?:success|error)"/;
/** `resultType` on a success, `errorType` on an error answer. */
const ANSWER_KIND = /"(?:resultType|errorType)"\s*:\s*"/;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readDocument(chunks: AsyncIterable<string>, file: string): Promise<unknown> {
  const parts: string[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    length += chunk.length;
    if (length > MAX_DOCUMENT_CHARS) {
      throw new InputError(
        `Prometheus answer larger than ${MAX_DOCUMENT_CHARS / 1024 / 1024} MiB: query a shorter range or a coarser step, or use --prometheus to query the server directly`,
        { file },
      );
    }
    parts.push(chunk);
  }
  try {
    return JSON.parse(parts.join('')) as unknown;
  } catch (error) {
    throw new InputError(`not valid JSON: ${(error as Error).message}`, { file, cause: error });
  }
}

/** The answer's `data.result`, after the checks that make a file unreadable as a whole. */
function resultOf(document: unknown, context: SourceContext, sink: ObservationSink): { resultType: 'vector' | 'matrix'; result: unknown[] } {
  const file = context.ref;
  if (!isObject(document) || typeof document.status !== 'string') {
    throw new InputError('not a Prometheus API answer: no "status"', { file });
  }
  if (document.status === 'error') {
    const kind = typeof document.errorType === 'string' ? ` (${document.errorType})` : '';
    const message = typeof document.error === 'string' ? document.error : 'no message';
    throw new InputError(`Prometheus answered with an error${kind}: ${message}`, { file });
  }
  if (document.status !== 'success') {
    throw new InputError(`Prometheus answer with status "${document.status}", expected "success"`, { file });
  }
  if (Array.isArray(document.warnings)) {
    for (const warning of document.warnings) sink.warn({ location: 'warnings', message: `Prometheus warned: ${String(warning)}` });
  }
  if (document.isPartial === true) {
    sink.warn({ location: 'isPartial', message: 'the answer is partial (isPartial: true): some storage nodes did not answer, so series or samples may be missing' });
  }
  const data = document.data;
  if (!isObject(data) || typeof data.resultType !== 'string') {
    throw new InputError('not a Prometheus query answer: no data.resultType', { file, location: 'data' });
  }
  const { resultType, result } = data;
  if (resultType !== 'vector' && resultType !== 'matrix') {
    throw new InputError(`a ${resultType} answer has no per-GPU series: expected a vector or matrix (an instant or range query of DCGM metrics)`, { file, location: 'data.resultType' });
  }
  if (!Array.isArray(result)) throw new InputError('data.result is not a list', { file, location: 'data.result' });
  return { resultType, result };
}

/** `[<unix seconds>, "<value>"]` as epoch ms and value text, or undefined when malformed. */
function readPoint(point: unknown): { time: number; value: string } | undefined {
  if (!Array.isArray(point) || point.length !== 2) return undefined;
  const [seconds, value] = point as [unknown, unknown];
  const time = typeof seconds === 'number' ? seconds : typeof seconds === 'string' ? Number(seconds) : Number.NaN;
  if (!Number.isFinite(time) || typeof value !== 'string') return undefined;
  return { time: Math.round(time * 1000), value };
}

function labelsOf(metric: JsonObject): Map<string, string> {
  const labels = new Map<string, string>();
  for (const [name, value] of Object.entries(metric)) if (typeof value === 'string') labels.set(name, value);
  return labels;
}

interface DcgmSeries {
  name: string;
  location: string;
  field: DcgmField | undefined;
  pod: PodLabels | undefined;
  points: unknown[];
}

/** The series of one device; their labels merged, their points still as parsed. */
interface DeviceSeries {
  device: SeriesDevice;
  series: DcgmSeries[];
}

/**
 * Reads an answer's series grouped by device, then sends each device's values one
 * timestamp at a time. Grouping by device rather than by timestamp keeps the working set
 * to one device's time line: a range answer holds thousands of timestamps.
 */
class AnswerReader {
  private readonly byDevice = new Map<string, DeviceSeries>();
  points = 0;
  dcgmSeries = 0;
  unnamedSeries = 0;
  otherSeries = 0;
  targetPodLabelsIgnored = false;

  constructor(
    private readonly resultType: 'vector' | 'matrix',
    private readonly context: SourceContext,
    private readonly warn: Warn,
  ) {}

  read(item: unknown, location: string): void {
    if (!isObject(item) || !isObject(item.metric)) {
      this.warn(location, 'not a series (no "metric" object); skipped');
      return;
    }
    const labels = labelsOf(item.metric);
    const name = labels.get('__name__');
    if (name === undefined) {
      this.unnamedSeries += 1;
      return;
    }
    if (!name.startsWith(DCGM_METRIC_PREFIX)) {
      this.otherSeries += 1;
      return;
    }
    this.dcgmSeries += 1;
    const read = readSeriesLabels(labels, this.context.host);
    if (read === undefined) return;
    if (read.targetPodLabelsIgnored) this.targetPodLabelsIgnored = true;

    const points = this.resultType === 'vector' ? [item.value] : item.values;
    if (!Array.isArray(points)) {
      this.warn(location, `${name} has no ${this.resultType === 'vector' ? '"value"' : '"values"'} (a native histogram?); skipped`);
      return;
    }
    let group = this.byDevice.get(read.device.key);
    if (group === undefined) {
      group = { device: { ...read.device }, series: [] };
      this.byDevice.set(read.device.key, group);
    } else {
      mergeDeviceLabels(group.device, read.device);
    }
    group.series.push({ name, location, field: fieldByMetricName(name), pod: read.pod, points });
  }

  send(devices: DcgmDevices, sink: ObservationSink): void {
    for (const group of this.byDevice.values()) {
      const byTime = new Map<number, DeviceReadings>();
      for (const series of group.series) this.readPoints(series, group.device, byTime);
      for (const time of [...byTime.keys()].sort((a, b) => a - b)) sendReadings(byTime.get(time)!, time, devices, sink);
    }
    this.byDevice.clear();
  }

  private readPoints(series: DcgmSeries, device: SeriesDevice, byTime: Map<number, DeviceReadings>): void {
    const { name, location, field, pod } = series;
    for (const raw of series.points) {
      const point = readPoint(raw);
      if (point === undefined) {
        this.warn(location, `${name}: ${JSON.stringify(raw)} is not a [time, "value"] pair; skipped`);
        continue;
      }
      this.points += 1;
      let value = field === undefined ? undefined : readDcgmValue(point.value, field);
      if (Number.isNaN(value)) {
        this.warn(location, `${name} value "${point.value}" is not a reading of this field; left out`);
        value = undefined;
      }
      let entry = byTime.get(point.time);
      if (entry === undefined) {
        entry = emptyReadings(device);
        byTime.set(point.time, entry);
      }
      recordSeries(entry, pod, field, value);
    }
  }
}

export const prometheusJson: SourceParser = {
  format: 'prometheus-json',
  description: 'Prometheus HTTP API answer (/api/v1/query or query_range JSON) of DCGM metrics',
  detect(head) {
    return OPENS_OBJECT.test(head) && STATUS.test(head) && ANSWER_KIND.test(head);
  },
  async parse(chunks, context, sink): Promise<ParseResult> {
    const document = await readDocument(chunks, context.ref);
    const { resultType, result } = resultOf(document, context, sink);
    const warnings = new WarningLimiter(sink);
    const reader = new AnswerReader(resultType, context, warnings.warn);
    result.forEach((item, position) => reader.read(item, `data.result[${position}]`));

    if (reader.dcgmSeries === 0 && result.length > 0) {
      const why = reader.otherSeries > 0
        ? `none of its ${result.length} series is a DCGM_FI_ metric`
        : `none of its ${result.length} series has a __name__ label (a function or aggregation in the query dropped it), so none can be read as a DCGM field`;
      throw new InputError(`no DCGM series in this Prometheus answer: ${why}`, { file: context.ref, location: 'data.result' });
    }
    if (result.length === 0) {
      warnings.warn('data.result', 'the answer holds no series: the query matched nothing in its time range');
    }
    if (reader.unnamedSeries > 0) {
      warnings.warn('data.result', `${reader.unnamedSeries} series without a __name__ label skipped: a function or aggregation in the query dropped the metric name, so their field is unknown`);
    }
    if (reader.targetPodLabelsIgnored) warnings.warn('data.result', TARGET_POD_LABELS_WARNING);

    reader.send(new DcgmDevices(sink), sink);
    warnings.finish('data.result');
    return { records: reader.points };
  },
};

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
 * The answer is one JSON document, read a series at a time (json/element-splitter.ts): each
 * element of data.result is parsed on its own as it ends, and its points are kept as two
 * numbers each (time, value), not as the parsed arrays and strings, which took about ten
 * times the text (a 91 MB answer peaked near 1 GB). Values are grouped by device before they
 * are sent, so what is kept still grows with points, at 16 bytes each: a document above
 * MAX_DOCUMENT_CHARS is refused with advice.
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
import { JsonElementSplitter } from './json/element-splitter.js';
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

/**
 * Reads the document, handing each element of data.result to `reader` as it ends; returns
 * the rest of the document, parsed (data.result holds a 0 for each element).
 */
async function readDocument(chunks: AsyncIterable<string>, file: string, reader: AnswerReader): Promise<unknown> {
  const splitter = new JsonElementSplitter(['data', 'result'], {
    onArrayStart: () => reader.restart(),
    onElement: (text, index) => reader.element(text, index, splitter.stringAt('data.resultType')),
  });
  let length = 0;
  try {
    for await (const chunk of chunks) {
      length += chunk.length;
      if (length > MAX_DOCUMENT_CHARS) {
        throw new InputError(
          `Prometheus answer larger than ${MAX_DOCUMENT_CHARS / 1024 / 1024} MiB: query a shorter range or a coarser step, or use --prometheus to query the server directly`,
          { file },
        );
      }
      splitter.write(chunk);
    }
    return JSON.parse(splitter.end()) as unknown;
  } catch (error) {
    if (error instanceof InputError) throw error;
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

/** One series' points as numbers: epoch ms, and the value read (NaN: none, see `odd`). */
interface DcgmSeries {
  name: string;
  location: string;
  field: DcgmField | undefined;
  pod: PodLabels | undefined;
  times: Float64Array;
  values: Float64Array;
  /** The points that are not a time and a reading, by position: warned about when sent. */
  odd: Map<number, OddPoint> | undefined;
}

/** A point that is not `[time, "value"]` (its JSON), or whose value is not a reading of the field (its text). */
type OddPoint = { malformed: string } | { notReading: string };

/** The series of one device; their labels merged. */
interface DeviceSeries {
  device: SeriesDevice;
  series: DcgmSeries[];
}

/**
 * Reads an answer's series grouped by device, then sends each device's values one
 * timestamp at a time. Grouping by device rather than by timestamp keeps the working set
 * to one device's time line: a range answer holds thousands of timestamps.
 *
 * The series arrive while the document is read, before its envelope (status, warnings) is
 * known, so what reading them would say is kept in order and said after the envelope's
 * checks (`readWarnings`): the warnings come out as they did when the document was parsed
 * whole. An answer whose resultType comes after its result (keys sorted, as `jq -S` writes
 * them) is read at the end, from the parsed elements kept meanwhile.
 */
class AnswerReader {
  private readonly byDevice = new Map<string, DeviceSeries>();
  /** What reading the series said, in their order. */
  private deferred: [location: string, message: string][] = [];
  /** Elements met before the answer said its resultType, parsed. */
  private waiting: [item: unknown, location: string][] = [];
  /** The times of the series read last, which the next one shares when they are the same. */
  private lastTimes: Float64Array | undefined;
  points = 0;
  dcgmSeries = 0;
  unnamedSeries = 0;
  otherSeries = 0;
  targetPodLabelsIgnored = false;

  constructor(private readonly context: SourceContext) {}

  /** data.result opens (again, where the key is repeated: the last one is the answer's). */
  restart(): void {
    this.byDevice.clear();
    this.deferred = [];
    this.waiting = [];
    this.lastTimes = undefined;
    this.dcgmSeries = 0;
    this.unnamedSeries = 0;
    this.otherSeries = 0;
    this.targetPodLabelsIgnored = false;
  }

  /** One element of data.result, as text; `resultType` as read so far. */
  element(text: string, index: number, resultType: string | undefined): void {
    const item = JSON.parse(text) as unknown;
    const location = `data.result[${index}]`;
    if (resultType === undefined || this.waiting.length > 0) this.waiting.push([item, location]);
    else if (resultType === 'vector' || resultType === 'matrix') this.read(item, location, resultType);
    // Any other resultType: the envelope's check refuses the answer.
  }

  /** Reads the elements kept for the resultType, then says what reading them said, through `warn`. */
  finishReading(resultType: 'vector' | 'matrix', warn: Warn): void {
    for (const [item, location] of this.waiting) this.read(item, location, resultType);
    this.waiting = [];
    for (const [location, message] of this.deferred) warn(location, message);
    this.deferred = [];
  }

  private read(item: unknown, location: string, resultType: 'vector' | 'matrix'): void {
    if (!isObject(item) || !isObject(item.metric)) {
      this.deferred.push([location, 'not a series (no "metric" object); skipped']);
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

    const points = resultType === 'vector' ? [item.value] : item.values;
    if (!Array.isArray(points)) {
      this.deferred.push([location, `${name} has no ${resultType === 'vector' ? '"value"' : '"values"'} (a native histogram?); skipped`]);
      return;
    }
    let group = this.byDevice.get(read.device.key);
    if (group === undefined) {
      group = { device: { ...read.device }, series: [] };
      this.byDevice.set(read.device.key, group);
    } else {
      mergeDeviceLabels(group.device, read.device);
    }
    const series = seriesOf(name, location, fieldByMetricName(name), read.pod, points);
    // The series of a range answer nearly all have the same steps: their times are kept once.
    if (this.lastTimes !== undefined && sameNumbers(series.times, this.lastTimes)) series.times = this.lastTimes;
    else this.lastTimes = series.times;
    group.series.push(series);
  }

  /**
   * Sends device after device, letting go of each one's points once sent, and pausing between
   * devices where the sink asks (ObservationSink.pause: in a parse worker, the batches go out as
   * they fill instead of all of the answer's samples piling up in one).
   */
  async send(devices: DcgmDevices, sink: ObservationSink, warn: Warn): Promise<void> {
    for (const [key, group] of this.byDevice) {
      const byTime = new Map<number, DeviceReadings>();
      for (const series of group.series) this.readPoints(series, group.device, byTime, warn);
      for (const time of [...byTime.keys()].sort((a, b) => a - b)) sendReadings(byTime.get(time)!, time, devices, sink);
      this.byDevice.delete(key);
      if (sink.pause !== undefined) await sink.pause();
    }
  }

  private readPoints(series: DcgmSeries, device: SeriesDevice, byTime: Map<number, DeviceReadings>, warn: Warn): void {
    const { name, location, field, pod, times, values, odd } = series;
    for (let position = 0; position < times.length; position += 1) {
      const oddPoint = odd?.get(position);
      if (oddPoint !== undefined && 'malformed' in oddPoint) {
        warn(location, `${name}: ${oddPoint.malformed} is not a [time, "value"] pair; skipped`);
        continue;
      }
      this.points += 1;
      if (oddPoint !== undefined) warn(location, `${name} value "${oddPoint.notReading}" is not a reading of this field; left out`);
      const time = times[position]!;
      const value = values[position]!;
      let entry = byTime.get(time);
      if (entry === undefined) {
        entry = emptyReadings(device);
        byTime.set(time, entry);
      }
      recordSeries(entry, pod, field, Number.isNaN(value) ? undefined : value);
    }
  }
}

function sameNumbers(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let position = 0; position < a.length; position += 1) if (a[position] !== b[position]) return false;
  return true;
}

/** A series with its points read into numbers (see DcgmSeries). */
function seriesOf(name: string, location: string, field: DcgmField | undefined, pod: PodLabels | undefined, points: unknown[]): DcgmSeries {
  const times = new Float64Array(points.length);
  const values = new Float64Array(points.length);
  let odd: Map<number, OddPoint> | undefined;
  for (let position = 0; position < points.length; position += 1) {
    const raw = points[position];
    const point = readPoint(raw);
    if (point === undefined) {
      (odd ??= new Map()).set(position, { malformed: JSON.stringify(raw) });
      continue;
    }
    times[position] = point.time;
    const value = field === undefined ? undefined : readDcgmValue(point.value, field);
    // A reading is never NaN (readDcgmValue gives NaN only for text that is not one), so NaN marks none.
    values[position] = value ?? Number.NaN;
    if (Number.isNaN(value)) (odd ??= new Map()).set(position, { notReading: point.value });
  }
  return { name, location, field, pod, times, values, odd };
}

export const prometheusJson: SourceParser = {
  format: 'prometheus-json',
  description: 'Prometheus HTTP API answer (/api/v1/query or query_range JSON) of DCGM metrics',
  detect(head) {
    return OPENS_OBJECT.test(head) && STATUS.test(head) && ANSWER_KIND.test(head);
  },
  // Every sample goes out once the whole answer is read (AnswerReader.send): a worker overlaps
  // nothing, and held the answer's points beside the analysis in its own heap. Read here, a
  // 149 MB answer of 600 series x 12,000 points peaks at 253-260 MiB instead of 269-315, in
  // about the same time.
  sendsAllAtEnd: () => true,
  async parse(chunks, context, sink): Promise<ParseResult> {
    const reader = new AnswerReader(context);
    const document = await readDocument(chunks, context.ref, reader);
    const { resultType, result } = resultOf(document, context, sink);
    const warnings = new WarningLimiter(sink);
    reader.finishReading(resultType, warnings.warn);

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

    await reader.send(new DcgmDevices(sink), sink, warnings.warn);
    warnings.finish('data.result');
    return { records: reader.points };
  },
};

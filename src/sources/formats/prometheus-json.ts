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
 * The answer is one JSON document, read a series at a time (support/json-element-splitter.ts): each
 * element of data.result is parsed on its own as it ends, and its points are kept as two
 * numbers each (time, value), not as the parsed arrays and strings, which take about ten
 * times the text. Values are grouped by device before they
 * are sent, so a device's points are held until its last series is read.
 *
 * A file is read more than once (SourceContext.reread): the first read checks the document and
 * its envelope and notes where each series stands and each device's first and last series
 * (planAnswer); the next cuts the series out where they stand and sends each device as soon as
 * its last series is read. Prometheus sorts a range answer's series by their labels, and
 * dcgm-exporter's upper-case Hostname and UUID sort before __name__, so its series come device
 * by device and one device's points are held at a time, whatever the answer's size. Series
 * that come metric by metric (labels that sort after __name__) keep every device open until
 * its last metric: they are read in several passes, each for as many devices as fit
 * (assignPasses). Standard input is read once and every device waits for its end. Either way,
 * an answer that would hold more than AnswerLimits.maxHeldBytes of points at once is refused
 * with advice.
 */
import { InputError } from '../../support/index.js';
import type { ObservationSink, ServingSample } from '../../model/index.js';
import { servingFamilyOf } from '../serving/metric-names.js';
import { servingReading } from './serving-metrics.js';
import type { ParseResult, SourceContext, SourceParser } from '../types.js';
import { DCGM_METRIC_PREFIX, fieldByMetricName } from '../dcgm/fields.js';
import type { DcgmField } from '../dcgm/fields.js';
import { readSeriesLabels, TARGET_POD_LABELS_WARNING } from '../dcgm/labels.js';
import { inputLimitsOf, labelsProblem, limitHint, type InputLimits } from '../input-limits.js';
import type { PodLabels, SeriesDevice } from '../dcgm/labels.js';
import { DcgmDevices } from '../dcgm/devices.js';
import { emptyReadings, mergeDeviceLabels, recordSeries, sendReadings } from '../dcgm/scrape.js';
import type { DeviceReadings } from '../dcgm/scrape.js';
import { dcgmValueProblem, readDcgmValue } from '../dcgm/values.js';
import { JsonElementSplitter, JsonSplitError, jsonEndLocation, pieceSyntaxError, positionText } from '../../support/index.js';
import { WarningLimiter } from '../lexers/text/warnings.js';
import type { Warn } from '../lexers/text/warnings.js';

/** What a held serving reading is counted as against AnswerLimits.maxHeldBytes. */
const SERVING_READING_BYTES = 64;

/** What an answer may take, at most; exceeded, it is refused with advice. */
export interface AnswerLimits {
  /**
   * Points held at once, as bytes of their numbers: 8 per value, and 8 per time of a series
   * whose times are not those of the series before it.
   */
  maxHeldBytes: number;
  /** Text of the document outside data.result (its envelope: status, warnings, blanks). */
  maxEnvelopeChars: number;
  /** Text of one series: JSON.parse makes some ten times its text of arrays and strings. */
  maxSeriesChars: number;
}

/**
 * Points held at once stay under 64 MiB, which keeps a read of standard input inside the memory
 * target (bench/MEASUREMENTS.md); a read of a file holds devices of at most that many characters
 * of series. Prometheus answers at most 11,000 points a series, some 250 KB: a series may be
 * 20 times that.
 */
export const ANSWER_LIMITS: AnswerLimits = { maxHeldBytes: 64 * 1024 * 1024, maxEnvelopeChars: 16 * 1024 * 1024, maxSeriesChars: 5 * 1024 * 1024 };

function mebibytes(bytes: number): string {
  return `${Number((bytes / 1024 / 1024).toFixed(2))} MiB`;
}

const OPENS_OBJECT = /^\s*\{/;
const STATUS = /"status"\s*:\s*"(?:success|error)"/;
/** `resultType` on a success, `errorType` on an error answer; `result` on one cut or edited without its resultType (refused by name). */
const ANSWER_KIND = /"(?:resultType|errorType)"\s*:\s*"|"result"\s*:\s*\[/;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What reads the elements of data.result as the document is read (readDocument). */
interface ElementReader {
  /** data.result opens (again, where the key is repeated: the last one is the answer's). */
  restart(): void;
  /** One element of data.result, as text; `resultType` as read so far; `offset`: the characters of the document before it. */
  element(text: string, index: number, resultType: string | undefined, offset: number): void;
}

/**
 * Reads the document, handing each element of data.result to `reader` as it ends; returns
 * the rest of the document, parsed (data.result holds a 0 for each element).
 */
async function readDocument(chunks: AsyncIterable<string>, file: string, reader: ElementReader, limits: AnswerLimits, maxSeries: number): Promise<unknown> {
  const splitter = new JsonElementSplitter(['data', 'result'], {
    onArrayStart: () => reader.restart(),
    onElement: (text, index, _start, offset) => {
      if (index >= maxSeries) {
        throw new InputError(`more than ${maxSeries} series in data.result: save the answer of a narrower query, or read more with ${limitHint('seriesPerAnswer')}`, { file, location: `data.result[${index}]` });
      }
      reader.element(text, index, splitter.stringAt('data.resultType'), offset);
    },
  });
  try {
    for await (const chunk of chunks) {
      splitter.write(chunk);
      if (splitter.envelopeChars > limits.maxEnvelopeChars) {
        throw new InputError(`more than ${mebibytes(limits.maxEnvelopeChars)} of text outside data.result: not a Prometheus query answer of series`, { file });
      }
      if (splitter.openElementChars > limits.maxSeriesChars) {
        throw new InputError(
          `a series of data.result is longer than ${mebibytes(limits.maxSeriesChars)} of text: query a coarser step (Prometheus answers at most 11,000 points a series)`,
          { file, location: 'data.result' },
        );
      }
    }
    return JSON.parse(splitter.end()) as unknown;
  } catch (error) {
    // JSON.parse's, and the splitter's (JsonSplitError); anything else is not the document's.
    if (!(error instanceof SyntaxError)) throw error;
    // The splitter knows where in the document; JSON.parse saw the envelope only, whose offsets are not the document's, but its end is.
    const location = error instanceof JsonSplitError ? positionText(error.position)
      : jsonEndLocation(error);
    throw new InputError(`not valid JSON: ${pieceSyntaxError(error)}`, { file, location, cause: error });
  }
}

/**
 * What the first of two reads learnt (planAnswer): where each element of data.result stands in
 * the text, which device it holds points of, and where each device's last series is, so that
 * the second read cuts the elements out where they stand and sends a device there. The
 * document and its envelope are checked: the second read starts sending at once.
 */
interface AnswerPlan {
  resultType: 'vector' | 'matrix';
  /** Per element of the last data.result (JSON.parse keeps the last of a repeated key): its first character's offset in the text, and the offset after its last. */
  starts: number[];
  ends: number[];
  /** Per element, the number of its device (-1: none). */
  deviceOf: number[];
  /** Per device number (in the order devices first appear), its key (dcgm/labels.ts deviceKey), its first and last element, and its series' characters. */
  keys: string[];
  firstElement: number[];
  lastElement: number[];
  chars: number[];
  /** Per device number, the read that sends it (assignPasses), and how many reads there are. */
  passOf: number[];
  passes: number;
}

/**
 * The first read: the document parsed but for its series, whose labels alone are read (a
 * series' points are most of its text, and are not parsed here), and the envelope checked.
 */
async function planAnswer(chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink, limits: AnswerLimits): Promise<AnswerPlan> {
  const empty = (): Omit<AnswerPlan, 'resultType' | 'passOf' | 'passes'> => ({ starts: [], ends: [], deviceOf: [], keys: [], firstElement: [], lastElement: [], chars: [] });
  let plan = empty();
  const numbers = new Map<string, number>();
  const caps = inputLimitsOf(context.limits);
  const document = await readDocument(chunks, context.ref, {
    restart: () => {
      plan = empty();
      numbers.clear();
    },
    element: (text, index, _resultType, offset) => {
      const key = deviceKeyOfSeries(text, context.host, caps);
      let device = key === undefined ? -1 : numbers.get(key);
      if (device === undefined) {
        device = plan.keys.length;
        numbers.set(key!, device);
        plan.keys.push(key!);
        plan.firstElement.push(index);
        plan.chars.push(0);
      }
      plan.starts.push(offset);
      plan.ends.push(offset + text.length);
      plan.deviceOf.push(device);
      if (device !== -1) {
        plan.lastElement[device] = index;
        plan.chars[device]! += text.length;
      }
    },
  }, limits, caps.seriesPerAnswer);
  const { resultType } = resultOf(document, context, sink);
  return { resultType, ...plan, ...assignPasses(plan.firstElement, plan.lastElement, plan.chars, limits.maxHeldBytes) };
}

/**
 * Which read sends each device, so that the devices one read holds at once never have more
 * than `budget` characters of series between them (a point's two numbers take 16 bytes at
 * most and some 20 characters as Prometheus writes it, so a read holds well under `budget`
 * bytes of points). Series that come device by device need one read; series that come metric
 * by metric hold every device until its last metric, and are read in as many passes of
 * devices as it takes. First fit, devices in the order they first appear: a read's load only
 * grows where a device starts, and there it is checked.
 */
function assignPasses(firstElement: readonly number[], lastElement: readonly number[], chars: readonly number[], budget: number): { passOf: number[]; passes: number } {
  /** Per read: the devices it holds, as far as known, and their characters. */
  const passes: { held: number[]; load: number }[] = [];
  const passOf: number[] = [];
  /** Lets go of the devices whose last series came before element `start`: they are sent by then. */
  const release = (pass: { held: number[]; load: number }, start: number): void => {
    const still: number[] = [];
    for (const other of pass.held) {
      if (lastElement[other]! >= start) still.push(other);
      else pass.load -= chars[other]!;
    }
    pass.held = still;
  };
  for (let device = 0; device < firstElement.length; device += 1) {
    const size = chars[device]!;
    let chosen = passes.findIndex((pass) => {
      if (pass.load + size > budget) release(pass, firstElement[device]!);
      return pass.load + size <= budget;
    });
    if (chosen === -1) chosen = passes.push({ held: [], load: 0 }) - 1;
    passes[chosen]!.held.push(device);
    passes[chosen]!.load += size;
    passOf.push(chosen);
  }
  return { passOf, passes: Math.max(1, passes.length) };
}

/**
 * A read after the first, number `pass` of the plan's: the elements of the devices it sends
 * (and, in the first, those of no device) cut out of the text where they stand and handed to
 * `reader`, without looking at the rest of the text again.
 */
async function readPlannedElements(chunks: AsyncIterable<string>, file: string, plan: AnswerPlan, pass: number, reader: AnswerReader): Promise<void> {
  const { starts, ends, deviceOf, passOf } = plan;
  let consumed = 0;
  let next = 0;
  let parts: string[] = [];
  for await (const chunk of chunks) {
    const chunkEnd = consumed + chunk.length;
    while (next < starts.length && starts[next]! < chunkEnd) {
      const end = ends[next]!;
      const device = deviceOf[next]!;
      const wanted = device === -1 ? pass === 0 : passOf[device] === pass;
      if (wanted) parts.push(chunk.slice(Math.max(starts[next]! - consumed, 0), Math.min(end, chunkEnd) - consumed));
      if (end > chunkEnd) break;
      if (wanted) {
        const text = parts.length === 1 ? parts[0]! : parts.join('');
        parts = [];
        reader.plannedElement(parseElement(text, file, next, plan.resultType), next);
      }
      next += 1;
    }
    consumed = chunkEnd;
    await reader.between();
  }
  if (next < starts.length) throw fileChanged(file, `data.result[${next}]`);
}

/** The element of data.result at `index`, parsed (a matrix series scanned where scanSeries can), a syntax error naming it. */
function parseElement(text: string, file: string, index: number, resultType: 'vector' | 'matrix'): unknown {
  try {
    return (resultType === 'matrix' ? scanSeries(text) : undefined) ?? (JSON.parse(text) as unknown);
  } catch (error) {
    throw new InputError(`not valid JSON: ${pieceSyntaxError(error)}`, { file, location: `data.result[${index}]`, cause: error });
  }
}

/** A file whose second read differs from its first. */
function fileChanged(file: string, location: string): InputError {
  return new InputError('the file changed while it was read (its two reads differ): read it again once it is complete', { file, location });
}

/** The key of the device whose points a series (an element's text) holds, as AnswerReader.read finds it; undefined: none. */
function deviceKeyOfSeries(text: string, host: string, caps: InputLimits): string | undefined {
  const metric = metricOf(text);
  if (!isObject(metric)) return undefined;
  const name = metric.__name__;
  if (typeof name !== 'string' || !name.startsWith(DCGM_METRIC_PREFIX)) return undefined;
  const labels = labelsOf(metric);
  return labelsProblem(labels, caps) === undefined ? readSeriesLabels(labels, host)?.device.key : undefined;
}

/**
 * Where an element's "metric" object stands, `[start, end)`, when the element starts with it
 * and it holds no object or array (a label set: strings); else undefined.
 */
function metricSpan(text: string): [start: number, end: number] | undefined {
  const open = skipBlanks(text, 0);
  if (text.charCodeAt(open) !== OPEN_BRACE) return undefined;
  const at = valueOfMember(text, skipBlanks(text, open + 1), '"metric"');
  const end = at !== -1 && text.charCodeAt(at) === OPEN_BRACE ? flatObjectEnd(text, at) : -1;
  return end === -1 ? undefined : [at, end];
}

/** An element's "metric" member: its text alone parsed where metricSpan finds it, else the whole element. */
function metricOf(text: string): unknown {
  const span = metricSpan(text);
  if (span !== undefined) return JSON.parse(text.slice(span[0], span[1])) as unknown;
  const item = JSON.parse(text) as unknown;
  return isObject(item) ? item.metric : undefined;
}

/** The points of a series as scanSeries reads them: times in epoch ms, values as their text. */
class ScannedPoints {
  constructor(
    readonly times: Float64Array,
    readonly values: readonly string[],
  ) {}
}

/**
 * A matrix series in the form Prometheus writes it, `{"metric":{...},"values":[[<time>,"<value>"],...]}`
 * (blanks allowed between tokens), read without JSON.parse making an array, a number and a
 * string of every point (with their conversion, a third of a large answer's time; half that
 * scanned): the metric is parsed alone, the points scanned. Undefined for any other form, or a point the scan does not take (a time
 * other than digits with an optional fraction, a value with an escape or a control character):
 * the element is then parsed whole. So what the scan takes, JSON.parse takes too, and reads
 * the same (a test holds them to each other).
 */
function scanSeries(text: string): { metric: unknown; values: ScannedPoints } | undefined {
  const span = metricSpan(text);
  if (span === undefined) return undefined;
  let at = skipBlanks(text, span[1]);
  if (text.charCodeAt(at) !== COMMA) return undefined;
  at = valueOfMember(text, skipBlanks(text, at + 1), '"values"');
  if (at === -1 || text.charCodeAt(at) !== OPEN_BRACKET) return undefined;
  at = skipBlanks(text, at + 1);
  const times: number[] = [];
  const values: string[] = [];
  if (text.charCodeAt(at) === CLOSE_BRACKET) at += 1;
  else {
    for (;;) {
      if (text.charCodeAt(at) !== OPEN_BRACKET) return undefined;
      at = skipBlanks(text, at + 1);
      const timeEnd = plainNumberEnd(text, at);
      if (timeEnd === -1) return undefined;
      // Whole seconds, as Prometheus writes a step's times, are summed here; anything else goes to Number().
      const whole = timeEnd - at <= MAX_EXACT_DIGITS ? wholeNumberAt(text, at, timeEnd) : Number.NaN;
      const seconds = Number.isNaN(whole) ? Number(text.slice(at, timeEnd)) : whole;
      at = skipBlanks(text, timeEnd);
      if (text.charCodeAt(at) !== COMMA) return undefined;
      at = skipBlanks(text, at + 1);
      if (text.charCodeAt(at) !== QUOTE) return undefined;
      const quote = plainStringEnd(text, at + 1);
      if (quote === -1) return undefined;
      times.push(Math.round(seconds * 1000));
      values.push(text.slice(at + 1, quote));
      at = skipBlanks(text, quote + 1);
      if (text.charCodeAt(at) !== CLOSE_BRACKET) return undefined;
      at = skipBlanks(text, at + 1);
      const next = text.charCodeAt(at);
      if (next === CLOSE_BRACKET) break;
      if (next !== COMMA) return undefined;
      at = skipBlanks(text, at + 1);
    }
    at += 1;
  }
  at = skipBlanks(text, at);
  if (text.charCodeAt(at) !== CLOSE_BRACE || skipBlanks(text, at + 1) !== text.length) return undefined;
  return { metric: JSON.parse(text.slice(span[0], span[1])) as unknown, values: new ScannedPoints(Float64Array.from(times), values) };
}

/** The end of a JSON number of digits, not starting with 0, with an optional fraction, at `from`; -1 where there is none. */
function plainNumberEnd(text: string, from: number): number {
  let at = from;
  const first = text.charCodeAt(at);
  if (first < DIGIT_1 || first > DIGIT_9) return -1;
  while (isDigit(text.charCodeAt(at))) at += 1;
  if (text.charCodeAt(at) !== DOT) return at;
  const fraction = at + 1;
  at = fraction;
  while (isDigit(text.charCodeAt(at))) at += 1;
  return at === fraction ? -1 : at;
}

/** Digits of a whole number summed exactly in a double (below 2^53). */
const MAX_EXACT_DIGITS = 15;

/** The digits text[from, to) as a number; NaN where another character stands among them. */
function wholeNumberAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let at = from; at < to; at += 1) {
    const code = text.charCodeAt(at);
    if (!isDigit(code)) return Number.NaN;
    value = value * 10 + (code - DIGIT_0);
  }
  return value;
}

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

/** The quote that ends a JSON string whose text starts at `from` and has no escape or control character; -1 otherwise. */
function plainStringEnd(text: string, from: number): number {
  for (let at = from; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) return at;
    if (code === BACKSLASH || code < 0x20) return -1;
  }
  return -1;
}

/** Where the value of the member `key` (its name in quotes) at `at` starts, after the colon and blanks; -1 where another text stands. */
function valueOfMember(text: string, at: number, key: string): number {
  if (!text.startsWith(key, at)) return -1;
  const colon = skipBlanks(text, at + key.length);
  return text.charCodeAt(colon) === COLON ? skipBlanks(text, colon + 1) : -1;
}

function skipBlanks(text: string, from: number): number {
  let at = from;
  for (let code = text.charCodeAt(at); code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09; code = text.charCodeAt(at)) at += 1;
  return at;
}

/** The end (after its `}`) of the object opening at `open`, or -1 when it holds an object or array or does not end. */
function flatObjectEnd(text: string, open: number): number {
  for (let at = open + 1; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      for (at += 1; at < text.length && text.charCodeAt(at) !== QUOTE; at += 1) if (text.charCodeAt(at) === BACKSLASH) at += 1;
    } else if (code === CLOSE_BRACE) {
      return at + 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      return -1;
    }
  }
  return -1;
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
  /** What its points count towards AnswerLimits.maxHeldBytes. */
  bytes: number;
}

/** Where the samples of the devices read go. */
interface Output {
  devices: DcgmDevices;
  sink: ObservationSink;
  warn: Warn;
}

/**
 * Reads an answer's series grouped by device, and sends each device's values one timestamp at
 * a time: once its last series is read where the answer was planned (planAnswer), else once
 * the whole answer is read. Grouping by device rather than by timestamp keeps the working set
 * to one device's time line: a range answer holds thousands of timestamps.
 *
 * Read once, the series arrive before the envelope (status, warnings) is known, so what
 * reading them would say is kept in order and said after the envelope's checks
 * (`finishReading`): the warnings come out as they did when the document was parsed whole. An
 * answer whose resultType comes after its result (keys sorted, as `jq -S` writes them) is read
 * at the end, from the elements' text kept meanwhile. A planned answer was checked by the
 * first read: what reading it says is said at once.
 */
class AnswerReader implements ElementReader {
  private readonly byDevice = new Map<string, DeviceSeries>();
  /** What reading the series said, in their order, until there is somewhere to say it. */
  private deferred: [location: string, message: string][] = [];
  /** Elements met before the answer said its resultType: text and index. */
  private waiting: [text: string, index: number][] = [];
  /** The times of the series read last, which the next one shares when they are the same. */
  private lastTimes: Float64Array | undefined;
  /** Points' bytes and waiting text held now (see AnswerLimits.maxHeldBytes). */
  private heldBytes = 0;
  /** A device was sent since the last pause. */
  private sentSincePause = false;
  private output: Output | undefined;
  /** Elements of the data.result read last. */
  elements = 0;
  points = 0;
  dcgmSeries = 0;
  unnamedSeries = 0;
  otherSeries = 0;
  /** Inference-server series read (their readings go to the sink's serving). */
  servingSeries = 0;
  servingReadings = 0;
  private heldServing: ServingSample[] = [];
  targetPodLabelsIgnored = false;
  /** Series skipped for a label cap, and where and why the first was. */
  cappedSeries = 0;
  firstCapped: string | undefined;
  private readonly caps: InputLimits;

  constructor(
    private readonly context: SourceContext,
    private readonly plan: AnswerPlan | undefined,
    private readonly limits: AnswerLimits,
  ) {
    this.caps = inputLimitsOf(context.limits);
  }

  restart(): void {
    this.byDevice.clear();
    this.deferred = [];
    this.waiting = [];
    this.lastTimes = undefined;
    this.heldBytes = 0;
    this.elements = 0;
    this.dcgmSeries = 0;
    this.unnamedSeries = 0;
    this.otherSeries = 0;
    this.servingSeries = 0;
    this.servingReadings = 0;
    this.heldServing = [];
    this.targetPodLabelsIgnored = false;
  }

  /** A planned answer's element, parsed (readPlannedElements): read, and its device sent where this is its last series. */
  plannedElement(item: unknown, index: number): void {
    const plan = this.plan!;
    this.elements += 1;
    this.read(item, index, plan.resultType);
    const device = plan.deviceOf[index]!;
    if (device !== -1 && plan.lastElement[device] === index) this.sendDevice(plan.keys[device]!, this.output!);
  }

  /** An element of an answer read once. */
  element(text: string, index: number, resultType: string | undefined): void {
    this.elements += 1;
    if (resultType === undefined || this.waiting.length > 0) {
      this.waiting.push([text, index]);
      this.hold(text.length);
    } else if (resultType === 'vector' || resultType === 'matrix') {
      this.read(parseElement(text, this.context.ref, index, resultType), index, resultType);
    }
    // Any other resultType: the envelope's check refuses the answer.
  }

  /** Read once: reads the elements kept for the resultType, then says what reading them said. */
  finishReading(resultType: 'vector' | 'matrix', warn: Warn): void {
    for (const [text, index] of this.waiting) {
      this.heldBytes -= text.length;
      this.read(parseElement(text, this.context.ref, index, resultType), index, resultType);
    }
    this.waiting = [];
    for (const [location, message] of this.deferred) warn(location, message);
    this.deferred = [];
  }

  /** From now on, devices go out to `output` once complete, and what reading says is said at once. */
  startSending(output: Output): void {
    this.output = output;
    for (const reading of this.heldServing) output.sink.serving?.(reading);
    this.heldBytes -= this.heldServing.length * SERVING_READING_BYTES;
    this.heldServing = [];
  }

  /** Pauses where the sink asks (ObservationSink.pause: in a parse worker, the batches then go out as they fill) after a device was sent. */
  async between(): Promise<void> {
    if (!this.sentSincePause) return;
    this.sentSincePause = false;
    await this.output?.sink.pause?.();
  }

  /** Sends every device still held, one after another, pausing in between. */
  async sendRest(): Promise<void> {
    for (const key of [...this.byDevice.keys()]) {
      this.sendDevice(key, this.output!);
      await this.between();
    }
  }

  /** Sends a device's samples, in time order, and lets go of its points. */
  private sendDevice(key: string, { devices, sink, warn }: Output): void {
    const group = this.byDevice.get(key);
    if (group === undefined) return;
    const steps = commonSteps(group.series);
    if (steps !== undefined) {
      // The usual range answer: the same steps in every series, so a time's values stand at the
      // same position in each, and every time has every series' pod.
      const withPods = emptyReadings(group.device);
      for (const { pod } of group.series) recordSeries(withPods, pod, undefined, undefined);
      for (let position = 0; position < steps.length; position += 1) {
        const entry = emptyReadings(group.device);
        for (const { field, values } of group.series) recordSeries(entry, undefined, field, reading(values[position]!));
        entry.pods = withPods.pods;
        sendReadings(entry, steps[position], devices, sink);
      }
      this.points += steps.length * group.series.length;
    } else {
      const byTime = new Map<number, DeviceReadings>();
      for (const series of group.series) this.readPoints(series, group.device, byTime, warn);
      for (const time of [...byTime.keys()].sort((a, b) => a - b)) sendReadings(byTime.get(time)!, time, devices, sink);
    }
    this.byDevice.delete(key);
    this.heldBytes -= group.bytes;
    this.sentSincePause = true;
  }

  private say(location: string, message: string): void {
    if (this.output === undefined) this.deferred.push([location, message]);
    else this.output.warn(location, message);
  }

  private read(item: unknown, index: number, resultType: 'vector' | 'matrix'): void {
    const location = `data.result[${index}]`;
    if (!isObject(item) || !isObject(item.metric)) {
      this.say(location, 'not a series (no "metric" object); skipped');
      return;
    }
    const labels = labelsOf(item.metric);
    const problem = labelsProblem(labels, this.caps);
    if (problem !== undefined) {
      this.say(location, `${problem}; skipped`);
      this.cappedSeries += 1;
      this.firstCapped ??= `${location}: ${problem}`;
      return;
    }
    const name = labels.get('__name__');
    if (name === undefined) {
      this.unnamedSeries += 1;
      return;
    }
    if (!name.startsWith(DCGM_METRIC_PREFIX)) {
      if (servingFamilyOf(name) !== undefined) this.readServing(name, labels, resultType === 'vector' ? [item.value] : item.values, location);
      else this.otherSeries += 1;
      return;
    }
    this.dcgmSeries += 1;
    const read = readSeriesLabels(labels, this.context.host);
    if (read === undefined) return;
    if (read.targetPodLabelsIgnored) this.targetPodLabelsIgnored = true;
    this.checkPlanned(read.device.key, index);

    const points = resultType === 'vector' ? [item.value] : item.values;
    if (!(points instanceof ScannedPoints) && !Array.isArray(points)) {
      this.say(location, `${name} has no ${resultType === 'vector' ? '"value"' : '"values"'} (a native histogram?); skipped`);
      return;
    }
    let group = this.byDevice.get(read.device.key);
    if (group === undefined) {
      group = { device: { ...read.device }, series: [], bytes: 0 };
      this.byDevice.set(read.device.key, group);
    } else {
      mergeDeviceLabels(group.device, read.device);
    }
    const series = seriesOf(name, location, fieldByMetricName(name), read.pod, points);
    // The series of a range answer nearly all have the same steps: their times are kept once.
    let bytes = series.values.byteLength;
    if (this.lastTimes !== undefined && sameNumbers(series.times, this.lastTimes)) {
      series.times = this.lastTimes;
    } else {
      this.lastTimes = series.times;
      bytes += series.times.byteLength;
    }
    group.series.push(series);
    group.bytes += bytes;
    this.hold(bytes);
  }

  /**
   * An inference server's series: each point a serving reading, as a scrape line is
   * (serving-metrics.ts servingReading). They go out at once, or, before the answer says where
   * to send (standard input), are held within the answer's limit.
   */
  private readServing(name: string, labels: Map<string, string>, points: unknown, location: string): void {
    this.servingSeries += 1;
    labels.delete('__name__');
    const scanned = points instanceof ScannedPoints ? points : undefined;
    const count = scanned?.times.length ?? (Array.isArray(points) ? points.length : 0);
    for (let position = 0; position < count; position += 1) {
      const point = scanned === undefined ? readPoint((points as unknown[])[position]) : { time: scanned.times[position]!, value: scanned.values[position]! };
      if (point === undefined) {
        this.say(location, `${name}: a point that is not [time, "value"]; skipped`);
        continue;
      }
      const reading = servingReading({ name, labels, value: point.value, time: point.time }, this.context.host);
      if (reading === undefined) continue;
      if (typeof reading === 'string') {
        this.say(location, reading);
        continue;
      }
      this.servingReadings += 1;
      if (this.output !== undefined) this.output.sink.serving?.(reading);
      else {
        this.heldServing.push(reading);
        this.hold(SERVING_READING_BYTES);
      }
    }
  }

  /** A planned answer: the device read is the one the first read found there, or the file changed in between. */
  private checkPlanned(key: string, index: number): void {
    const plan = this.plan;
    if (plan === undefined || plan.keys[plan.deviceOf[index]!] === key) return;
    throw fileChanged(this.context.ref, `data.result[${index}]`);
  }


  private hold(bytes: number): void {
    this.heldBytes += bytes;
    if (this.heldBytes <= this.limits.maxHeldBytes) return;
    const most = mebibytes(this.limits.maxHeldBytes);
    const message = this.plan === undefined
      ? `read once (from standard input), the answer's points are held until it ends, and they pass ${most}: save it to a file and name that (its devices are then sent as their series end), ` +
        'query a shorter range or a coarser step, or use --prometheus to query the server directly'
      : `more than ${most} of points would be held at once, read in ${this.plan.passes === 1 ? 'one pass' : `${this.plan.passes} passes`} of devices: ` +
        'query a shorter range or a coarser step, or use --prometheus to query the server directly';
    throw new InputError(message, { file: this.context.ref, location: 'data.result' });
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
      if (oddPoint !== undefined) warn(location, `${name} value "${oddPoint.notReading}" ${dcgmValueProblem(oddPoint.notReading, field!)}`);
      const time = times[position]!;
      const value = values[position]!;
      let entry = byTime.get(time);
      if (entry === undefined) {
        entry = emptyReadings(device);
        byTime.set(time, entry);
      }
      recordSeries(entry, pod, field, reading(value));
    }
  }
}

/** A value as recordSeries takes it: NaN marks none. */
function reading(value: number): number | undefined {
  return Number.isNaN(value) ? undefined : value;
}

/**
 * The times of a device's series where they are one array (AnswerReader.read keeps equal
 * times once) that rises step by step and no point is odd: then its values can be merged by
 * position, as the map by time would merge them. Else undefined.
 */
function commonSteps(series: readonly DcgmSeries[]): Float64Array | undefined {
  const times = series[0]?.times;
  if (times === undefined || series.some((one) => one.times !== times || one.odd !== undefined)) return undefined;
  for (let position = 1; position < times.length; position += 1) if (!(times[position - 1]! < times[position]!)) return undefined;
  return times;
}

function sameNumbers(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let position = 0; position < a.length; position += 1) if (a[position] !== b[position]) return false;
  return true;
}

/** A series with its points read into numbers (see DcgmSeries): parsed points, or scanned ones (scanSeries). */
function seriesOf(name: string, location: string, field: DcgmField | undefined, pod: PodLabels | undefined, points: unknown[] | ScannedPoints): DcgmSeries {
  const scanned = points instanceof ScannedPoints ? points : undefined;
  const count = scanned?.times.length ?? (points as unknown[]).length;
  const times = scanned?.times ?? new Float64Array(count);
  const values = new Float64Array(count);
  let odd: Map<number, OddPoint> | undefined;
  for (let position = 0; position < count; position += 1) {
    let text: string;
    if (scanned !== undefined) {
      text = scanned.values[position]!;
    } else {
      const raw = (points as unknown[])[position];
      const point = readPoint(raw);
      if (point === undefined) {
        (odd ??= new Map()).set(position, { malformed: JSON.stringify(raw) });
        continue;
      }
      times[position] = point.time;
      text = point.value;
    }
    const value = field === undefined ? undefined : readDcgmValue(text, field);
    // A reading is never NaN (readDcgmValue gives NaN only for text that is not one), so NaN marks none.
    values[position] = value ?? Number.NaN;
    if (Number.isNaN(value)) (odd ??= new Map()).set(position, { notReading: text });
  }
  return { name, location, field, pod, times, values, odd };
}

/** The parser, with other limits than ANSWER_LIMITS for tests. */
export function prometheusJsonParser(limits: AnswerLimits = ANSWER_LIMITS): SourceParser {
  return {
    format: 'prometheus-json',
    description: 'Prometheus HTTP API answer (/api/v1/query or query_range JSON) of DCGM or inference-server metrics',
    detect(head) {
      return OPENS_OBJECT.test(head) && STATUS.test(head) && ANSWER_KIND.test(head);
    },
    // Read in one thread. When every sample went out at the end, a worker overlapped nothing and
    // held the points beside the analysis; sent device by device, it ran as fast either way
    // (bench/MEASUREMENTS.md).
    sendsAllAtEnd: () => true,
    async parse(chunks, context, sink): Promise<ParseResult> {
      const plan = context.reread === undefined ? undefined : await planAnswer(chunks, context, sink, limits);
      const reader = new AnswerReader(context, plan, limits);
      const warnings = new WarningLimiter(sink);
      const output = { devices: new DcgmDevices(sink), sink, warn: warnings.warn };
      if (plan === undefined) {
        const document = await readDocument(chunks, context.ref, reader, limits, inputLimitsOf(context.limits).seriesPerAnswer);
        reader.finishReading(resultOf(document, context, sink).resultType, warnings.warn);
        reader.startSending(output);
      } else {
        reader.startSending(output);
        for (let pass = 0; pass < plan.passes; pass += 1) await readPlannedElements(context.reread!(), context.ref, plan, pass, reader);
      }

      const series = reader.elements;
      if (reader.dcgmSeries === 0 && reader.servingSeries === 0 && series > 0) {
        const why = reader.firstCapped !== undefined
          ? `${reader.cappedSeries} of its ${series} series skipped for a label cap, the first at ${reader.firstCapped}`
          : reader.otherSeries > 0
          ? `none of its ${series} series is a DCGM_FI_ metric or an inference server's`
          : `none of its ${series} series has a __name__ label (a function or aggregation in the query dropped it), so none can be read as a DCGM field`;
        throw new InputError(`no DCGM series in this Prometheus answer: ${why}`, { file: context.ref, location: 'data.result' });
      }
      if (series === 0) {
        warnings.warn('data.result', 'the answer holds no series: the query matched nothing in its time range');
      }
      if (reader.unnamedSeries > 0) {
        warnings.warn('data.result', `${reader.unnamedSeries} series without a __name__ label skipped: a function or aggregation in the query dropped the metric name, so their field is unknown`);
      }
      if (reader.targetPodLabelsIgnored) warnings.warn('data.result', TARGET_POD_LABELS_WARNING);

      await reader.sendRest();
      warnings.finish('data.result');
      return { records: reader.points + reader.servingReadings };
    },
  };
}

export const prometheusJson = prometheusJsonParser();

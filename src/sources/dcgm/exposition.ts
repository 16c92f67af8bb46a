/**
 * One line of the Prometheus text exposition format (what dcgm-exporter serves on
 * /metrics), scanned character by character:
 *
 *   # HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
 *   DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-6d5c...",modelName="Tesla T4"} 91 1700000000000
 *
 * Label values are quoted with `\\`, `\"` and `\n` escaped; label order is free; a
 * trailing comma before `}` is allowed; Prometheus 3 may quote a label name, or put a
 * quoted metric name first inside the braces. Anything else is reported as invalid with
 * the reason, for the caller's warning.
 */
import { isPlainDecimal, MAX_NUMBER_LENGTH } from './values.js';
import { MAX_EXACT_DIGITS, POWERS_OF_TEN } from '../lexers/text/values.js';
import { detached } from '../../support/index.js';
import { DEFAULT_INPUT_LIMITS, labelTooLong, tooManyLabels, type InputLimits } from '../input-limits.js';

/** The caps on a series' labels (input-limits.ts): a series past either is skipped, with the reason, rather than kept in every sample's interned label set. */
export type LabelLimits = Pick<InputLimits, 'labelsPerSeries' | 'labelValueChars'>;

/** For a block already read under the caps in force, and for detection, which must not depend on them. */
export const UNCAPPED_LABELS: LabelLimits = { labelsPerSeries: Infinity, labelValueChars: Infinity };

export interface ExpositionSample {
  /** The name and labels exactly as printed: equal texts are the same series. */
  series: string;
  name: string;
  labels: Map<string, string>;
  /** The value as printed (`91`, `68.244000`, `NaN`); the field decides how to read it. */
  value: string;
  /** Epoch ms of the optional timestamp; undefined when the line has none. */
  time: number | undefined;
  /** The interned label set, when scanned with a LabelSetCache that holds it. */
  labelSet?: InternedLabels;
}

export type ExpositionLine =
  | { kind: 'sample'; sample: ExpositionSample }
  | { kind: 'comment' }
  | { kind: 'blank' }
  | { kind: 'invalid'; reason: string };

const BLANK: ExpositionLine = { kind: 'blank' };
const COMMENT: ExpositionLine = { kind: 'comment' };

const SPACE = 0x20;
const TAB = 0x09;
const HASH = 0x23;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const EQUALS = 0x3d;

function isLetterOrUnderscore(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Metric names may also contain `:` (recording rules); label names may not. */
function isMetricNameChar(code: number, first: boolean): boolean {
  return isLetterOrUnderscore(code) || code === 0x3a || (!first && isDigit(code));
}

function isLabelNameChar(code: number, first: boolean): boolean {
  return isLetterOrUnderscore(code) || (!first && isDigit(code));
}

function skipBlanks(line: string, position: number): number {
  return skipBlanksBefore(line, position, line.length);
}

function skipBlanksBefore(line: string, position: number, end: number): number {
  while (position < end) {
    const code = line.charCodeAt(position);
    if (code !== SPACE && code !== TAB) break;
    position += 1;
  }
  return position;
}

function readName(line: string, position: number, isNameChar: (code: number, first: boolean) => boolean): number {
  let end = position;
  while (end < line.length && isNameChar(line.charCodeAt(end), end === position)) end += 1;
  return end;
}

/** Where the token at `position` ends: the next blank or the end of the line (indexOf: native, fast on sliced lines). */
function readToken(line: string, position: number): number {
  const space = line.indexOf(' ', position);
  const tab = line.indexOf('\t', position);
  if (space === -1) return tab === -1 ? line.length : tab;
  return tab === -1 || space < tab ? space : tab;
}

interface Quoted {
  text: string;
  /** Position just after the closing quote. */
  end: number;
}

/** The escape sequences of the exposition format; any other `\x` stays as printed. */
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', '"': '"', n: '\n' };

/** A double-quoted string starting at `position` (the opening quote), or undefined if unterminated. */
function readQuoted(line: string, position: number): Quoted | undefined {
  const start = position + 1;
  const close = line.indexOf('"', start);
  if (close === -1) return undefined;
  const backslash = line.indexOf('\\', start);
  if (backslash === -1 || backslash > close) return { text: line.slice(start, close), end: close + 1 };

  let text = '';
  let cursor = start;
  while (cursor < line.length) {
    const code = line.charCodeAt(cursor);
    if (code === QUOTE) return { text, end: cursor + 1 };
    if (code === BACKSLASH && cursor + 1 < line.length) {
      const next = line[cursor + 1]!;
      text += ESCAPES[next] ?? `\\${next}`;
      cursor += 2;
      continue;
    }
    text += line[cursor];
    cursor += 1;
  }
  return undefined;
}

function invalid(reason: string): ExpositionLine {
  return { kind: 'invalid', reason };
}

interface LabelBlock {
  labels: Map<string, string>;
  /** The metric name, when the block began with a quoted one (and none came before it). */
  name: string | undefined;
  /** Position just after the closing brace. */
  end: number;
}

/** The labels between `{` at `open` and its `}`; `name` is the metric name read before the brace, if any. */
function scanLabelBlock(line: string, open: number, name: string | undefined, limits: LabelLimits): LabelBlock | ExpositionLine {
  const labels = new Map<string, string>();
  let position = open + 1;
  for (;;) {
    position = skipBlanks(line, position);
    if (line.charCodeAt(position) === CLOSE_BRACE) return { labels, name, end: position + 1 };
    let key: string;
    let keyWasQuoted = false;
    if (line.charCodeAt(position) === QUOTE) {
      const quoted = readQuoted(line, position);
      if (quoted === undefined) return invalid('unterminated quoted label name');
      key = quoted.text;
      keyWasQuoted = true;
      position = quoted.end;
    } else {
      const keyEnd = readName(line, position, isLabelNameChar);
      if (keyEnd === position) return invalid(`expected a label name at column ${position + 1}`);
      key = line.slice(position, keyEnd);
      position = keyEnd;
    }
    position = skipBlanks(line, position);
    const next = line.charCodeAt(position);
    if (next !== EQUALS) {
      // `{"my.metric", label="v"}`: a quoted metric name comes first, without `=`.
      if (keyWasQuoted && name === undefined && labels.size === 0 && (next === COMMA || next === CLOSE_BRACE)) {
        name = key;
        if (next === COMMA) position += 1;
        continue;
      }
      return invalid(`expected = after label ${key}`);
    }
    position = skipBlanks(line, position + 1);
    if (line.charCodeAt(position) !== QUOTE) return invalid(`expected a quoted value for label ${key}`);
    const value = readQuoted(line, position);
    if (value === undefined) return invalid(`unterminated value of label ${key}`);
    if (labels.has(key)) return invalid(`label ${key} given twice`);
    if (value.text.length > limits.labelValueChars) return invalid(labelTooLong(key, value.text.length, limits));
    if (labels.size === limits.labelsPerSeries) return invalid(tooManyLabels(limits));
    labels.set(key, value.text);
    position = skipBlanks(line, value.end);
    const separator = line.charCodeAt(position);
    if (separator === COMMA) {
      position += 1;
    } else if (separator !== CLOSE_BRACE) {
      return invalid(`expected , or } after label ${key}`);
    }
  }
}

/**
 * Where the label block opened at `open` ends (just after its `}`), found without parsing
 * it: the first `}` before `end` outside quotes. -1 for a block with a backslash (escapes
 * need the full scan) or without an end. Only a candidate: the block is parsed in full the
 * first time.
 */
function labelBlockEnd(line: string, open: number, end = line.length): number {
  let quoted = false;
  for (let position = open + 1; position < end; position += 1) {
    const code = line.charCodeAt(position);
    if (code === QUOTE) quoted = !quoted;
    else if (code === BACKSLASH) return -1;
    else if (code === CLOSE_BRACE && !quoted) return position + 1;
  }
  return -1;
}

/**
 * What LabelSetCache.scanSpan read from the line it accepted. One object serves every line
 * of an input, so that the common line of a large scrape leaves nothing behind: no line
 * string, no result object, no value text, no boxed number (only the two views its text
 * comparisons make, which die young).
 */
export class SampleSpan {
  /** The metric name: the cache's own copy, the same string for every line of one metric. */
  name = '';
  /** The line's interned label set (its series is `name` + `labelSet.text`). */
  labelSet: InternedLabels = NO_LABEL_SET;
  /** The value, exactly the number Number() reads from its text. */
  value = 0.5; // a fraction, so that the field holds doubles unboxed from the start
  /** Whether the line has a timestamp; `time` is its epoch ms, meaningless without one. */
  hasTime = false;
  time = 0.5;
}

/**
 * One label set as printed, checked once per input (see LabelSetCache). Only the text is
 * kept: its labels are parsed again when asked for. A caller reads them once per label set
 * (what they say about the device is its own to keep), and as a Map each set took a large
 * share of the parse's memory on a large federation (bench/MEASUREMENTS.md).
 */
export class InternedLabels {
  private parsed: Map<string, string> | undefined;

  constructor(
    /** 0, 1, 2, ... in order of first appearance in its cache: an index for the caller's own tables. */
    readonly id: number,
    /** The block as printed, braces included (a copy of the input's text), checked valid. */
    readonly text: string,
  ) {}

  /** Parsed from `text` on each call: a caller that keeps them keeps its own Map. */
  readLabels(): Map<string, string> {
    return (scanLabelBlock(this.text, 0, '', UNCAPPED_LABELS) as LabelBlock).labels;
  }

  /** The same, parsed once and shared by every line that asks: read, never change. */
  get labels(): Map<string, string> {
    this.parsed ??= this.readLabels();
    return this.parsed;
  }
}

const NO_LABEL_SET = new InternedLabels(-1, '{}');

/**
 * Label sets seen so far in one input, by their text as printed (`{gpu="0",UUID="GPU-..."}`).
 * A scrape prints the same label set once per metric and scrapes repeat it, so a 10,000-GPU
 * federation has 10,000 label sets in 200,000 lines per scrape: each is parsed once, later
 * lines only find their block's end and look it up. Exporters print series in the same order
 * for every metric and every scrape, so the label set that followed a set last time is tried
 * first, with one comparison of the text and no scan at all.
 *
 * The stored text and label strings are copies, so that nothing here holds on to the input
 * chunk a line was cut from. Memory grows with label sets, up to `capacity`; lines with label
 * sets beyond it are scanned in full.
 */
export class LabelSetCache {
  private readonly byText = new Map<string, InternedLabels>();
  /** By a label set's id: the label set of the line after the last line that printed it. */
  private readonly nextOf: (InternedLabels | undefined)[] = [];
  private last: InternedLabels | undefined;
  /** The metric name of the last sample line: most lines repeat the one before. */
  lastName: string | undefined;

  constructor(readonly limits: LabelLimits = DEFAULT_INPUT_LIMITS, private readonly capacity = DEFAULT_LABEL_SET_CAPACITY) {}

  get size(): number {
    return this.byText.size;
  }

  /** The interned label set whose block opens at `open` in `line`, or undefined where the line must be scanned in full. */
  find(line: string, open: number): InternedLabels | undefined {
    const found = this.lookUp(line, open, line.length);
    if (found !== undefined) this.follow(found);
    return found;
  }

  /**
   * Reads the line text[start, end) where it lies, without cutting it out, when it is the
   * line a large scrape is made of: `NAME{labels} VALUE` with an optional timestamp, the
   * name glued to a label block this
   * cache holds (or can intern), the value a plain decimal of at most 15 digits, the timestamp
   * whole milliseconds. Fills `into` with what scanExpositionLine(text.slice(start, end), this)
   * would give for the line, and leaves this cache as that call would. False for any other
   * line (blank, comment, other values, escapes, errors), with nothing changed that the full
   * scan would not change the same way (a new label set may be interned): the caller then
   * scans the line in full.
   */
  scanSpan(text: string, start: number, end: number, into: SampleSpan): boolean {
    const lastName = this.lastName;
    let name: string;
    let open: number;
    // Texts are compared as a slice and ===: the slice is a view, made and dropped in the young
    // generation, and the comparison a memcmp, many times faster than startsWith or a
    // charCodeAt loop on a chunk string.
    if (lastName !== undefined && start + lastName.length < end && text.charCodeAt(start + lastName.length) === OPEN_BRACE && text.slice(start, start + lastName.length) === lastName) {
      name = lastName;
      open = start + lastName.length;
    } else {
      open = readName(text, start, isMetricNameChar);
      if (open === start || open >= end || text.charCodeAt(open) !== OPEN_BRACE) return false;
      name = detached(text.slice(start, open));
    }

    const found = this.lookUp(text, open, end);
    if (found === undefined) return false;

    // As scanExpositionLine: blanks, the value up to the next blank, then an optional timestamp.
    const valueStart = skipBlanksBefore(text, open + found.text.length, end);
    let position = valueStart;
    let digits = 0;
    let mantissa = 0;
    let fractionDigits = -1;
    for (; position < end; position += 1) {
      const code = text.charCodeAt(position);
      if (isDigit(code)) {
        mantissa = mantissa * 10 + (code - 0x30);
        digits += 1;
        if (fractionDigits >= 0) fractionDigits += 1;
      } else if (code === 0x2e && fractionDigits < 0 && position > valueStart) {
        fractionDigits = 0;
      } else {
        break;
      }
    }
    if (digits === 0 || digits > MAX_EXACT_DIGITS) return false;
    const valueEnd = position;
    // Both operands exact, so the quotient is the correctly rounded decimal: what Number() gives.
    const value = fractionDigits > 0 ? mantissa / POWERS_OF_TEN[fractionDigits]! : mantissa;

    // What follows the value's digits, if anything, must be blanks and a timestamp: `1x`,
    // `1.2.3` or `1e3` stop at a character no timestamp starts with.
    position = skipBlanksBefore(text, valueEnd, end);
    let hasTime = false;
    let time = 0;
    if (position < end) {
      const timeStart = position;
      for (; position < end && isDigit(text.charCodeAt(position)); position += 1) time = time * 10 + (text.charCodeAt(position) - 0x30);
      const timeDigits = position - timeStart;
      if (timeDigits === 0 || timeDigits > MAX_EXACT_DIGITS || skipBlanksBefore(text, position, end) !== end) return false;
      hasTime = true;
    }

    this.follow(found);
    this.lastName = name;
    into.name = name;
    into.labelSet = found;
    into.value = value;
    into.hasTime = hasTime;
    if (hasTime) into.time = time;
    return true;
  }

  /**
   * The interned label set whose block opens at `open` in text[.., end): the one that followed
   * the last set last time, when the text there is its text, else found or interned by the
   * block's text. Undefined where the block must be scanned in full.
   */
  private lookUp(text: string, open: number, end: number): InternedLabels | undefined {
    const predicted = this.last === undefined ? undefined : this.nextOf[this.last.id];
    // The predicted text ends with its `}` and holds no backslash, so where it matches, the
    // line's block is exactly that text. (A slice compared with === is many times faster than
    // startsWith or a charCodeAt loop on a line that is itself a slice of the input chunk.)
    if (predicted !== undefined && open + predicted.text.length <= end && text.slice(open, open + predicted.text.length) === predicted.text) return predicted;
    const blockEnd = labelBlockEnd(text, open, end);
    if (blockEnd === -1) return undefined;
    const block = text.slice(open, blockEnd);
    return this.byText.get(block) ?? this.intern(block);
  }

  /** Records that `found` came after the last set, for the next prediction. */
  private follow(found: InternedLabels): void {
    if (this.last !== undefined) this.nextOf[this.last.id] = found;
    this.last = found;
  }

  /**
   * Parses and keeps the block `text`, a candidate from labelBlockEnd; undefined when it is
   * not one valid label block (the caller scans the line for the reason) or the cache is full.
   */
  private intern(text: string): InternedLabels | undefined {
    if (this.byText.size >= this.capacity) return undefined;
    const own = detached(text);
    const block = scanLabelBlock(own, 0, '', this.limits);
    if (!('labels' in block) || block.end !== own.length) return undefined;
    const interned = new InternedLabels(this.byText.size, own);
    this.byText.set(own, interned);
    this.nextOf.push(undefined);
    return interned;
  }
}

/** About 450 MB of label sets at dcgm-exporter's 20 labels (some 350 characters each); far more GPUs than any file holds. */
const DEFAULT_LABEL_SET_CAPACITY = 1 << 20;

/**
 * Scans one line. With a `cache`, a label block already seen in the input is looked up
 * instead of parsed, and the sample carries its interned label set (`labelSet`, whose
 * `labels` are the sample's). The result is the same with or without a cache.
 */
export function scanExpositionLine(line: string, cache?: LabelSetCache, limits: LabelLimits = cache?.limits ?? DEFAULT_INPUT_LIMITS): ExpositionLine {
  let position = skipBlanks(line, 0);
  if (position === line.length) return BLANK;
  if (line.charCodeAt(position) === HASH) return COMMENT;

  const seriesStart = position;
  let name: string | undefined;
  const lastName = cache?.lastName;
  if (lastName !== undefined && line.slice(position, position + lastName.length) === lastName && !isMetricNameChar(line.charCodeAt(position + lastName.length), false)) {
    name = lastName;
    position += lastName.length;
  } else {
    const nameEnd = readName(line, position, isMetricNameChar);
    if (nameEnd > position) name = line.slice(position, nameEnd);
    position = nameEnd;
  }
  /** A name read before the braces (not a quoted one inside them) is a prediction for the next line. */
  const nameBeforeBraces = name;

  let labels: Map<string, string>;
  let labelSet: InternedLabels | undefined;
  const brace = skipBlanks(line, position);
  if (line.charCodeAt(brace) === OPEN_BRACE) {
    // Only a block glued to a name is interned: the series text is then name + block.
    if (cache !== undefined && name !== undefined && brace === position) labelSet = cache.find(line, brace);
    if (labelSet !== undefined) {
      labels = labelSet.labels;
      position = brace + labelSet.text.length;
    } else {
      // Not interned (escapes, an invalid block, a full cache): scanned here, where an error
      // can name its column in the line.
      const block = scanLabelBlock(line, brace, name, limits);
      if (!('labels' in block)) return block;
      ({ labels, name, end: position } = block);
    }
  } else {
    labels = new Map();
  }
  if (name === undefined || name === '') return invalid('not a metric line');

  const valueStart = skipBlanks(line, position);
  if (valueStart === line.length) return invalid(`no value after ${name}`);
  // Without labels the name ends at a blank; anything else glued to it (`NAME,gauge`) is not a sample.
  if (valueStart === position && line.charCodeAt(position - 1) !== CLOSE_BRACE) return invalid('not a metric line');
  const valueEnd = readToken(line, valueStart);
  const value = line.slice(valueStart, valueEnd);
  if (value.length > MAX_NUMBER_LENGTH) return invalid(`value of ${name} is not a number: ${value.length} characters, more than ${MAX_NUMBER_LENGTH}`);
  if (!isPlainDecimal(value) && !FLOAT.test(value)) return invalid(`value ${value} of ${name} is not a number`);
  const timestampStart = skipBlanks(line, valueEnd);
  let time: number | undefined;
  if (timestampStart < line.length) {
    const timestampEnd = readToken(line, timestampStart);
    const timestamp = line.slice(timestampStart, timestampEnd);
    time = parseTimestamp(timestamp);
    if (time === undefined) return invalid(`timestamp ${timestamp} of ${name} is not a number`);
    if (skipBlanks(line, timestampEnd) !== line.length) return invalid(`unexpected text after the value of ${name}`);
  }
  const sample: ExpositionSample = { series: line.slice(seriesStart, position), name, labels, value, time };
  if (cache !== undefined && nameBeforeBraces !== undefined && nameBeforeBraces !== lastName) cache.lastName = detached(nameBeforeBraces);
  if (labelSet !== undefined) sample.labelSet = labelSet;
  return { kind: 'sample', sample };
}

/** What Go's ParseFloat accepts for a sample value: decimals, exponents, NaN and infinities; unambiguous, so linear. */
const FLOAT = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity)|nan)$/i;
const INTEGER = /^-?\d+$/;

/** Only ASCII digits (and at least one): the common timestamp, checked without a pattern. */
function isDigits(text: string): boolean {
  for (let position = 0; position < text.length; position += 1) {
    const code = text.charCodeAt(position);
    if (code < 0x30 || code > 0x39) return false;
  }
  return text.length > 0;
}
const DECIMAL = /^-?\d+\.\d*$/;

/**
 * Epoch milliseconds of a sample timestamp. The Prometheus text format prints integer
 * milliseconds; OpenMetrics prints seconds with a fraction (`1700000000.123`), told apart
 * by the decimal point. Undefined when the text is neither.
 */
function parseTimestamp(text: string): number | undefined {
  if (isDigits(text) || INTEGER.test(text)) return Number(text);
  if (DECIMAL.test(text)) return Math.round(Number(text) * 1000);
  return undefined;
}

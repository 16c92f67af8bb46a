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

export interface ExpositionSample {
  /** The name and labels exactly as printed: equal texts are the same series. */
  series: string;
  name: string;
  labels: Map<string, string>;
  /** The value as printed (`91`, `68.244000`, `NaN`); the field decides how to read it. */
  value: string;
  /** Epoch ms of the optional timestamp; undefined when the line has none. */
  time: number | undefined;
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
  while (position < line.length) {
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

function readToken(line: string, position: number): number {
  let end = position;
  while (end < line.length) {
    const code = line.charCodeAt(end);
    if (code === SPACE || code === TAB) break;
    end += 1;
  }
  return end;
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

export function scanExpositionLine(line: string): ExpositionLine {
  let position = skipBlanks(line, 0);
  if (position === line.length) return BLANK;
  if (line.charCodeAt(position) === HASH) return COMMENT;

  const seriesStart = position;
  let name: string | undefined;
  const nameEnd = readName(line, position, isMetricNameChar);
  if (nameEnd > position) name = line.slice(position, nameEnd);
  position = nameEnd;

  const labels = new Map<string, string>();
  const brace = skipBlanks(line, position);
  if (line.charCodeAt(brace) === OPEN_BRACE) {
    position = brace + 1;
    for (;;) {
      position = skipBlanks(line, position);
      if (line.charCodeAt(position) === CLOSE_BRACE) {
        position += 1;
        break;
      }
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
  if (name === undefined || name === '') return invalid('not a metric line');

  const valueStart = skipBlanks(line, position);
  if (valueStart === line.length) return invalid(`no value after ${name}`);
  // Without labels the name ends at a blank; anything else glued to it (`NAME,gauge`) is not a sample.
  if (valueStart === position && line.charCodeAt(position - 1) !== CLOSE_BRACE) return invalid('not a metric line');
  const valueEnd = readToken(line, valueStart);
  const value = line.slice(valueStart, valueEnd);
  if (!FLOAT.test(value)) return invalid(`value ${value} of ${name} is not a number`);
  const timestampStart = skipBlanks(line, valueEnd);
  let time: number | undefined;
  if (timestampStart < line.length) {
    const timestampEnd = readToken(line, timestampStart);
    const timestamp = line.slice(timestampStart, timestampEnd);
    time = parseTimestamp(timestamp);
    if (time === undefined) return invalid(`timestamp ${timestamp} of ${name} is not a number`);
    if (skipBlanks(line, timestampEnd) !== line.length) return invalid(`unexpected text after the value of ${name}`);
  }
  return { kind: 'sample', sample: { series: line.slice(seriesStart, position), name, labels, value, time } };
}

/** What Go's ParseFloat accepts for a sample value: decimals, exponents, NaN and infinities. */
const FLOAT = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity)|nan)$/i;
const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+\.\d*$/;

/**
 * Epoch milliseconds of a sample timestamp. The Prometheus text format prints integer
 * milliseconds; OpenMetrics prints seconds with a fraction (`1700000000.123`), told apart
 * by the decimal point. Undefined when the text is neither.
 */
function parseTimestamp(text: string): number | undefined {
  if (INTEGER.test(text)) return Number(text);
  if (DECIMAL.test(text)) return Math.round(Number(text) * 1000);
  return undefined;
}

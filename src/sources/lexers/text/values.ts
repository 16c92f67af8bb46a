/**
 * Reading single values as nvidia-smi prints them in its text outputs. These run for
 * every cell of every row of large logs, so they scan characters instead of using
 * regular expressions, and the few that need a pattern memoise their answers (a log
 * repeats the same handful of bus ids and device ids millions of times).
 */
import { detached } from '../../../support/index.js';
import { RingSlots } from './ring-slots.js';

const OPEN_BRACKET = 0x5b; // [
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * nvidia-smi's ways of saying "no value": any bracketed text (`[N/A]`, `[Not Supported]`,
 * `[Insufficient Permissions]`, `[Unknown Error]`, `[Requested functionality has been
 * deprecated]`, `[Function Not Found]` ...), a bare `N/A` (a few newer fields), or nothing.
 * A missing value is never read as 0.
 */
export function isMissingCell(cell: string): boolean {
  return cell.length === 0 || cell.charCodeAt(0) === OPEN_BRACKET || cell === 'N/A';
}

/** dmon and pmon print `-` where a column has no value. */
export function isMonitorDash(field: string): boolean {
  return field === '-';
}

/**
 * A plain decimal (`12`, `-3`, `433.78`), or NaN for anything else. Stricter than
 * Number(): no empty string as 0, no hex, no exponent, no surrounding space.
 */
export function parseDecimal(text: string): number {
  const length = text.length;
  const negative = length > 0 && text.charCodeAt(0) === MINUS;
  let position = negative ? 1 : 0;
  let digits = 0;
  let dots = 0;
  // Whole numbers, most of what nvidia-smi prints, are summed here; decimals go to Number().
  let whole = 0;
  for (; position < length; position += 1) {
    const code = text.charCodeAt(position);
    if (code >= ZERO && code <= NINE) {
      digits += 1;
      whole = whole * 10 + (code - ZERO);
    } else if (code === DOT && dots === 0) dots += 1;
    else return Number.NaN;
  }
  if (digits === 0) return Number.NaN;
  if (dots === 0 && digits <= 15) return negative ? -whole : whole;
  return Number(text);
}

/** A non-negative whole number (index, pid), or NaN. */
export function parseCount(text: string): number {
  const value = parseDecimal(text);
  // Past 2^53 a count is no longer exact (a damaged pid, `99999999999999999999999`): not a count (fuzz regression fixture).
  return Number.isSafeInteger(value) && value >= 0 ? value : Number.NaN;
}

/**
 * A CSV cell that may repeat its header's unit (`575 MiB` under `memory.used [MiB]`) or
 * not (`575`, from `--format=csv,nounits`). Returns undefined for a missing value and NaN
 * for text that is not a number in that unit: the caller turns NaN into a warning.
 * Where the header names no unit, any printed unit is accepted.
 */
export function parseQuantity(cell: string, unit: string | undefined): number | undefined {
  if (isMissingCell(cell)) return undefined;
  const space = cell.indexOf(' ');
  if (space === -1) return parseDecimal(cell);
  if (unit !== undefined && cell.slice(space + 1).trim() !== unit) return Number.NaN;
  return parseDecimal(cell.slice(0, space));
}

/** Keeps the answers of a pure string function; bounded so that odd input cannot grow it forever. */
function memoised(compute: (text: string) => string | undefined, limit = 4096): (text: string) => string | undefined {
  const answers = new Map<string, string | undefined>();
  return (text) => {
    if (answers.has(text)) return answers.get(text);
    const answer = compute(text);
    if (answers.size >= limit) answers.clear();
    answers.set(text, answer);
    return answer;
  };
}

const PCI_BUS_ID = /^(?:([0-9a-f]{1,8}):)?([0-9a-f]{1,2}):([0-9a-f]{1,2})\.([0-7])$/i;

/**
 * `00000000:0C:00.0` as DeviceRef wants it: 8-digit domain, upper-case hex. Older drivers
 * print a 4-digit domain (`0000:04:00.0`) and some tools none (`04:00.0`); all three name
 * the same device. Undefined when the text is not a bus id.
 */
export const normalisePciBusId = memoised((text) => {
  const match = PCI_BUS_ID.exec(text);
  if (match === null) return undefined;
  const [, domain = '0', bus = '', device = '', fn = ''] = match;
  return `${domain.padStart(8, '0')}:${bus.padStart(2, '0')}:${device.padStart(2, '0')}.${fn}`.toUpperCase();
});

const PCI_DEVICE_ID = /^(?:0x)?([0-9a-f]{1,8})$/i;

/**
 * `0x233010DE` (CSV) and `233010DE` (XML) name the same board; DeviceInfo keeps the XML
 * spelling (8 upper-case hex digits, no prefix) so the GPU catalog needs one key.
 */
export const normalisePciDeviceId = memoised((text) => {
  const match = PCI_DEVICE_ID.exec(text);
  return match === null ? undefined : match[1]!.padStart(8, '0').toUpperCase();
});

/*
 * Span readers: the same answers as the functions above for the cell text[start, end),
 * without slicing it out. Long logs repeat a handful of shapes (`81559 MiB`, `69.00 W`,
 * `0`), which these read in place; anything else is sliced and handed to the general
 * function, so the two paths cannot disagree.
 */

const SPACE = 0x20;
const UPPER_N = 0x4e;

/**
 * Most significant digits read by hand: below 10^15 every such integer is exact as a double,
 * and so is every power of ten up to it.
 */
export const MAX_EXACT_DIGITS = 15;
/** 10^0 .. 10^15, all exact doubles. */
export const POWERS_OF_TEN = Array.from({ length: MAX_EXACT_DIGITS + 1 }, (_, exponent) => 10 ** exponent);

/** isMissingCell for text[start, end). */
export function isMissingSpan(text: string, start: number, end: number): boolean {
  if (start === end) return true;
  const first = text.charCodeAt(start);
  return first === OPEN_BRACKET || (first === UPPER_N && end - start === 3 && text.startsWith('N/A', start));
}

/**
 * parseQuantity for text[start, end). A decimal of at most 15 digits is m / 10^k with m and
 * 10^k exact doubles, and IEEE division rounds that quotient correctly, which is exactly what
 * Number() does with the same text (the fast path of correctly rounded parsing).
 */
export function parseQuantitySpan(text: string, start: number, end: number, unit: string | undefined): number | undefined {
  if (start === end || text.charCodeAt(start) === OPEN_BRACKET) return undefined;
  let position = start;
  const negative = text.charCodeAt(position) === MINUS;
  if (negative) position += 1;
  let whole = 0;
  let digits = 0;
  let fractionDigits = -1; // -1: no dot yet
  for (; position < end; position += 1) {
    const code = text.charCodeAt(position);
    if (code >= ZERO && code <= NINE) {
      whole = whole * 10 + (code - ZERO);
      digits += 1;
      if (fractionDigits >= 0) fractionDigits += 1;
    } else if (code === DOT && fractionDigits < 0) fractionDigits = 0;
    else break;
  }
  const plain = position === end
    || (text.charCodeAt(position) === SPACE && (unit === undefined || isTextAt(text, position + 1, end, unit)));
  if (!plain || digits === 0 || digits > MAX_EXACT_DIGITS) return parseQuantity(text.slice(start, end), unit);
  const magnitude = fractionDigits <= 0 ? whole : whole / POWERS_OF_TEN[fractionDigits]!;
  return negative ? -magnitude : magnitude;
}

/**
 * Whether text[start, end) is exactly `expected`. A loop, not startsWith: for the short
 * units and prefixes compared here on every row, the call costs more than the characters.
 */
export function isTextAt(text: string, start: number, end: number, expected: string): boolean {
  const length = expected.length;
  if (end - start !== length) return false;
  for (let offset = 0; offset < length; offset += 1) {
    if (text.charCodeAt(start + offset) !== expected.charCodeAt(offset)) return false;
  }
  return true;
}

/** parseCount for text[start, end): digits only, else the general path. */
export function parseCountSpan(text: string, start: number, end: number): number {
  let value = 0;
  if (end - start > MAX_EXACT_DIGITS || start === end) return parseCount(text.slice(start, end));
  for (let position = start; position < end; position += 1) {
    const code = text.charCodeAt(position);
    if (code < ZERO || code > NINE) return parseCount(text.slice(start, end));
    value = value * 10 + (code - ZERO);
  }
  return value;
}

/**
 * Remembers what a function gave for the last few distinct cell texts of one column, so a
 * log that repeats the same GPU names, UUIDs and bus ids on every row compares a cell with
 * what it held before instead of keeping a string per cell. Comparing `substring(...) ===` is
 * several times faster than `startsWith(key, start)` in V8 (a native compare against the
 * slice, which costs a small allocation and no copy). Which entry is compared first and which
 * one a new cell replaces: RingSlots.
 */
export class SpanCache<Value> {
  private readonly keys: string[] = [];
  private readonly values: Value[] = [];
  private readonly ring: RingSlots;

  constructor(
    private readonly compute: (text: string) => Value,
    capacity = 32,
  ) {
    this.ring = new RingSlots(capacity);
  }

  get(text: string, start: number, end: number): Value {
    const { keys, ring } = this;
    const length = end - start;
    for (let slot = ring.firstProbe(); slot !== -1; slot = ring.nextProbe(slot)) {
      const key = keys[slot]!;
      if (key.length === length && text.substring(start, end) === key) {
        ring.hit(slot);
        return this.values[slot]!;
      }
    }
    // Detached: a kept slice would hold the whole chunk it was cut from.
    const key = detached(text.slice(start, end));
    const value = this.compute(key);
    const slot = ring.store();
    keys[slot] = key;
    this.values[slot] = value;
    return value;
  }
}

const COMMA = 0x2c;

/**
 * Whether text[at] starts the ", " that ends a cell of the line ending at lineEnd (both
 * characters inside the line).
 */
export function isSeparatorAt(text: string, at: number, lineEnd: number): boolean {
  return at + 1 < lineEnd && text.charCodeAt(at) === COMMA && text.charCodeAt(at + 1) === SPACE;
}

/**
 * parseQuantitySpan fused with the search for the cell's end, for the row loop of long logs:
 * one pass over `81559 MiB, ` reads the number, checks the unit and finds the ", " after it.
 * It accepts only the plain shape (a decimal of at most 15 digits, then nothing or one space
 * and exactly `unit`, then ", " or the line end), for which the cell is the same text however
 * it is cut and trimmed, and parseQuantitySpan gives the same value by the same arithmetic;
 * everything else (missing values, odd spacing, other units) is left to the general path.
 * The header's unit must be one isPlainUnit accepts. An object rather than a function: the
 * answer is two numbers (the cell end, returned, and the value, kept), with no allocation.
 */
export class QuantityCells {
  /** The value of the cell `read` last accepted. */
  value = 0;

  /**
   * Where the cell starting at `start` ends (the position of its ", ", or lineEnd) when it
   * has the plain shape, with its value in `value`; -1 otherwise. `unit`: the character codes
   * of the header's unit (see unitCodes), empty where it has none. Each character is read
   * once: charCodeAt is most of the cost.
   */
  read(text: string, start: number, lineEnd: number, unit: Uint16Array): number {
    let position = start;
    let code = position < lineEnd ? text.charCodeAt(position) : -1;
    const negative = code === MINUS;
    if (negative) {
      position += 1;
      code = position < lineEnd ? text.charCodeAt(position) : -1;
    }
    let whole = 0;
    let digits = 0;
    let fractionDigits = -1; // -1: no dot yet
    for (;;) {
      if (code >= ZERO && code <= NINE) {
        whole = whole * 10 + (code - ZERO);
        digits += 1;
        if (fractionDigits >= 0) fractionDigits += 1;
      } else if (code === DOT && fractionDigits < 0) fractionDigits = 0;
      else break;
      position += 1;
      code = position < lineEnd ? text.charCodeAt(position) : -1;
    }
    if (digits === 0 || digits > MAX_EXACT_DIGITS) return -1;
    const unitLength = unit.length;
    if (code === SPACE && unitLength > 0) {
      const unitStart = position + 1;
      if (unitStart + unitLength > lineEnd) return -1;
      for (let offset = 0; offset < unitLength; offset += 1) {
        if (text.charCodeAt(unitStart + offset) !== unit[offset]) return -1;
      }
      position = unitStart + unitLength;
      code = position < lineEnd ? text.charCodeAt(position) : -1;
    }
    if (position !== lineEnd && !(code === COMMA && position + 1 < lineEnd && text.charCodeAt(position + 1) === SPACE)) return -1;
    const magnitude = fractionDigits <= 0 ? whole : whole / POWERS_OF_TEN[fractionDigits]!;
    this.value = negative ? -magnitude : magnitude;
    return position;
  }
}

/** The `unit` argument of QuantityCells.read for a header's unit (none: empty). */
export function unitCodes(unit: string | undefined): Uint16Array {
  return Uint16Array.from(unit ?? '', (character) => character.charCodeAt(0));
}

/**
 * Whether QuantityCells can read cells under this header unit: none, or one that neither
 * starts nor ends with a space (the general path trims cells, not units) nor holds a comma
 * (which could make it end in a separator).
 */
export function isPlainUnit(unit: string | undefined): boolean {
  return unit === undefined || (unit.length > 0 && !unit.includes(',') && unit.trim() === unit);
}

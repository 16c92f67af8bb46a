/**
 * Reading one DCGM value as text (exposition, Prometheus JSON and dcgmi all print text)
 * into the unit of the reading it feeds.
 *
 * DCGM says "no value" with sentinels at the top of each storage type (dcgm_structs.h):
 *   DCGM_INT64_BLANK 0x7ffffffffffffff0 (2^63 - 16), and NOT_FOUND / NOT_SUPPORTED /
 *     NOT_PERMISSIONED at +1..+3 (dcgm-exporter's README shows 9223372036854775794);
 *   DCGM_INT32_BLANK 0x7ffffff0 (2147483632), +1..+3 likewise;
 *   DCGM_FP64_BLANK 140737488355328.0 (2^47), and DCGM_FP64_IS_BLANK(v) is v >= 2^47.
 * A sentinel is a missing value, never a number: an idle GPU must not show 9.2e18 %.
 */
import { judgeValue, SAMPLE_DOMAINS, type DomainField } from '../../model/index.js';
import type { DcgmField, DcgmValueType, ReadingKey } from './fields.js';

/** The domain each reading lies in (model/sample-domains.ts); power has none but >= 0. */
const READING_DOMAINS: Readonly<Record<ReadingKey, DomainField | undefined>> = {
  utilizationPct: 'utilizationPct',
  memoryUtilizationPct: 'memoryUtilizationPct',
  memoryUsedMiB: 'memoryUsedMiB',
  powerW: undefined,
  grEngineActivePct: 'grEngineActivePct',
  smActivePct: 'smActivePct',
  tensorActivePct: 'tensorActivePct',
  pcieRxKiBps: 'pcieRxKiBps',
  pcieTxKiBps: 'pcieTxKiBps',
  framebufferTotalMiB: 'memoryTotalMiB',
  framebufferFreeMiB: 'memoryTotalMiB',
  framebufferReservedMiB: 'memoryTotalMiB',
};

/**
 * Integer blanks are anything at or above 2^63 - 1000. As a double that bound rounds to
 * 2^63 - 1024 (doubles are 1024 apart there); the four sentinels all parse to 2^63, and
 * no figure a GPU reports comes within a few thousand of 2^63, so the comparison is exact
 * for every value that matters.
 */
const INT64_BLANK_FLOOR = 2 ** 63 - 1000;
const INT32_BLANK = 0x7ffffff0;
const INT32_BLANK_LAST = INT32_BLANK + 3;
const FP64_BLANK = 140_737_488_355_328;

/**
 * True for DCGM's "blank" sentinels. The four int32 sentinels are matched exactly (not
 * "2147483632 and above", which would hide real PCIe rates above 2 GB/s); a real reading
 * of exactly one of those four byte rates is the price of catching them elsewhere.
 */
export function isDcgmBlank(value: number, valueType: DcgmValueType): boolean {
  if (value >= INT64_BLANK_FLOOR) return true;
  if (value >= INT32_BLANK && value <= INT32_BLANK_LAST && Number.isInteger(value)) return true;
  return valueType === 'fp64' && value >= FP64_BLANK;
}

/**
 * `91`, `68.244000`: digits with an optional fraction, what exporters print for nearly every
 * value. Checked by hand before the general patterns, which it is a subset of, because a
 * large scrape has millions of values.
 */
export function isPlainDecimal(text: string): boolean {
  let point = false;
  for (let position = 0; position < text.length; position += 1) {
    const code = text.charCodeAt(position);
    if (code >= 0x30 && code <= 0x39) continue;
    if (code !== 0x2e || point || position === 0) return false;
    point = true;
  }
  return text.length > 0;
}

/** Decimal with optional fraction and exponent (Go's %g in federation output uses one); one way to match any text, so linear. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Longer than this, a number token is not one a GPU reading needs (a float64 prints in 24). */
export const MAX_NUMBER_LENGTH = 64;

/** Texts that mean "no value here": dcgmi's `N/A`, DCGM's string blank, an empty cell. */
const NO_VALUE = new Set(['', 'N/A', '<<<NULL>>>']);
/** Prometheus' NaN (no value) and infinities (no reading a GPU can give), any case. */
const NOT_FINITE = /^(?:[+-]?(?:inf|infinity)|nan)$/i;

/**
 * The value in the reading's unit; undefined when the source says there is none (a
 * sentinel, NaN, N/A); NaN when the text is not a number this field can hold (the caller
 * warns). No field gpu-audit reads can be negative.
 */
export function readDcgmValue(text: string, field: DcgmField): number | undefined {
  const plain = plainDecimalValue(text);
  if (!Number.isNaN(plain)) return dcgmReading(plain, field);
  if (NO_VALUE.has(text) || NOT_FINITE.test(text)) return undefined;
  if (text.length > MAX_NUMBER_LENGTH || !NUMBER.test(text)) return Number.NaN;
  return dcgmReading(Number(text), field);
}

/**
 * The value of a plain decimal (isPlainDecimal), NaN for any other text. Whole numbers of up to
 * 15 digits are summed exactly here; a fraction or a longer number goes to Number().
 */
function plainDecimalValue(text: string): number {
  const length = text.length;
  let whole = 0;
  let point = false;
  for (let position = 0; position < length; position += 1) {
    const code = text.charCodeAt(position);
    if (code >= 0x30 && code <= 0x39) whole = whole * 10 + (code - 0x30);
    else if (code !== 0x2e || point || position === 0) return Number.NaN;
    else point = true;
  }
  if (length === 0) return Number.NaN;
  return point || length > 15 ? Number(text) : whole;
}

/**
 * readDcgmValue for a value already read as a number: undefined for a sentinel (DCGM's or
 * NVML's), NaN for one outside the reading's domain (negative, or a utilization of 150 %).
 */
export function dcgmReading(value: number, field: DcgmField): number | undefined {
  if (isDcgmBlank(value, field.valueType)) return undefined;
  const reading = value * field.scale;
  const domain = READING_DOMAINS[field.reading];
  if (domain === undefined) return value < 0 ? Number.NaN : reading;
  const verdict = judgeValue(domain, reading);
  return verdict === 'in' ? reading : verdict === 'none' ? undefined : Number.NaN;
}

/** Why readDcgmValue gave NaN for `text`, after `name value text`: outside the domain, or no number. */
export function dcgmValueProblem(text: string, field: DcgmField): string {
  const number = text.length > MAX_NUMBER_LENGTH || !NUMBER.test(text) ? Number.NaN : Number(text);
  const domain = READING_DOMAINS[field.reading];
  if (Number.isNaN(number)) return 'is not a reading of this field; left out';
  if (domain === undefined) return 'is negative; value left out';
  const { range, unit } = SAMPLE_DOMAINS[domain];
  const scaled = field.scale === 1 ? '' : `(${Number((number * field.scale).toPrecision(6))} ${unit}) `;
  return `${scaled}is outside ${range}; value left out`;
}

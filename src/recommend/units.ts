/** Rounding and money wording shared by the recommenders (figures stay numbers in evidence). */
import { enUsNumberFormat } from '../support/index.js';

/** Two decimals: money in cents, other figures as shown. Rounded once, where a figure is made. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** `$1,234`, `$12.50`, `$0.0096`: whole dollars from $1,000, cents from $1, four decimals below (per-1,000 costs). */
export function money(value: number): string {
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 1 || value === 0 ? 2 : 4;
  return `$${fixedEnUs(value, digits)}`;
}

/**
 * `new Intl.NumberFormat('en-US', { minimum/maximumFractionDigits: digits }).format(value)`,
 * without ICU: a 10,000-GPU fleet's recommendations format tens of thousands of prices, and
 * the formatter's calls were a tenth of a second. ICU rounds the shortest decimal that reads
 * back as the number (what String(value) writes), half away from zero, so 1.005 gives 1.01
 * where toFixed gives 1.00; this does the same on String(value)'s digits. Numbers String
 * writes with an exponent, and NaN and the infinities, go to the formatter itself.
 */
export function fixedEnUs(value: number, digits: number): string {
  const shortest = String(Math.abs(value));
  if (!Number.isFinite(value) || shortest.includes('e')) return enUsNumberFormat(digits, digits).format(value);
  const point = shortest.indexOf('.');
  let whole = point === -1 ? shortest : shortest.slice(0, point);
  let fraction = point === -1 ? '' : shortest.slice(point + 1);
  if (fraction.length > digits) {
    // Half away from zero: the first dropped digit decides, whatever follows it.
    const roundUp = fraction.charCodeAt(digits) >= 53; // '5'
    fraction = fraction.slice(0, digits);
    if (roundUp) [whole, fraction] = incremented(whole, fraction);
  } else {
    fraction = fraction.padEnd(digits, '0');
  }
  // ICU writes the sign of every negative number, negative zero and what rounds to zero included.
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  return `${sign}${grouped(whole)}${digits > 0 ? `.${fraction}` : ''}`;
}

/** whole.fraction plus one unit in the last place of fraction, as decimal strings. */
function incremented(whole: string, fraction: string): [string, string] {
  const digits = `${whole}${fraction}`.split('');
  let index = digits.length - 1;
  while (index >= 0 && digits[index] === '9') {
    digits[index] = '0';
    index -= 1;
  }
  if (index < 0) digits.unshift('1');
  else digits[index] = String(Number(digits[index]) + 1);
  const joined = digits.join('');
  return [joined.slice(0, joined.length - fraction.length), joined.slice(joined.length - fraction.length)];
}

/** Thousands separated by commas: `1234567` -> `1,234,567`. */
function grouped(whole: string): string {
  if (whole.length <= 3) return whole;
  const head = whole.length % 3 || 3;
  let text = whole.slice(0, head);
  for (let start = head; start < whole.length; start += 3) text += `,${whole.slice(start, start + 3)}`;
  return text;
}

export function percent(fraction: number, digits = 0): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

/** Rounding and money wording shared by the recommenders (figures stay numbers in evidence). */

/** Two decimals: money in cents, other figures as shown. Rounded once, where a figure is made. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** `$1,234`, `$12.50`, `$0.0096`: whole dollars from $1,000, cents from $1, four decimals below (per-1,000 costs). */
export function money(value: number): string {
  const format = Math.abs(value) >= 1000 ? WHOLE_DOLLARS : Math.abs(value) >= 1 || value === 0 ? CENTS : FOUR_DECIMALS;
  return `$${format.format(value)}`;
}

/**
 * What `value.toLocaleString('en-US', { minimum/maximumFractionDigits })` formats with, made
 * once: toLocaleString builds a new formatter per call, which for a 10,000-GPU fleet's
 * recommendations cost a third of a second.
 */
const dollarFormat = (digits: number): Intl.NumberFormat => new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const WHOLE_DOLLARS = dollarFormat(0);
const CENTS = dollarFormat(2);
const FOUR_DECIMALS = dollarFormat(4);

export function percent(fraction: number, digits = 0): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

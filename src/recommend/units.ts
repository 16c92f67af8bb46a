/** Rounding and money wording shared by the recommenders (figures stay numbers in evidence). */

/** Two decimals: money in cents, other figures as shown. Rounded once, where a figure is made. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** `$1,234`, `$12.50`, `$0.0096`: whole dollars from $1,000, cents from $1, four decimals below (per-1,000 costs). */
export function money(value: number): string {
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 1 || value === 0 ? 2 : 4;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

export function percent(fraction: number, digits = 0): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

/** Units every figure is stated in (DESIGN.md section 5). */

/** A "monthly" figure is this many hours. */
export const HOURS_PER_MONTH = 730;

export const MS_PER_HOUR = 3_600_000;

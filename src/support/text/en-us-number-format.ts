/**
 * en-US number formatters (`,` thousands, `.` decimals, whatever the machine's locale), made
 * once per pair of fraction-digit bounds: building an Intl.NumberFormat costs far more than a
 * format call, and `toLocaleString` builds one per call. Here rather than in a layer because
 * recommend/ (money in sentences) and report/ (figures on screen) both format numbers and
 * neither may import the other's helpers (DESIGN.md section 1: report/ is right of recommend/).
 */

const FORMATS = new Map<number, Intl.NumberFormat>();

/**
 * `new Intl.NumberFormat('en-US', { minimumFractionDigits, maximumFractionDigits })`, made on
 * first use. Bounds are whole numbers Intl accepts (0-20, or 0-100 on newer engines, minimum
 * <= maximum); others throw the constructor's RangeError.
 */
export function enUsNumberFormat(minimumFractionDigits: number, maximumFractionDigits: number): Intl.NumberFormat {
  // One number per pair: both bounds are below 128 wherever the constructor accepts them.
  const key = maximumFractionDigits * 128 + minimumFractionDigits;
  let format = FORMATS.get(key);
  if (format === undefined) {
    format = new Intl.NumberFormat('en-US', { minimumFractionDigits, maximumFractionDigits });
    FORMATS.set(key, format);
  }
  return format;
}

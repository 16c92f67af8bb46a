/**
 * How figures look in human-readable output. Rounding and unit scaling for display
 * are the only arithmetic a renderer does; every figure itself comes from the Report.
 * A missing figure (null, or a non-finite number) prints as `-`, never as 0 or NaN.
 */

import type { Finding, FleetSummary, GpuEntry, PcieLink, ReportWindow } from '../model/index.js';
import { enUsNumberFormat } from '../support/index.js';

export const MISSING = '-';

export type MaybeNumber = number | null | undefined;

export const MIB_PER_GIB = 1024;
const SECONDS_PER_MINUTE = 60;
const SECONDS_PER_HOUR = 3600;
const SECONDS_PER_DAY = 86_400;
/** Windows up to three days read best in hours; longer ones in days. */
const LONGEST_WINDOW_IN_HOURS_S = 72 * SECONDS_PER_HOUR;

function isPresent(value: MaybeNumber): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** MiB as GiB, for display. */
export function mibAsGib(mib: MaybeNumber): number | null {
  return isPresent(mib) ? mib / MIB_PER_GIB : null;
}

/** A 0-1 fraction as a percentage, for display. */
export function fractionAsPercent(fraction: MaybeNumber): number | null {
  return isPresent(fraction) ? fraction * 100 : null;
}

/**
 * Fixed decimals, `,` thousands grouping (en-US, whatever the machine's locale), `-` when
 * missing. `null` digits prints a setting as given (up to 3 decimals): `5`, `2.5`.
 */
export function formatNumber(value: MaybeNumber, fractionDigits: number | null): string {
  if (!isPresent(value)) return MISSING;
  const format = fractionDigits === null ? enUsNumberFormat(0, 3) : enUsNumberFormat(fractionDigits, fractionDigits);
  const text = format.format(value);
  // -0.04 rounds to "-0.0": the sign of a rounded zero carries no information.
  return /^-0(?:\.0+)?$/u.test(text) ? text.slice(1) : text;
}

export function formatCount(value: MaybeNumber): string {
  return formatNumber(value, 0);
}

/** `1 record`, `1,440 records`. */
export function formatQuantity(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : plural}`;
}

/** `41.7%`; `null` digits for a setting printed as given (`2.5%`). */
export function formatPercent(value: MaybeNumber, fractionDigits: number | null = 1): string {
  const text = formatNumber(value, fractionDigits);
  return text === MISSING ? MISSING : `${text}%`;
}

/** `$18,678` or `$12.29`; a negative amount prints as `-$5`. */
export function formatUsd(value: MaybeNumber, fractionDigits: number): string {
  if (!isPresent(value)) return MISSING;
  const text = formatNumber(Math.abs(value), fractionDigits);
  return value < 0 && /[1-9]/u.test(text) ? `-$${text}` : `$${text}`;
}

/** `72.0 h`. */
export function formatHours(value: MaybeNumber, fractionDigits = 1): string {
  const text = formatNumber(value, fractionDigits);
  return text === MISSING ? MISSING : `${text} h`;
}

/** `2.0 GiB` from MiB. */
export function formatGib(mib: MaybeNumber, fractionDigits = 1): string {
  const text = formatNumber(mibAsGib(mib), fractionDigits);
  return text === MISSING ? MISSING : `${text} GiB`;
}

/** Process memory: `512 MiB` below a GiB (where one decimal of GiB would read 0.5 or 0.0), `72.0 GiB` above. */
export function formatMemory(mib: MaybeNumber): string {
  if (!isPresent(mib)) return MISSING;
  return Math.abs(mib) < MIB_PER_GIB ? `${formatNumber(mib, 0)} MiB` : formatGib(mib, 1);
}

/** A PCIe link as its generation and lane count, `Gen4 x16`; `-` when not reported. */
export function formatPcieLink(link: PcieLink | null | undefined): string {
  return link === null || link === undefined ? MISSING : `Gen${formatNumber(link.generation, null)} x${formatNumber(link.width, null)}`;
}

/** Whether any GPU reports PCIe traffic or its link: the PCIe tables are left out otherwise (older JSON reports have neither field). */
export function hasPcieFigures(gpus: readonly GpuEntry[]): boolean {
  return gpus.some((gpu) => (gpu.pcieRxMiBps ?? null) !== null || (gpu.pcieTxMiBps ?? null) !== null || (gpu.pcieLink ?? null) !== null);
}

/** A window length in the unit a reader thinks in: `45 s`, `20 min`, `24.0 h`, `14.0 d`. */
export function formatDuration(seconds: MaybeNumber): string {
  if (!isPresent(seconds)) return MISSING;
  if (seconds < SECONDS_PER_MINUTE) return `${formatNumber(seconds, 0)} s`;
  if (seconds < SECONDS_PER_HOUR) return `${formatNumber(seconds / SECONDS_PER_MINUTE, 0)} min`;
  if (seconds <= LONGEST_WINDOW_IN_HOURS_S) return `${formatNumber(seconds / SECONDS_PER_HOUR, 1)} h`;
  return `${formatNumber(seconds / SECONDS_PER_DAY, 1)} d`;
}

/** The report's zone if the runtime knows it, else UTC (a zone name is input, and may be anything). */
export function displayTimeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/** `2024-05-01 02:00:00` in the given zone (pass it through displayTimeZone first); `-` when missing. */
export function formatInstant(iso: string | null, timeZone: string): string {
  if (iso === null) return MISSING;
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return MISSING;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`;
}

/**
 * `2024-05-01 02:00:00 → 2024-05-02 02:00:00 Europe/Berlin (24.0 h)`, or
 * `snapshot at …` for a window without duration (a lone snapshot has no length).
 */
export function formatWindow(window: ReportWindow): string {
  const zone = displayTimeZone(window.timezone);
  const start = formatInstant(window.start, zone);
  const end = formatInstant(window.end, zone);
  if (window.start === null && window.end === null) return 'no timestamped samples';
  if (window.seconds === 0) return `snapshot at ${window.end === null ? start : end} ${zone} (no duration)`;
  return `${start} → ${end} ${zone} (${formatDuration(window.seconds)})`;
}

/** How the fleet mean was taken (DESIGN.md section 5): by GPU-hours, or over point readings when no time was observed. */
export function meanUtilizationBasis(summary: FleetSummary): string {
  return summary.gpuHours > 0 ? '(GPU-hour weighted)' : '(mean of point readings)';
}

/** The fleet mean compute with the signal it was read on: `46.9% on mixed basis (GPU-hour weighted)`; `-` when none. */
export function meanComputeText(summary: FleetSummary): string {
  if (summary.meanComputePct === null) return MISSING;
  return `${formatPercent(summary.meanComputePct)} on ${summary.computeBasis} basis ${meanUtilizationBasis(summary)}`;
}

/** `key=value; key=value`, numbers rounded for reading (at most 3 decimals); the JSON report keeps them whole. */
export function describeEvidence(evidence: Finding['evidence']): string {
  const entries = Object.entries(evidence);
  const shown = (value: Finding['evidence'][string]): string => (value === null ? 'null' : typeof value === 'number' ? formatNumber(value, null) : String(value));
  return entries.length === 0 ? MISSING : entries.map(([key, value]) => `${key}=${shown(value)}`).join('; ');
}

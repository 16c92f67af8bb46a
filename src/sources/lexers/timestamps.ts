/**
 * nvidia-smi prints local wall-clock times without a zone. We read them in an
 * explicit IANA zone so that logs from hosts in several zones line up, and the report
 * says which zone was assumed.
 */
import { MS_PER_HOUR } from '../../model/index.js';

const MONTHS: Record<string, number> = {
  Jan: 1, Feb: 2, Mar: 3, Apr: 4, May: 5, Jun: 6, Jul: 7, Aug: 8, Sep: 9, Oct: 10, Nov: 11, Dec: 12,
};

const formatterCache = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatterCache.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatterCache.set(timeZone, formatter);
  }
  return formatter;
}

/** Offset of `timeZone` from UTC at the instant `epochMs`, in milliseconds. */
function zoneOffsetMs(epochMs: number, timeZone: string): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(epochMs));
  const get = (type: string): number => Number(parts.find((part) => part.type === type)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/** True when `timeZone` is an IANA zone name this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Offsets change at most at whole quarter hours, so one lookup per zone and wall-clock hour is enough. */
const offsetCache = new Map<string, number>();

/** Every zone's offset changes at most once within this distance of any instant (DST twice a year). */
const HALF_DAY_MS = 12 * MS_PER_HOUR;

/**
 * Epoch ms of a wall-clock time in `timeZone`. Where a DST change makes the wall clock
 * ambiguous (the repeated hour in autumn), the earlier instant is taken; where it makes it
 * impossible (the skipped hour in spring, which a clock never shows), the time is read with the
 * offset from before the change, as if the clock had not been moved yet. Both are the default
 * of Temporal and java.time ("compatible").
 */
export function wallClockToEpochMs(
  year: number, month: number, day: number, hour: number, minute: number, second: number, millisecond: number,
  timeZone: string,
): number {
  const naive = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  const hourStart = naive - (naive % MS_PER_HOUR);
  const key = `${timeZone}|${hourStart}`;
  let hourEpoch = offsetCache.get(key);
  if (hourEpoch === undefined) {
    hourEpoch = hourStartEpochMs(hourStart, timeZone);
    if (offsetCache.size > 100_000) offsetCache.clear();
    offsetCache.set(key, hourEpoch);
  }
  return hourEpoch + (naive - hourStart);
}

/**
 * The instant of the wall-clock hour `wallHour` (its fields read as UTC): the offsets half a day
 * before and after are the only ones in force around it; an instant fits when the zone's clock
 * shows `wallHour` at it.
 */
function hourStartEpochMs(wallHour: number, timeZone: string): number {
  const before = wallHour - zoneOffsetMs(wallHour - HALF_DAY_MS, timeZone);
  const after = wallHour - zoneOffsetMs(wallHour + HALF_DAY_MS, timeZone);
  const fits = (instant: number): boolean => instant + zoneOffsetMs(instant, timeZone) === wallHour;
  if (fits(before) && fits(after)) return Math.min(before, after);
  if (fits(after)) return after;
  return before;
}

const ASCTIME = /^\s*(?:[A-Z][a-z]{2}\s+)?([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?\s+(\d{4})\s*$/;
const NUMERIC = /^\s*(\d{4})[/-](\d{1,2})[/-](\d{1,2})[ T](\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?\s*$/;

/**
 * Parses `Fri Jan 27 11:32:31 2023` (XML, asctime) and `2026/07/14 09:00:44.579` (CSV).
 * Returns undefined for anything else: the caller decides whether that is a warning.
 */
export function parseLocalTimestamp(text: string, timeZone: string): number | undefined {
  let match = ASCTIME.exec(text);
  if (match !== null) {
    const month = MONTHS[match[1]!];
    if (month === undefined) return undefined;
    const ms = match[6] === undefined ? 0 : Number(match[6].padEnd(3, '0'));
    return checked(Number(match[7]), month, Number(match[2]), Number(match[3]), Number(match[4]), Number(match[5]), ms, timeZone);
  }
  match = NUMERIC.exec(text);
  if (match !== null) {
    const ms = match[7] === undefined ? 0 : Number(match[7].slice(0, 3).padEnd(3, '0'));
    return checked(Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6]), ms, timeZone);
  }
  return undefined;
}

function checked(
  year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number, timeZone: string,
): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCDate() !== day) return undefined; // 31 February and the like
  return wallClockToEpochMs(year, month, day, hour, minute, Math.min(second, 59), ms, timeZone);
}

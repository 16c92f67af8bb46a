/**
 * Ticks for a time axis in the report's zone: a round step (minutes to weeks) chosen so that
 * at most `maxTicks` fit, placed on round local times (06:00, midnight), labelled the way a
 * reader says them ("Mon 06:00", "2 Nov").
 */
import type { Tick } from './charts/axes.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MONDAY = 4 * DAY;
const STEPS = [15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY];

/** Local time minus UTC at `ms` in `timeZone`, from Intl (the zone must be valid). */
function offsetAt(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  }).formatToParts(new Date(ms));
  const field = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const wallClock = Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
  return wallClock - Math.floor(ms / 1000) * 1000;
}

export function timeTicks(startMs: number, endMs: number, timeZone: string, maxTicks: number): Tick[] {
  const span = endMs - startMs;
  if (!(span > 0)) return [];
  const step = STEPS.find((candidate) => span / candidate <= maxTicks) ?? STEPS.at(-1)!;
  // Round local times: shift by the zone's offset at the start (a DST change inside the window moves later labels by its hour).
  const offset = offsetAt(startMs, timeZone);
  const local = startMs + offset;
  // Days-long steps start at the first local midnight; weeks-long ones on a Monday (1970-01-05 was one).
  const firstLocal = step >= 7 * DAY ? Math.ceil((local - MONDAY) / step) * step + MONDAY
    : step > DAY ? Math.ceil(local / DAY) * DAY
      : Math.ceil(local / step) * step;
  const first = firstLocal - offset;
  const format = new Intl.DateTimeFormat('en-GB', step >= DAY
    ? { timeZone, day: 'numeric', month: 'short' }
    : { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const ticks: Tick[] = [];
  for (let at = first; at <= endMs; at += step) ticks.push({ value: at, label: format.format(new Date(at)).replace(',', '') });
  return ticks;
}

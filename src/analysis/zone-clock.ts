/**
 * Local wall-clock hours of an IANA time zone, for the hour-of-week profile.
 *
 * The zone's UTC offset is read with Intl once per 15-minute block of UTC time and cached:
 * offsets in use are whole multiples of 15 minutes and change (DST, zone rules) at instants
 * that are multiples of 15 minutes, so one block never straddles two offsets and consecutive
 * samples (seconds or minutes apart) share a look-up.
 */

import { MS_PER_HOUR } from '../model/index.js';

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;
const BLOCK_MS = 15 * MS_PER_MINUTE;
/** The cache is dropped when it grows past this (about 42 days of blocks): memory stays bounded. */
const MAX_CACHED_BLOCKS = 4096;
/** 1970-01-01 was a Thursday: day 0 is weekday 3 counted from Monday. */
const EPOCH_WEEKDAY_FROM_MONDAY = 3;
export const HOURS_PER_WEEK = 168;

export class ZoneClock {
  private readonly formatter: Intl.DateTimeFormat | null;
  private readonly offsets = new Map<number, number>();

  /** Throws RangeError for a zone Intl does not know. */
  constructor(readonly timeZone: string) {
    this.formatter = timeZone === 'UTC' ? null : new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** Local time minus UTC at `timeMs`, in ms (+3,600,000 for CET). */
  offsetMs(timeMs: number): number {
    if (this.formatter === null) return 0;
    const block = Math.floor(timeMs / BLOCK_MS);
    let offset = this.offsets.get(block);
    if (offset === undefined) {
      if (this.offsets.size >= MAX_CACHED_BLOCKS) this.offsets.clear();
      offset = this.readOffset(block * BLOCK_MS);
      this.offsets.set(block, offset);
    }
    return offset;
  }

  /** Hour of the local week at `timeMs`: 0 = Monday 00:00-01:00, 167 = Sunday 23:00-24:00. */
  hourOfWeek(timeMs: number): number {
    const localMs = timeMs + this.offsetMs(timeMs);
    const day = Math.floor(localMs / MS_PER_DAY);
    const weekday = (((day + EPOCH_WEEKDAY_FROM_MONDAY) % 7) + 7) % 7;
    const hour = Math.floor((localMs - day * MS_PER_DAY) / MS_PER_HOUR);
    return weekday * 24 + hour;
  }

  /**
   * The end of the piece of time from `timeMs` that lies in one local hour: the next local :00,
   * or the next block edge, where the offset may change (then the piece just ends early).
   */
  nextHourChange(timeMs: number): number {
    const offset = this.offsetMs(timeMs);
    const nextLocalHour = (Math.floor((timeMs + offset) / MS_PER_HOUR) + 1) * MS_PER_HOUR - offset;
    if (this.formatter === null) return nextLocalHour;
    const nextBlock = (Math.floor(timeMs / BLOCK_MS) + 1) * BLOCK_MS;
    return Math.min(nextLocalHour, nextBlock);
  }

  private readOffset(timeMs: number): number {
    const parts = this.formatter!.formatToParts(new Date(timeMs));
    const field = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((part) => part.type === type)?.value ?? Number.NaN);
    const wallClockMs = Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
    return wallClockMs - timeMs;
  }
}

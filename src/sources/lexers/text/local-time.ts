/**
 * nvidia-smi's CSV timestamp (`2026/07/14 09:00:44.579`, local wall-clock time) for every
 * row of a looped log. parseLocalTimestamp does the work; this only avoids redoing the
 * zone arithmetic for each row of the same minute, which all GPUs of one `-l` tick share.
 * Zone offsets change only on whole minutes, so minute start + seconds is exact, and it
 * gives what parseLocalTimestamp gives for the whole text (tested against it).
 */
import { parseLocalTimestamp } from '../timestamps.js';
import { isSeparatorAt } from './values.js';

const ZERO = 0x30;
const NINE = 0x39;

/** `YYYY/MM/DD HH:MM` */
const MINUTE_CHARS = 16;
/** `YYYY/MM/DD HH:MM:SS` */
const SECOND_CHARS = 19;
/** `.mmm` */
const MILLIS_CHARS = 4;
const DOT = 0x2e;
const SPACE = 0x20;

function digitAt(text: string, position: number): number {
  const code = text.charCodeAt(position);
  return code >= ZERO && code <= NINE ? code - ZERO : Number.NaN;
}

export class LocalTimestampReader {
  private minutePrefix = '';
  private minuteStartMs: number | undefined;
  /**
   * The character codes of minutePrefix, for scanCell: comparing a cell with these costs half
   * the charCodeAt calls of comparing it with the string, and cuts no string out per row.
   */
  private readonly minuteCodes = new Uint16Array(MINUTE_CHARS);
  /** The time of the cell `scanCell` last accepted, epoch ms. */
  value = 0;

  constructor(private readonly timeZone: string) {}

  /** Epoch ms, or undefined for text that is not a timestamp parseLocalTimestamp reads. */
  read(text: string): number | undefined {
    const secondsMs = secondsWithinMinute(text, 0, text.length);
    if (secondsMs === undefined) return parseLocalTimestamp(text, this.timeZone);
    if (!text.startsWith(this.minutePrefix) || this.minutePrefix === '') {
      this.minutePrefix = text.slice(0, MINUTE_CHARS);
      for (let offset = 0; offset < MINUTE_CHARS; offset += 1) this.minuteCodes[offset] = text.charCodeAt(offset);
      this.minuteStartMs = parseLocalTimestamp(`${this.minutePrefix}:00`, this.timeZone);
    }
    return this.minuteStartMs === undefined ? undefined : this.minuteStartMs + secondsMs;
  }

  /**
   * For the row loop of a log: where the timestamp cell starting at `start` ends (its ", ",
   * or lineEnd), with its time in `value`, when it is `YYYY/MM/DD HH:MM:SS[.mmm]` of the
   * minute read last; -1 for anything else, which the caller reads with readSpan. Such a cell
   * starts as that minute (never with a space), ends with a digit and holds no ", ", so it is
   * the same text however the line is cut and trimmed, and readSpan would give the same time
   * (minute start + seconds).
   */
  scanCell(text: string, start: number, lineEnd: number): number {
    const minuteStartMs = this.minuteStartMs;
    const minute = this.minuteCodes;
    // A minute read from untrimmed text (read() is public) could start with a space, which a cell cannot.
    if (minuteStartMs === undefined || minute[0] === SPACE) return -1;
    let end = start + SECOND_CHARS;
    if (end < lineEnd && text.charCodeAt(end) === DOT) end += MILLIS_CHARS;
    if (end > lineEnd || (end !== lineEnd && !isSeparatorAt(text, end, lineEnd))) return -1;
    for (let offset = 0; offset < MINUTE_CHARS; offset += 1) {
      if (text.charCodeAt(start + offset) !== minute[offset]) return -1;
    }
    const secondsMs = secondsWithinMinute(text, start, end);
    if (secondsMs === undefined) return -1;
    this.value = minuteStartMs + secondsMs;
    return end;
  }

  /**
   * `read(text.slice(start, end))` without the slice while the cell is in the minute read
   * last (all rows of a tick, and the ticks of the same minute).
   */
  readSpan(text: string, start: number, end: number): number | undefined {
    if (this.minutePrefix !== '' && end - start >= MINUTE_CHARS && text.substring(start, start + MINUTE_CHARS) === this.minutePrefix) {
      const secondsMs = secondsWithinMinute(text, start, end);
      if (secondsMs !== undefined) return this.minuteStartMs === undefined ? undefined : this.minuteStartMs + secondsMs;
    }
    return this.read(text.slice(start, end));
  }
}

/**
 * Milliseconds past the minute for text[start, end) of exactly `YYYY/MM/DD HH:MM:SS` or
 * `...:SS.mmm`; undefined for any other shape (including second 60), which takes the general path.
 */
function secondsWithinMinute(text: string, start: number, end: number): number | undefined {
  const length = end - start;
  if ((length !== 19 && length !== 23) || text.charCodeAt(start + MINUTE_CHARS) !== 0x3a /* : */) return undefined;
  const seconds = digitAt(text, start + 17) * 10 + digitAt(text, start + 18);
  if (!(seconds <= 59)) return undefined;
  if (length === 19) return seconds * 1000;
  if (text.charCodeAt(start + 19) !== 0x2e /* . */) return undefined;
  const ms = digitAt(text, start + 20) * 100 + digitAt(text, start + 21) * 10 + digitAt(text, start + 22);
  return Number.isNaN(ms) ? undefined : seconds * 1000 + ms;
}

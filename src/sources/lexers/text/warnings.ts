/**
 * Warnings from row-oriented logs. A log with one bad column would otherwise produce one
 * warning per row (millions, kept in the report); after the first few the rest say nothing
 * new, so they are counted and summarised in one closing warning.
 */
import type { ObservationSink } from '../../../model/index.js';

export const DEFAULT_WARNING_LIMIT = 100;

export type Warn = (location: string, message: string) => void;

export class WarningLimiter {
  private sent = 0;
  private suppressed = 0;

  constructor(
    private readonly sink: ObservationSink,
    private readonly limit = DEFAULT_WARNING_LIMIT,
  ) {}

  /** Bound so it can be handed around as a plain function. */
  readonly warn: Warn = (location, message) => {
    if (this.sent >= this.limit) {
      this.suppressed += 1;
      return;
    }
    this.sent += 1;
    this.sink.warn({ location, message });
  };

  /** Warnings counted and not sent so far. */
  get suppressedCount(): number {
    return this.suppressed;
  }

  /** Counts warnings limited elsewhere (a block of the input parsed in a worker) as suppressed here. */
  addSuppressed(count: number): void {
    this.suppressed += count;
  }

  /** Call once at the end of the input. */
  finish(location: string): void {
    if (this.suppressed === 0) return;
    this.sink.warn({
      location,
      message: `${this.suppressed} more warnings not listed (only the first ${this.limit} are kept)`,
    });
    this.suppressed = 0;
  }
}

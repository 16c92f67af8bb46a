/**
 * The fleet's limit on remembered intervals. A series remembers its longest intervals with the
 * sample each weighted (./series.ts), up to LARGEST_INTERVALS_KEPT, to take back at the end the
 * part of a gap beyond the cap. Until it holds that many it remembers every interval, ordinary
 * or not, at some 100 bytes each: 800 GPUs logged for an hour at 1 s held 3.3 million of them,
 * about 200 MB, and 10,000 GPUs scraped for a day would hold 40 million (issue 8: memory grows
 * with series, not samples).
 *
 * The budget counts what all series remember. Once that passes MAX_KEPT_INTERVALS, every series
 * is cut to one lower capacity, the largest at which all of them together hold at most half the
 * budget, never below MIN_KEPT_PER_SERIES (so that a fleet of very many series is held to that
 * many each: memory then grows with series alone). A cut drops the shortest intervals a series
 * remembers, which in a steady series are ordinary ones, never over the cap: its figures do not
 * change. A series with more long gaps than its capacity gets the same warning at the end as
 * one with more than LARGEST_INTERVALS_KEPT.
 */

/** Intervals remembered by all series together before they are cut: some 30 MB. */
export const MAX_KEPT_INTERVALS = 256 * 1024;
/** The least a cut leaves a series. */
export const MIN_KEPT_PER_SERIES = 16;

/** A series under the budget. */
export interface KeptIntervals {
  /** Intervals it remembers now. */
  readonly keptIntervalCount: number;
  /** Forgets all but its `capacity` longest intervals, and remembers no more than that from now on. */
  keepLongest(capacity: number): void;
}

export class KeptIntervalBudget {
  private members: KeptIntervals[] = [];
  private kept = 0;
  private perSeries: number;

  /** `perSeries`: the capacity of a series before any cut. */
  constructor(
    readonly maxKept: number,
    perSeries: number,
  ) {
    this.perSeries = perSeries;
  }

  /** The capacity a new series starts with. */
  get capacity(): number {
    return this.perSeries;
  }

  /** Intervals remembered by all series now. */
  get keptCount(): number {
    return this.kept;
  }

  join(series: KeptIntervals): void {
    this.members.push(series);
  }

  /** A series remembers one interval more (not one in place of another). */
  added(): void {
    this.kept += 1;
    if (this.kept > this.maxKept && this.perSeries > MIN_KEPT_PER_SERIES) this.cut();
  }

  /** The stream is over: the series are let go (the budget must not keep them alive). */
  release(): void {
    this.members = [];
    this.kept = 0;
  }

  private cut(): void {
    const { members } = this;
    const keptAt = (capacity: number): number => {
      let total = 0;
      for (const series of members) total += Math.min(series.keptIntervalCount, capacity);
      return total;
    };
    // The largest capacity below the current one at which all series fit in half the budget.
    const target = Math.floor(this.maxKept / 2);
    let low = MIN_KEPT_PER_SERIES;
    let high = this.perSeries - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (keptAt(middle) <= target) low = middle;
      else high = middle - 1;
    }
    this.perSeries = low;
    let kept = 0;
    for (const series of members) {
      series.keepLongest(low);
      kept += series.keptIntervalCount;
    }
    this.kept = kept;
  }
}

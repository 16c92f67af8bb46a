/**
 * One time series: the timed samples of one device from one source, in the source's order.
 *
 * A sample stands for the time until the next sample of its series, capped at twice the
 * series' median interval; the last sample stands for the median interval (DESIGN.md
 * section 5). The median is only known at the end and memory must not grow with samples, so:
 *  - each sample is added to the figures with its full, uncapped interval as soon as the next
 *    sample arrives;
 *  - every interval goes into a bounded histogram (a quantile sketch of counts), which gives
 *    the median at the end within 0.5 %;
 *  - the LARGEST_INTERVALS_KEPT longest intervals are remembered with the sample they
 *    weighted; at the end the part of each beyond the cap is subtracted again. The samples are
 *    kept as rows of doubles (./sample-rows.ts), the heap holding row numbers: a short series
 *    keeps every interval, and as objects they were most of a large fleet's analysis memory.
 * If more gaps than that exceed the cap, the shorter of them keep their full weight and
 * `close` reports it so that the analyzer can warn. A fleet's series share a limit on what they
 * remember (./shared-budget.ts), which may lower that number for all of them: a cut drops the
 * shortest intervals remembered, in a steady series ordinary ones, never over the cap, so its
 * figures do not change.
 *
 * The same weights feed an ActivityProfile (timeline buckets, hour-of-week): the full interval
 * as the next sample arrives, the part beyond the cap taken back at `close`, which is why a
 * remembered interval keeps its start time.
 *
 * A sample older than the one before it, or a second reading of a field at the same
 * timestamp, is dropped and counted. A reading at the same timestamp that only adds fields
 * the sample lacked is merged into it: some sources send one metric per line.
 *
 * Whole-millisecond intervals reach the interval sketch through a tally once the series is
 * DEFER_AFTER_ADDS samples long (./whole-value-tally.ts): a steady log's intervals fall in a
 * narrow window around its cadence.
 */
import { ActivityProfile } from './activity-profile.js';
import { DEFER_AFTER_ADDS, FigureAccumulator } from './figure-accumulator.js';
import { SampleRows } from './sample-rows.js';
import { fillMissing, type SampleValues, sharesAField } from './sample-values.js';
import { SharedBudget, type BudgetMember } from './shared-budget.js';
import { LargestK } from './stats/largest-k.js';
import { INTERVAL_MS_RANGE, WeightedQuantileSketch } from './stats/weighted-quantile-sketch.js';
import { timelineBucketBudget } from './timeline-buckets.js';
import { exactMassAfter, WholeValueTally } from './whole-value-tally.js';
import { ZoneClock } from './zone-clock.js';

export const LARGEST_INTERVALS_KEPT = 4096;
/** Intervals remembered by all series of a fleet before they are cut: some 30 MB. */
export const MAX_KEPT_INTERVALS = 256 * 1024;
/** The least a cut leaves a series. */
export const MIN_KEPT_PER_SERIES = 16;

/** The limits a fleet's series share (./shared-budget.ts). */
export interface SeriesBudgets {
  keptIntervals: SharedBudget;
  timelineBuckets: SharedBudget;
}

export function seriesBudgets(): SeriesBudgets {
  return { keptIntervals: new SharedBudget(MAX_KEPT_INTERVALS, LARGEST_INTERVALS_KEPT, MIN_KEPT_PER_SERIES), timelineBuckets: timelineBucketBudget() };
}

/** Cap on a sample's weight, in median intervals. */
export const GAP_CAP_MEDIAN_INTERVALS = 2;
/** Intervals tallied at a time: a window of this many milliseconds around the log's cadence. */
const INTERVAL_TALLY_MS = 256;

export type SampleOutcome = 'recorded' | 'merged' | 'out-of-order' | 'duplicate';

export interface CloseResult {
  /** Some interval longer than the cap was not among the kept longest ones and counts in full. */
  uncorrectedGaps: boolean;
}

/** A remembered interval: its length, the sample it weighted and when that sample was taken. */
export interface KeptInterval {
  intervalMs: number;
  startMs: number;
  values: SampleValues;
}

const UTC_CLOCK = new ZoneClock('UTC');

export class SeriesRecorder implements BudgetMember {
  /** Weighted figures of the committed samples (all but the pending last one). */
  readonly figures: FigureAccumulator;
  private readonly intervalSketch = new WeightedQuantileSketch(INTERVAL_MS_RANGE);
  /** Exact mass of the intervals added and the tally in front of their sketch (./whole-value-tally.ts). */
  private intervalMass = 0;
  private intervalTally: WholeValueTally | undefined;
  /** The longest intervals, each with the row of `intervalSamples` holding the sample it weighted. */
  readonly longestIntervals: LargestK<number>;
  /** The samples of the kept intervals, with their start times; a row is reused when its interval is pushed out. */
  private intervalSamples = new SampleRows();
  /** Timeline and hour-of-week of the committed samples, settled at `close`. */
  readonly activity: ActivityProfile;
  firstTimeMs = Number.NaN;
  lastTimeMs = Number.NaN;
  sampleCount = 0;
  outOfOrderCount = 0;
  duplicateCount = 0;
  private pending: SampleValues | undefined;
  private closed = false;

  private readonly keptBudget: SharedBudget | undefined;

  /** `clock`: the report's time zone, for the hour-of-week profile; `budgets`: the fleet's, shared by its series. */
  constructor(idleThresholdPct: number, clock: ZoneClock = UTC_CLOCK, budgets?: SeriesBudgets) {
    this.figures = new FigureAccumulator(idleThresholdPct);
    this.activity = new ActivityProfile(clock, budgets?.timelineBuckets);
    this.keptBudget = budgets?.keptIntervals;
    this.longestIntervals = new LargestK<number>(this.keptBudget?.capacity ?? LARGEST_INTERVALS_KEPT);
    this.keptBudget?.join(this);
  }

  /** Intervals remembered (the kept-interval budget's unit). */
  get budgetedCount(): number {
    return this.longestIntervals.size;
  }

  /** Forgets all but the `capacity` longest intervals kept (their rows too), and keeps no more from now on. */
  limitTo(capacity: number): void {
    const longest = this.longestIntervals;
    if (capacity >= longest.capacity) return;
    if (longest.size <= capacity) {
      longest.shrink(capacity);
      return;
    }
    const rows = this.intervalSamples;
    const compacted = new SampleRows();
    longest.shrink(capacity, (row) => {
      const next = compacted.size;
      compacted.write(next, rows.startMs(row), rows.values(row));
      return next;
    });
    this.intervalSamples = compacted;
  }

  record(timeMs: number, values: SampleValues): SampleOutcome {
    if (this.closed) throw new Error('SeriesRecorder.record after close');
    if (this.pending === undefined) {
      this.pending = values;
      this.firstTimeMs = timeMs;
      this.lastTimeMs = timeMs;
      this.sampleCount = 1;
      return 'recorded';
    }
    if (timeMs < this.lastTimeMs) {
      this.outOfOrderCount += 1;
      return 'out-of-order';
    }
    if (timeMs === this.lastTimeMs) {
      if (sharesAField(this.pending, values)) {
        this.duplicateCount += 1;
        return 'duplicate';
      }
      fillMissing(this.pending, values);
      return 'merged';
    }
    this.commit(this.pending, this.lastTimeMs, timeMs - this.lastTimeMs);
    this.pending = values;
    this.lastTimeMs = timeMs;
    this.sampleCount += 1;
    return 'recorded';
  }

  /** Every interval between consecutive samples, weight 1 each. */
  get intervals(): WeightedQuantileSketch {
    this.intervalTally?.drainInto(this.intervalSketch);
    return this.intervalSketch;
  }

  /** Median interval between consecutive samples, null for a series of one sample. */
  medianIntervalMs(): number | null {
    return this.intervals.quantile(0.5);
  }

  /** The last sample, not yet weighted. */
  get lastSample(): SampleValues | undefined {
    return this.pending;
  }

  /**
   * Takes back what each remembered interval exceeds `capMs` by, then weights the last sample
   * with `lastWeightMs` (pass 0 to leave it out, e.g. when it becomes a point value).
   */
  close(capMs: number, lastWeightMs: number): CloseResult {
    if (this.closed) throw new Error('SeriesRecorder.close called twice');
    this.closed = true;
    for (const { intervalMs, startMs, values } of this.keptIntervals()) {
      if (intervalMs <= capMs) continue;
      this.figures.add(values, -(intervalMs - capMs));
      this.activity.takeBack(startMs + capMs, intervalMs - capMs, values);
    }
    if (this.pending !== undefined && lastWeightMs > 0) {
      this.figures.add(this.pending, lastWeightMs);
      this.activity.add(this.lastTimeMs, lastWeightMs, this.pending);
    }
    this.activity.settle(capMs);
    return { uncorrectedGaps: this.longestIntervals.largestDroppedKey > capMs };
  }

  /**
   * The longest intervals kept, each with the sample it weighted (rebuilt from its row), in the
   * heap's order: the order `close` takes weight back in, on which its float sums depend.
   */
  keptIntervals(): KeptInterval[] {
    const rows = this.intervalSamples;
    return this.longestIntervals.entries().map(({ key, item: row }) => ({ intervalMs: key, startMs: rows.startMs(row), values: rows.values(row) }));
  }

  private commit(values: SampleValues, startMs: number, intervalMs: number): void {
    this.figures.add(values, intervalMs);
    this.activity.add(startMs, intervalMs, values);
    this.addInterval(intervalMs);
    // Most intervals of a long series are no longer than the ones kept already: nothing is stored for them.
    const longest = this.longestIntervals;
    if (!longest.admits(intervalMs)) return;
    const pushedOut = longest.itemPushedOut;
    const row = pushedOut ?? longest.size;
    this.intervalSamples.write(row, startMs, values);
    longest.offer(intervalMs, row);
    if (pushedOut === undefined) this.keptBudget?.changed(1);
  }

  private addInterval(intervalMs: number): void {
    const mass = exactMassAfter(this.intervalMass, intervalMs, 1);
    this.intervalMass = mass;
    if (Number.isNaN(mass)) {
      // Inexact from here on: the tally goes in first, then every interval in its order.
      this.intervalTally?.drainInto(this.intervalSketch);
      this.intervalTally = undefined;
      this.intervalSketch.add(intervalMs, 1);
      return;
    }
    if (this.intervalTally === undefined && this.sampleCount >= DEFER_AFTER_ADDS) this.intervalTally = new WholeValueTally(INTERVAL_TALLY_MS);
    if (this.intervalTally === undefined) this.intervalSketch.add(intervalMs, 1);
    else this.intervalTally.take(intervalMs, 1, this.intervalSketch);
  }
}

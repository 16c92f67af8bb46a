/**
 * The time-resolved figures of a series or a chain of series: the bucketed timeline and the
 * hour-of-week profile. Fed with the same sample times and weights as the FigureAccumulator
 * (DESIGN.md section 5): the full interval as each sample is committed, the part of a gap
 * beyond the cap taken back at the end, then `settle(capMs)`.
 */
import { type GpuComputeSeries, type GpuTimeline, TIMELINE_MAX_BUCKETS } from '../model/index.js';
import type { LadderBasis } from './compute-ladder.js';
import { computePercents, RUNG_COUNT, rungIndex } from './compute-percent.js';
import { HourOfWeekSlots } from './hour-of-week.js';
import type { SampleValues } from './sample-values.js';
import type { SharedBudget } from './shared-budget.js';
import { TimelineBuckets } from './timeline-buckets.js';
import type { ZoneClock } from './zone-clock.js';

/**
 * Scratch for the percents of the sample being added: `add` and `takeBack` fill and read it
 * before returning, so every profile shares one (a fleet holds one profile per series).
 */
const percents = new Float64Array(RUNG_COUNT);

export class ActivityProfile {
  readonly buckets: TimelineBuckets;
  readonly hours: HourOfWeekSlots;

  /** `budget`: the timeline buckets a fleet's series share (./shared-budget.ts). */
  constructor(
    readonly clock: ZoneClock,
    budget?: SharedBudget,
  ) {
    this.buckets = new TimelineBuckets(budget);
    this.hours = new HourOfWeekSlots(clock);
  }

  add(startMs: number, durationMs: number, values: SampleValues): void {
    const hasCompute = computePercents(values, percents) > 0;
    this.buckets.addSample(startMs, durationMs, percents, values.memoryUsedMiB);
    if (hasCompute) this.hours.add(startMs, durationMs, percents);
  }

  takeBack(startMs: number, durationMs: number, values: SampleValues): void {
    if (computePercents(values, percents) === 0) return;
    this.buckets.takeBack(startMs, durationMs, percents);
    this.hours.add(startMs, durationMs, percents, -1);
  }

  settle(capMs: number): void {
    this.buckets.settle(capMs);
  }

  /** Adds a settled profile of other time; `other` is consumed. */
  merge(other: ActivityProfile): void {
    this.buckets.merge(other.buckets);
    this.hours.merge(other.hours);
  }

  /** The report fields for a compute basis ('unknown': compute values all null, no hour-of-week). */
  reportFields(basis: LadderBasis | 'unknown'): { timeline: GpuTimeline | null; computeSeries: GpuComputeSeries | null; hourOfWeekComputePct: (number | null)[] | null } {
    const rung = basis === 'unknown' ? -1 : rungIndex(basis);
    const computeSeries = this.buckets.toComputeSeries(rung);
    this.buckets.shrinkTo(TIMELINE_MAX_BUCKETS);
    return { timeline: this.buckets.toTimeline(rung), computeSeries, hourOfWeekComputePct: this.hours.means(rung) };
  }
}

/**
 * One device's timeline from the series of several sources (e.g. rotated log files, or one
 * snapshot file per minute).
 *
 * Series whose time ranges do not overlap are chained in time order. Series that overlap
 * describe the same time twice: the one with more samples is kept and the other left out
 * (never double counted); the caller warns.
 *
 * Weights in a chain: each series caps its own intervals at twice its own median, so a 1 s
 * log and a 60 s log chained together each keep their own cadence. The last sample of a
 * series stands for the time until the next series starts, under the same cap; the last
 * sample of the chain stands for its series' median. A series of a single sample (one
 * snapshot) has no median of its own and borrows the chain's, taken over all intervals of the
 * chain including the joins. A chain of one single sample has no duration: it is a point value.
 */
import { ActivityProfile } from './activity-profile.js';
import { FigureAccumulator } from './figure-accumulator.js';
import type { SampleValues } from './sample-values.js';
import { GAP_CAP_MEDIAN_INTERVALS, type SeriesRecorder } from './series.js';
import { INTERVAL_MS_RANGE, WeightedQuantileSketch } from './stats/weighted-quantile-sketch.js';

export interface SourcedSeries {
  sourceOrdinal: number;
  recorder: SeriesRecorder;
}

export interface SeriesSelection<T extends SourcedSeries> {
  kept: T[];
  dropped: { series: T; keptInstead: T }[];
}

function overlaps(a: SeriesRecorder, b: SeriesRecorder): boolean {
  return a.firstTimeMs <= b.lastTimeMs && b.firstTimeMs <= a.lastTimeMs;
}

/** Keeps the largest series first, then every series that overlaps none kept so far. */
export function selectNonOverlapping<T extends SourcedSeries>(series: readonly T[]): SeriesSelection<T> {
  const byPreference = [...series].sort((a, b) =>
    b.recorder.sampleCount - a.recorder.sampleCount
    || a.recorder.firstTimeMs - b.recorder.firstTimeMs
    || a.sourceOrdinal - b.sourceOrdinal);
  const kept: T[] = [];
  const dropped: { series: T; keptInstead: T }[] = [];
  for (const candidate of byPreference) {
    const clash = kept.find((other) => overlaps(other.recorder, candidate.recorder));
    if (clash === undefined) kept.push(candidate);
    else dropped.push({ series: candidate, keptInstead: clash });
  }
  kept.sort((a, b) => a.recorder.firstTimeMs - b.recorder.firstTimeMs);
  return { kept, dropped };
}

export interface Timeline<T extends SourcedSeries> {
  /** Weighted figures of the chain; weight 0 when it has no duration. */
  figures: FigureAccumulator;
  /** Timeline buckets and hour-of-week of the chain; null when it has no timed series. */
  activity: ActivityProfile | null;
  sampleCount: number;
  firstTimeMs: number | null;
  lastTimeMs: number | null;
  /** End of the time the last sample stands for. */
  endMs: number | null;
  /** The single sample of a chain without duration, to be counted as a point value. */
  loneSample: SampleValues | undefined;
  /** Series with more over-long gaps than could be corrected. */
  uncorrectedGaps: T[];
}

/** Closes the (non-overlapping) series and sums them into one timeline. Closes each series once. */
export function closeTimeline<T extends SourcedSeries>(series: readonly T[], idleThresholdPct: number): Timeline<T> {
  const chain = [...series].sort((a, b) => a.recorder.firstTimeMs - b.recorder.firstTimeMs);
  const first = chain[0];
  const last = chain.at(-1);
  if (first === undefined || last === undefined) {
    return { figures: new FigureAccumulator(idleThresholdPct), activity: null, sampleCount: 0, firstTimeMs: null, lastTimeMs: null, endMs: null, loneSample: undefined, uncorrectedGaps: [] };
  }
  // A chain of one series (most devices): its own figures and profile are the chain's, rather
  // than copies summed into new ones (the same numbers: each would be 0 plus the series' own).
  const only = chain.length === 1 ? first.recorder : undefined;
  const figures = only?.figures ?? new FigureAccumulator(idleThresholdPct);

  const joinsMs = chain.slice(1).map((next, i) => next.recorder.firstTimeMs - chain[i]!.recorder.lastTimeMs);
  let chainMedian: number | null | undefined;
  const chainMedianMs = (): number | null => {
    if (chainMedian === undefined) {
      const intervals = new WeightedQuantileSketch(INTERVAL_MS_RANGE);
      for (const { recorder } of chain) intervals.merge(recorder.intervals);
      for (const join of joinsMs) intervals.add(join, 1);
      chainMedian = intervals.quantile(0.5);
    }
    return chainMedian;
  };

  const activity = only?.activity ?? new ActivityProfile(first.recorder.activity.clock);
  const uncorrectedGaps: T[] = [];
  let sampleCount = 0;
  let lastMedianMs: number | null = null;
  let loneSample: SampleValues | undefined;
  chain.forEach((entry, i) => {
    const { recorder } = entry;
    sampleCount += recorder.sampleCount;
    const medianMs = recorder.medianIntervalMs() ?? chainMedianMs();
    if (medianMs === null) {
      // The whole chain is one sample: no interval anywhere to weight it with.
      recorder.close(Infinity, 0);
      loneSample = recorder.lastSample;
      return;
    }
    const capMs = GAP_CAP_MEDIAN_INTERVALS * medianMs;
    const join = joinsMs[i];
    const lastWeightMs = join === undefined ? medianMs : Math.min(join, capMs);
    if (recorder.close(capMs, lastWeightMs).uncorrectedGaps) uncorrectedGaps.push(entry);
    if (only === undefined) {
      figures.merge(recorder.figures);
      activity.merge(recorder.activity);
    }
    lastMedianMs = medianMs;
  });

  return {
    figures,
    activity,
    sampleCount,
    firstTimeMs: first.recorder.firstTimeMs,
    lastTimeMs: last.recorder.lastTimeMs,
    endMs: last.recorder.lastTimeMs + (lastMedianMs ?? 0),
    loneSample,
    uncorrectedGaps,
  };
}

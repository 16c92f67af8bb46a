/**
 * Whole values reach the quantile sketches through tallies on long series
 * (src/analysis/whole-value-tally.ts). The report must not change by a bit: every figure read
 * from a tallied accumulator or series is compared with `toBe`/`toEqual` against sketches fed
 * one add per sample, the way they were fed before tallies.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFER_AFTER_ADDS, FigureAccumulator } from '../../src/analysis/figure-accumulator.js';
import type { SampleValues } from '../../src/analysis/sample-values.js';
import { SeriesRecorder } from '../../src/analysis/series.js';
import { INTERVAL_MS_RANGE, MIB_RANGE, PERCENT_RANGE, type SketchRange, WeightedQuantileSketch } from '../../src/analysis/stats/weighted-quantile-sketch.js';
import { exactMassAfter, WholeValueTally } from '../../src/analysis/whole-value-tally.js';

type Add = readonly [value: number, weight: number];

/** A sketch fed one add at a time, in order: the reference. */
function directSketch(adds: readonly Add[], range: SketchRange): WeightedQuantileSketch {
  const sketch = new WeightedQuantileSketch(range);
  for (const [value, weight] of adds) sketch.add(value, weight);
  return sketch;
}

/** What a report reads from a sketch, plus what it holds. */
function readings(sketch: WeightedQuantileSketch): { p50: number | null; p95: number | null; p99: number | null; total: number; buckets: number } {
  return { p50: sketch.quantile(0.5), p95: sketch.quantile(0.95), p99: sketch.quantile(0.99), total: sketch.totalWeight, buckets: sketch.bucketCount };
}

/** The reference figures of one signal: sums in sample order, as FigureAccumulator keeps them. */
function referenceStats(adds: readonly Add[], range: SketchRange): { mean: number; p50: number; p95: number; max: number } {
  let weight = 0;
  let sum = 0;
  let max = -Infinity;
  for (const [value, w] of adds) {
    weight += w;
    sum += w * value;
    if (w > 0 && value > max) max = value;
  }
  const sketch = directSketch(adds, range);
  return { mean: sum / weight, p50: sketch.quantile(0.5)!, p95: sketch.quantile(0.95)!, max };
}

/** A deterministic stream of whole readings: busy and idle spells, memory wandering within a job and jumping between jobs. */
function wholeSamples(count: number, seed = 1): { values: SampleValues; weight: number }[] {
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const samples: { values: SampleValues; weight: number }[] = [];
  let memory = 40_000;
  for (let i = 0; i < count; i += 1) {
    if (i % 700 === 0) memory = Math.floor(next() * 80_000);
    memory = Math.max(0, memory + Math.floor(next() * 121) - 60);
    const busy = Math.floor(i / 300) % 2 === 0;
    samples.push({ values: { utilizationPct: busy ? Math.floor(next() * 101) : 0, memoryUsedMiB: memory }, weight: 1000 + Math.floor(next() * 41) });
  }
  return samples;
}

describe('exactMassAfter', () => {
  it('adds weight x (value + 1), which bounds every sum the sketch keeps', () => {
    // 1000 ms of 40 %: 1000 x 41 = 41,000; then 500 ms of 0 %: + 500 x 1
    expect(exactMassAfter(exactMassAfter(0, 40, 1000), 0, 500)).toBe(41_500);
  });

  it('is NaN from the first add that is not exact, and stays NaN', () => {
    expect(exactMassAfter(0, 37.5, 1000)).toBeNaN(); // a DCGM fraction
    expect(exactMassAfter(0, 40, 1000.5)).toBeNaN(); // a weight of a fraction of a ms
    expect(exactMassAfter(0, 40, -1000)).toBeNaN(); // a gap taken back
    expect(exactMassAfter(Number.NaN, 40, 1000)).toBeNaN();
  });

  it('is NaN once a sum could pass 2^53, where doubles stop counting whole numbers exactly', () => {
    // (2^53 - 2) + 1 x (0 + 1) = 2^53 - 1: still exact; one more and it is not.
    const nearLimit = exactMassAfter(Number.MAX_SAFE_INTEGER - 1, 0, 1);
    expect(nearLimit).toBe(Number.MAX_SAFE_INTEGER);
    expect(exactMassAfter(nearLimit, 0, 1)).toBeNaN();
  });
});

describe('WholeValueTally', () => {
  it('drains into a sketch the same buckets, to the bit, as adding each value in turn', () => {
    // whole MiB around 70,000 with whole ms weights, in and out of a 256-value window
    const adds: Add[] = [[70_000, 1000], [70_010, 1020], [70_000, 990], [71_000, 1000], [70_000, 1500], [0, 1000], [70_255, 1001]];
    const sketch = new WeightedQuantileSketch(MIB_RANGE);
    const tally = new WholeValueTally(256);
    for (const [value, weight] of adds) tally.take(value, weight, sketch);
    tally.drainInto(sketch);
    expect(readings(sketch)).toEqual(readings(directSketch(adds, MIB_RANGE)));
  });

  it('moves its window to a value outside it, putting what it held into the sketch first', () => {
    const sketch = new WeightedQuantileSketch(MIB_RANGE);
    const tally = new WholeValueTally(256);
    tally.take(1000, 60_000, sketch); // window 872 .. 1127
    expect(sketch.totalWeight).toBe(0);
    tally.take(5000, 60_000, sketch); // outside: 1000 goes in, the window moves to 4872 .. 5127
    expect(sketch.totalWeight).toBe(60_000);
    tally.drainInto(sketch);
    expect(sketch.totalWeight).toBe(120_000);
    expect(sketch.quantile(0.5)).toBe(1000);
    expect(sketch.quantile(1)).toBe(5000);
  });
});

describe('FigureAccumulator with tallies (a series longer than DEFER_AFTER_ADDS samples)', () => {
  const samples = wholeSamples(3 * DEFER_AFTER_ADDS);
  const utilization = samples.map(({ values, weight }): Add => [values.utilizationPct!, weight]);
  const memory = samples.map(({ values, weight }): Add => [values.memoryUsedMiB!, weight]);

  it('reports whole percents and MiB exactly as sketches fed sample by sample', () => {
    const figures = new FigureAccumulator(5);
    for (const { values, weight } of samples) figures.add(values, weight);
    expect(figures.percentStats('utilizationPct')).toEqual(referenceStats(utilization, PERCENT_RANGE));
    const { mean, p95, max } = referenceStats(memory, MIB_RANGE);
    expect(figures.memoryUsedStats()).toEqual({ mean, p95, max });
  });

  /** Feeds `adds` and expects the utilization and memory figures of sketches fed one add at a time. */
  function expectSampleBySample(adds: readonly { values: SampleValues; weight: number }[]): void {
    const figures = new FigureAccumulator(5);
    for (const { values, weight } of adds) figures.add(values, weight);
    expect(figures.percentStats('utilizationPct')).toEqual(referenceStats(adds.map(({ values, weight }) => [values.utilizationPct!, weight]), PERCENT_RANGE));
    const { mean, p95, max } = referenceStats(adds.map(({ values, weight }) => [values.memoryUsedMiB!, weight]), MIB_RANGE);
    expect(figures.memoryUsedStats()).toEqual({ mean, p95, max });
  }

  it('goes on exactly when a fractional reading arrives after the tally started', () => {
    // The tally is emptied into the sketch, then every add goes straight in, whole or not.
    expectSampleBySample([...samples, { values: { utilizationPct: 37.25, memoryUsedMiB: 40_000.5 }, weight: 1000 }, ...samples.slice(0, 200)]);
  });

  it('goes on exactly when a series closes: a gap taken back, then the last sample weighted with the median', () => {
    // A 5,000 ms gap over a cap of 2 x 1019.5 ms: 5000 - 2039 = 2961 ms taken back; the last
    // sample then stands for the median, 1019.5 ms (a fraction: the sketch median is a bucket mean).
    const gapSample = { utilizationPct: 64, memoryUsedMiB: 41_000 };
    expectSampleBySample([...samples, { values: gapSample, weight: 5000 }, ...samples.slice(0, 200), { values: gapSample, weight: -(5000 - 2039) }, { values: gapSample, weight: 1019.5 }]);
  });

  it('merges two tallied accumulators into the same figures as one fed with both', () => {
    const [first, second] = [new FigureAccumulator(5), new FigureAccumulator(5)];
    const later = wholeSamples(2 * DEFER_AFTER_ADDS, 7);
    for (const { values, weight } of samples) first.add(values, weight);
    for (const { values, weight } of later) second.add(values, weight);
    first.merge(second);
    // merge sums sketches bucket by bucket: the reference is two direct sketches merged
    const sketch = directSketch(utilization, PERCENT_RANGE);
    sketch.merge(directSketch(later.map(({ values, weight }) => [values.utilizationPct!, weight]), PERCENT_RANGE));
    const stats = first.percentStats('utilizationPct')!;
    expect([stats.p50, stats.p95]).toEqual([sketch.quantile(0.5), sketch.quantile(0.95)]);
    expect(first.sketchBucketCount).toBeGreaterThan(0);
  });

  it('matches sample-by-sample sketches for any mix of whole, fractional and taken-back readings', () => {
    // A whole start long enough for tallies, then anything: fractions of a percent or of a ms
    // whose products round (0.1 x 3 is not 0.3), weight taken back, values past 100 %.
    const whole = fc.tuple(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 5000 }));
    const reading = fc.oneof(fc.integer({ min: 0, max: 120 }), fc.constantFrom(0.5, 12.75, 99.99));
    const weight = fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.constantFrom(0.1, 0.7, -700, -1.5));
    const stream = fc.tuple(
      fc.array(whole, { minLength: DEFER_AFTER_ADDS + 50, maxLength: DEFER_AFTER_ADDS + 50 }),
      fc.array(fc.tuple(reading, weight), { minLength: 1, maxLength: 300 }),
    );
    fc.assert(fc.property(stream, ([start, rest]) => {
      const adds = [...start, ...rest];
      const figures = new FigureAccumulator(5);
      for (const [value, w] of adds) figures.add({ utilizationPct: value }, w);
      const stats = figures.percentStats('utilizationPct');
      // No figures at all where the weights taken back cancel the rest: nothing to compare.
      if (stats === null) return;
      const sketch = directSketch(adds, PERCENT_RANGE);
      expect([stats.p50, stats.p95]).toEqual([sketch.quantile(0.5), sketch.quantile(0.95)]);
    }), { numRuns: 40 });
  });
});

describe('SeriesRecorder intervals with a tally', () => {
  it('has the median interval of a sketch fed interval by interval, jitter, gaps and all', () => {
    // a 1 s log whose stamps jitter by up to 40 ms, with a 10-minute gap and a reading 0.5 ms off
    const times = [Date.UTC(2026, 10, 2)];
    for (let i = 1; i < 3 * DEFER_AFTER_ADDS; i += 1) {
      const step = i === 2000 ? 600_000 : i === 2500 ? 1000.5 : 1000 + ((i * 7919) % 41);
      times.push(times.at(-1)! + step);
    }
    const series = new SeriesRecorder(5);
    for (const time of times) series.record(time, { utilizationPct: 50 });
    const reference = directSketch(times.slice(1).map((time, i): Add => [time - times[i]!, 1]), INTERVAL_MS_RANGE);
    expect(readings(series.intervals)).toEqual(readings(reference));
    expect(series.medianIntervalMs()).toBe(reference.quantile(0.5));
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INTERVAL_MS_RANGE, MIB_RANGE, PERCENT_RANGE, SKETCH_RELATIVE_ERROR, WeightedQuantileSketch,
} from '../../../src/analysis/stats/weighted-quantile-sketch.js';
import { ReferenceQuantileSketch } from '../../helpers/reference-quantile-sketch.js';

/** The definition the sketch approximates: smallest value whose cumulative weight reaches q x total. */
function exactQuantile(entries: readonly (readonly [value: number, weight: number])[], q: number): number {
  const sorted = [...entries].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, weight]) => sum + weight, 0);
  const target = q * total;
  let cumulative = 0;
  for (const [value, weight] of sorted) {
    cumulative += weight;
    if (cumulative >= target) return value;
  }
  return sorted.at(-1)![0];
}

function sketchOf(entries: readonly (readonly [number, number])[], range = PERCENT_RANGE): WeightedQuantileSketch {
  const sketch = new WeightedQuantileSketch(range);
  for (const [value, weight] of entries) sketch.add(value, weight);
  return sketch;
}

describe('weighted quantiles on a small set', () => {
  // value:weight  0:60  10:60  20:60  30:120  40:60  50:60   (total 420)
  const entries = [[0, 60], [10, 60], [20, 60], [30, 120], [40, 60], [50, 60]] as const;

  it('p50 is the first value whose cumulative weight reaches half the total', () => {
    // target 0.5 x 420 = 210; cumulative 60, 120, 180, 300 -> reached at 30
    expect(sketchOf(entries).quantile(0.5)).toBe(30);
  });

  it('p95 reaches into the top value', () => {
    // target 0.95 x 420 = 399; cumulative ... 300, 360, 420 -> reached at 50
    expect(sketchOf(entries).quantile(0.95)).toBe(50);
  });

  it('weight moves the median: giving 0 a weight of 300 makes it the median', () => {
    // 0:300 of total 660; target 330 -> cumulative 300 (0), 360 (10) -> 10
    expect(sketchOf([[0, 300], ...entries.slice(1)]).quantile(0.5)).toBe(10);
  });

  it('has no quantile without weight', () => {
    expect(new WeightedQuantileSketch(PERCENT_RANGE).quantile(0.5)).toBeNull();
  });

  it('takes weight back: subtracting what was added leaves the rest', () => {
    const sketch = sketchOf(entries);
    sketch.add(30, -120);
    sketch.add(0, -60);
    // left: 10:60 20:60 40:60 50:60, total 240; target 120 -> 20
    expect(sketch.quantile(0.5)).toBe(20);
    expect(sketch.totalWeight).toBe(240);
  });

  it('counts a fractional percentage within 0.5 %', () => {
    // DCGM GR_ENGINE_ACTIVE 0.156205 -> 15.6205 %
    const p50 = sketchOf([[15.6205, 1]]).quantile(0.5)!;
    expect(p50).toBeCloseTo(15.6205, 10); // one distinct value in its bucket: exact
  });
});

describe('error bound (property)', () => {
  const weight = fc.integer({ min: 1, max: 100_000 });
  const q = fc.double({ min: 0, max: 1, noNaN: true });

  it('whole percentages 0..100 are exact', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 100 }), weight), { minLength: 1, maxLength: 200 }), q, (entries, quantile) => {
      expect(sketchOf(entries).quantile(quantile)).toBe(exactQuantile(entries, quantile));
    }));
  });

  for (const [name, range] of [['percent', PERCENT_RANGE], ['MiB', MIB_RANGE], ['interval ms', INTERVAL_MS_RANGE]] as const) {
    it(`any ${name} value in range is within ${SKETCH_RELATIVE_ERROR * 100} % of the exact weighted quantile`, () => {
      const value = fc.double({ min: range.minIndexable, max: range.maxIndexable, noNaN: true });
      fc.assert(fc.property(fc.array(fc.tuple(value, weight), { minLength: 1, maxLength: 200 }), q, (entries, quantile) => {
        const exact = exactQuantile(entries, quantile);
        const reported = sketchOf(entries, range).quantile(quantile)!;
        expect(Math.abs(reported - exact) / exact).toBeLessThanOrEqual(SKETCH_RELATIVE_ERROR + 1e-12);
      }));
    });
  }

  it('subtracting a subset gives the quantiles of the rest', () => {
    const entry = fc.tuple(fc.integer({ min: 0, max: 100 }), weight);
    fc.assert(fc.property(fc.array(entry, { minLength: 1, maxLength: 100 }), fc.array(entry, { maxLength: 100 }), q, (kept, removed, quantile) => {
      const sketch = sketchOf([...kept, ...removed]);
      for (const [value, w] of removed) sketch.add(value, -w);
      expect(sketch.quantile(quantile)).toBe(exactQuantile(kept, quantile));
    }));
  });

  it('merging two sketches equals sketching both inputs', () => {
    const entry = fc.tuple(fc.integer({ min: 0, max: 100 }), weight);
    fc.assert(fc.property(fc.array(entry, { minLength: 1, maxLength: 100 }), fc.array(entry, { maxLength: 100 }), q, (a, b, quantile) => {
      const merged = sketchOf(a);
      merged.merge(sketchOf(b));
      expect(merged.quantile(quantile)).toBe(exactQuantile([...a, ...b], quantile));
    }));
  });
});

describe('memory', () => {
  it('holds at most maxBucketCount buckets however many values it sees', () => {
    const sketch = new WeightedQuantileSketch(MIB_RANGE);
    for (let i = 0; i < 200_000; i += 1) sketch.add((i * 7919) % 2 ** 25, 1); // beyond the range on purpose
    expect(sketch.bucketCount).toBeLessThanOrEqual(WeightedQuantileSketch.maxBucketCount(MIB_RANGE));
    // ln(2^24) / ln(1.005) = 16.636 / 0.0049875 = 3335.6 -> about 3337 buckets with the zero bucket
    expect(WeightedQuantileSketch.maxBucketCount(MIB_RANGE)).toBeLessThan(3400);
  });
});

describe('bucket storage', () => {
  it('gives exactly the figures of the reference sketch under any mix of adds, take-backs and merges', () => {
    // Values from a few percent-like choices (so that buckets repeat and empty out) and anything.
    const value = fc.oneof(fc.constantFrom(0, 0.5, 3, 3.01, 42, 99.9, 100, 250), fc.double({ min: -1, max: 200, noNaN: true }));
    const step = fc.tuple(value, fc.integer({ min: -3, max: 3 }).map((sign) => sign * 1000), fc.boolean());
    fc.assert(fc.property(fc.array(step, { maxLength: 200 }), fc.array(step, { maxLength: 50 }), (steps, others) => {
      const sketch = new WeightedQuantileSketch(PERCENT_RANGE);
      const reference = new ReferenceQuantileSketch(PERCENT_RANGE);
      const otherSketch = new WeightedQuantileSketch(PERCENT_RANGE);
      const otherReference = new ReferenceQuantileSketch(PERCENT_RANGE);
      for (const [v, w] of others) {
        otherSketch.add(v, w);
        otherReference.add(v, w);
      }
      for (const [v, w, mergeHere] of steps) {
        sketch.add(v, w);
        reference.add(v, w);
        if (mergeHere) {
          sketch.merge(otherSketch);
          reference.merge(otherReference);
        }
      }
      expect(sketch.bucketCount).toBe(reference.bucketCount);
      for (const q of [0, 0.05, 0.5, 0.95, 1]) expect(Object.is(sketch.quantile(q), reference.quantile(q))).toBe(true);
    }), { numRuns: 500 });
  });

  it('holds nothing for buckets until a positive value arrives', () => {
    const sketch = new WeightedQuantileSketch(PERCENT_RANGE);
    sketch.add(0, 60_000);
    expect(sketch.bucketCount).toBe(1);
    sketch.add(0, -60_000);
    expect(sketch.bucketCount).toBe(0);
  });
});

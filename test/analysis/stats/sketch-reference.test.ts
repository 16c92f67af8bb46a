/**
 * The sketch must give reports identical to the byte whatever its CPU shortcuts (looked-up bucket
 * indices and powers of γ, shared range bounds, in-place bucket moves, one bucket valued per
 * quantile): these properties hold it to the sketch as first written,
 * test/helpers/reference-quantile-sketch.ts, under random streams of adds, take-backs and merges,
 * including what the sketch ignores or folds (0, -0, negative values, NaN, Infinity, zero and
 * non-finite weights) and ranges whose bounds fall outside its lookup tables.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INTERVAL_MS_RANGE, MIB_RANGE, PERCENT_RANGE, type SketchRange, WeightedQuantileSketch,
} from '../../../src/analysis/stats/weighted-quantile-sketch.js';
import { ReferenceQuantileSketch } from '../../helpers/reference-quantile-sketch.js';

/** The ranges in use, copies of them (equal bounds, other objects), and odd ones. */
const RANGES: readonly SketchRange[] = [
  PERCENT_RANGE, MIB_RANGE, INTERVAL_MS_RANGE,
  { minIndexable: 1, maxIndexable: 2 ** 30 }, // PCIe KiB/s, as src/analysis/figure-accumulator.ts has it
  { ...PERCENT_RANGE },
  { minIndexable: 1, maxIndexable: 4 }, // a few buckets: most values fall in an end bucket
  { minIndexable: 1e-12, maxIndexable: 1e30 }, // indices far outside the table of powers
  { minIndexable: 0, maxIndexable: Infinity }, // end buckets at -Infinity and Infinity
];

/** Values that exercise each path: zero and below, non-finite, table edges, bucket bounds. */
const SPECIAL_VALUES = [
  0, -0, -1, -250, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE, 1e-300, 0.005, 0.01, 0.5, 1, 2, 3, 3.01,
  15.6205, 42, 99.9, 100, 100.5, 255, 65_535, 2 ** 17 - 1, 2 ** 17, 2 ** 17 + 0.5, 2 ** 24, 2 ** 24 + 1, 1e12, 1e13,
  Number.MAX_VALUE,
];
const value = fc.oneof(
  fc.constantFrom(...SPECIAL_VALUES),
  fc.integer({ min: -10, max: 200_000 }), // whole percents, MiB and ms, above and below the lookup
  fc.double({ min: 0, max: 200, noNaN: true }), // fractional percents (DCGM ratios x 100)
  fc.double(), // anything, NaN and infinities included
);
const weight = fc.oneof(
  fc.constantFrom(0, -0, Number.NaN, Infinity, -Infinity, 1e-7, -1e-7, 1, 1000, 60_000),
  fc.integer({ min: -5000, max: 100_000 }),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }),
);

type Step =
  | { kind: 'add'; value: number; weight: number }
  /** Takes back an earlier add (by position, modulo their number), as gap correction does. */
  | { kind: 'take-back'; which: number }
  | { kind: 'merge'; adds: [number, number][] }
  | { kind: 'merge-self' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('add' as const), value, weight }) },
  // The same value again: runs of one value are what a real series mostly is.
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), value: fc.constantFrom(0, 7, 42, 81_559, 15.6205), weight }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('take-back' as const), which: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), adds: fc.array(fc.tuple(value, weight), { maxLength: 40 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'merge-self' as const }) },
);

const QUANTILES = [0, 0.01, 0.05, 0.5, 0.95, 0.99, 1, -1, 2, Number.NaN];

/** The buckets a sketch holds, read from its private storage: merges must leave them equal. */
function bucketsOf(sketch: WeightedQuantileSketch | ReferenceQuantileSketch): readonly number[] {
  return (sketch as unknown as { slots: number[] | undefined }).slots ?? [];
}

function expectSameDoubles(actual: readonly (number | null)[], expected: readonly (number | null)[]): void {
  expect(actual.length).toBe(expected.length);
  // Object.is: -0 and 0, NaN and NaN, null and null must match as they are.
  actual.forEach((a, at) => {
    if (!Object.is(a, expected[at])) expect.fail(`at ${at}: ${String(a)} (sketch) vs ${String(expected[at])} (reference)`);
  });
}

function expectSame(sketch: WeightedQuantileSketch, reference: ReferenceQuantileSketch, extraQuantiles: readonly number[]): void {
  expect(sketch.bucketCount).toBe(reference.bucketCount);
  expectSameDoubles([sketch.totalWeight], [reference.totalWeight]);
  expectSameDoubles(bucketsOf(sketch), bucketsOf(reference));
  const qs = [...QUANTILES, ...extraQuantiles];
  expectSameDoubles(qs.map((q) => sketch.quantile(q)), qs.map((q) => reference.quantile(q)));
}

describe('the sketch against its reference implementation (property)', () => {
  it('gives the same buckets, counts, totals and quantiles to the bit for any stream of adds, take-backs and merges', () => {
    fc.assert(fc.property(
      fc.constantFrom(...RANGES), fc.array(step, { maxLength: 150 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
      (range, steps, extraQuantiles) => {
        const sketch = new WeightedQuantileSketch(range);
        const reference = new ReferenceQuantileSketch(range);
        const added: [number, number][] = [];
        for (const s of steps) {
          if (s.kind === 'add' || s.kind === 'take-back') {
            const [v, w] = s.kind === 'add' ? [s.value, s.weight] : added[s.which % Math.max(1, added.length)] ?? [0, 0];
            const signed = s.kind === 'add' ? w : -w;
            sketch.add(v, signed);
            reference.add(v, signed);
            if (s.kind === 'add') added.push([v, w]);
          } else if (s.kind === 'merge') {
            const other = new WeightedQuantileSketch(range);
            const otherReference = new ReferenceQuantileSketch(range);
            for (const [v, w] of s.adds) {
              other.add(v, w);
              otherReference.add(v, w);
            }
            sketch.merge(other);
            reference.merge(otherReference);
            expectSame(other, otherReference, []);
          } else {
            sketch.merge(sketch);
            reference.merge(reference);
          }
        }
        expectSame(sketch, reference, extraQuantiles);
      },
    ), { numRuns: 400 });
  });

  it('reads the same quantiles at every step of a series (reads do not change what follows)', () => {
    fc.assert(fc.property(fc.constantFrom(...RANGES), fc.array(fc.tuple(value, weight), { minLength: 1, maxLength: 60 }), (range, adds) => {
      const sketch = new WeightedQuantileSketch(range);
      const reference = new ReferenceQuantileSketch(range);
      for (const [v, w] of adds) {
        sketch.add(v, w);
        reference.add(v, w);
        expectSameDoubles([sketch.quantile(0.5), sketch.quantile(0.95)], [reference.quantile(0.5), reference.quantile(0.95)]);
      }
    }), { numRuns: 200 });
  });

  it('has the same bucket bound for any range, the ones in use first', () => {
    const bound = fc.oneof(fc.constantFrom(0, 0.01, 1, 100, 2 ** 24, 1e12, Infinity, Number.NaN, -1), fc.double());
    for (const range of RANGES) {
      expect(WeightedQuantileSketch.maxBucketCount(range)).toBe(ReferenceQuantileSketch.maxBucketCount(range));
    }
    fc.assert(fc.property(bound, bound, (minIndexable, maxIndexable) => {
      const range = { minIndexable, maxIndexable };
      expectSameDoubles([WeightedQuantileSketch.maxBucketCount(range)], [ReferenceQuantileSketch.maxBucketCount(range)]);
      // The range's bounds, also when many ranges have been seen (past what the sketch remembers).
      const sketch = new WeightedQuantileSketch(range);
      const reference = new ReferenceQuantileSketch(range);
      for (const v of [0.001, 1, 42.5, 1e9]) {
        sketch.add(v, 1);
        reference.add(v, 1);
      }
      expectSame(sketch, reference, []);
    }), { numRuns: 300 });
  });
});

describe('the sketch against its reference implementation (cases)', () => {
  it('a whole value below 2^17 looked up after its first add lands where its logarithm puts it', () => {
    // 1.005^923 = e^(923 x 0.0049875) = e^4.6035 = 99.83 < 100 <= 1.005^924 = 100.33: bucket 924,
    // whether its index is computed (first add) or looked up (second add, in another sketch).
    for (let pass = 0; pass < 2; pass += 1) {
      const sketch = new WeightedQuantileSketch(INTERVAL_MS_RANGE);
      const reference = new ReferenceQuantileSketch(INTERVAL_MS_RANGE);
      sketch.add(100, 1);
      reference.add(100, 1);
      expect(bucketsOf(sketch)).toEqual([924, 1, 100]);
      expectSame(sketch, reference, []);
    }
  });

  it('inserts buckets in any order and drops emptied ones as the reference does', () => {
    const sketch = new WeightedQuantileSketch(PERCENT_RANGE);
    const reference = new ReferenceQuantileSketch(PERCENT_RANGE);
    // Descending (each insert moves all later buckets), ascending, then empty the middle and both ends.
    const adds: [number, number][] = [[90, 5], [50, 5], [10, 5], [95, 5], [99, 5], [50, -5], [10, -5], [99, -5], [1, 2]];
    for (const [v, w] of adds) {
      sketch.add(v, w);
      reference.add(v, w);
      expectSame(sketch, reference, []);
    }
    // Left: 1:2 90:5 95:5 -> three buckets; p50 target 6 -> cumulative 2, 7 -> 90.
    expect(sketch.bucketCount).toBe(3);
    expect(sketch.quantile(0.5)).toBe(90);
  });
});

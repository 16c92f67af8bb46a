/**
 * Weight per whole value, kept beside a WeightedQuantileSketch and put into it with one add per
 * value later: for a long log of whole numbers (nvidia-smi's integer percents and MiB,
 * millisecond sample intervals) one addition per sample replaces the sketch's logarithm and
 * bucket search.
 *
 * Why the sketch ends up the same to the bit: it keeps per bucket a weight and a weighted sum,
 * and a total. While every value and weight added is a whole number and every sum stays below
 * 2^53, each of these additions is exact, so the sums do not depend on the order or grouping of
 * the adds: w1 x v + w2 x v added one by one equals (w1 + w2) x v added once, and a bucket that
 * holds several values sums the same whichever comes first.
 *
 * The owner keeps, per sketch, its exact mass: the sum of weight x (value + 1) over every add so
 * far, which bounds every weight, weighted sum and total the sketch holds. It turns NaN at the
 * first add that is not whole, takes weight back, or would pass the bound (a DCGM fraction, a gap
 * capped at the end); from then on the owner drains the tally and sends every add straight to
 * the sketch in its order, as if there had never been a tally.
 *
 * The tally covers a window of values. A value outside it drains the tally into the sketch and
 * moves the window to be centred on that value: a level that holds for a while (memory used by
 * one job, a log's cadence) is tallied, a jump costs one drain. A drain reads only the part of
 * the window that was written since the last one.
 */
import type { WeightedQuantileSketch } from './stats/weighted-quantile-sketch.js';

/** The exact mass after adding `weight` of `value`: NaN once any add was not exact (see above). */
export function exactMassAfter(mass: number, value: number, weight: number): number {
  const next = mass + weight * (value + 1);
  // A true sum above 2^53 - 1 rounds to 2^53 or more: the comparison never lets one through.
  return Number.isInteger(value) && Number.isInteger(weight) && weight >= 0 && next <= Number.MAX_SAFE_INTEGER ? next : Number.NaN;
}

export class WholeValueTally {
  /** Weight not yet in the sketch, by value - low. */
  private readonly weights: Float64Array;
  /** Slots written since the last drain: [writtenFrom, writtenTo], empty when from > to. */
  private writtenFrom: number;
  private writtenTo = -1;

  /** `size` values from `low`; by default the window is placed on the first value taken. */
  constructor(size: number, private low = Number.NaN) {
    this.weights = new Float64Array(size);
    this.writtenFrom = size;
  }

  /** Tallies `weight` of `value`, a whole number whose add the owner found exact. */
  take(value: number, weight: number, sketch: WeightedQuantileSketch): void {
    let slot = value - this.low;
    if (!(slot >= 0 && slot < this.weights.length)) slot = this.moveTo(value, sketch);
    this.weights[slot]! += weight;
    if (slot < this.writtenFrom) this.writtenFrom = slot;
    if (slot > this.writtenTo) this.writtenTo = slot;
  }

  /** Drains the tally and centres the window on `value`; returns the value's slot. Kept out of `take`, which runs per sample. */
  private moveTo(value: number, sketch: WeightedQuantileSketch): number {
    this.drainInto(sketch);
    this.low = value - (this.weights.length >> 1);
    return value - this.low;
  }

  /** Adds the tallied weight of each value to `sketch` and empties the tally. */
  drainInto(sketch: WeightedQuantileSketch): void {
    const weights = this.weights;
    for (let slot = this.writtenFrom; slot <= this.writtenTo; slot += 1) {
      const weight = weights[slot]!;
      if (weight === 0) continue;
      sketch.add(this.low + slot, weight);
      weights[slot] = 0;
    }
    this.writtenFrom = weights.length;
    this.writtenTo = -1;
  }
}

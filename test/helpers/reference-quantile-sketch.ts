/**
 * The weighted quantile sketch as it was before its CPU work (flat sorted array, one logarithm
 * per add and per range bound, `splice` for a new bucket, two powers per bucket passed by a
 * quantile), kept verbatim as the oracle of test/analysis/stats/sketch-reference.test.ts and
 * weighted-quantile-sketch.test.ts: the sketch in src/ must give the same quantiles, counts and
 * merges to the bit, since reports must not change. Not used by the CLI.
 */
import type { SketchRange } from '../../src/analysis/stats/weighted-quantile-sketch.js';

const SKETCH_GAMMA = 1.005;

const LOG_GAMMA = Math.log(SKETCH_GAMMA);
/** A bucket whose weight falls to this or below after subtraction is empty (weights are ms or counts). */
const EMPTY_WEIGHT = 1e-6;
const BOUND_SLACK = 1e-9;

function bucketIndex(value: number): number {
  return Math.ceil(Math.log(value) / LOG_GAMMA);
}

/** Numbers per bucket in `ReferenceQuantileSketch.slots`: index, weight, weighted sum. */
const SLOT = 3;

export class ReferenceQuantileSketch {
  /**
   * The occupied buckets, SLOT numbers each ([index, weight, weightedSum, ...]), in
   * increasing index order; undefined until the first bucket.
   */
  private slots: number[] | undefined;
  /** Position (in buckets) of the bucket added to last: runs of equal values find it at once. */
  private recent = 0;
  private zeroWeight = 0;
  private total = 0;
  private readonly lowestIndex: number;
  private readonly highestIndex: number;

  constructor(readonly range: SketchRange) {
    this.lowestIndex = bucketIndex(range.minIndexable);
    this.highestIndex = bucketIndex(range.maxIndexable);
  }

  /** Most buckets this sketch can ever hold (the zero bucket included). */
  static maxBucketCount(range: SketchRange): number {
    return bucketIndex(range.maxIndexable) - bucketIndex(range.minIndexable) + 2;
  }

  get totalWeight(): number {
    return this.total;
  }

  /** Occupied buckets: what this sketch holds in memory. */
  get bucketCount(): number {
    return (this.slots === undefined ? 0 : this.slots.length / SLOT) + (this.zeroWeight > EMPTY_WEIGHT ? 1 : 0);
  }

  /** Adds `weight` of `value`; a negative weight takes back weight added before. Negative values count as 0. */
  add(value: number, weight: number): void {
    if (weight === 0 || !Number.isFinite(value) || !Number.isFinite(weight)) return;
    if (value <= 0) {
      this.total += weight;
      this.zeroWeight += weight;
      if (this.zeroWeight <= EMPTY_WEIGHT) this.zeroWeight = 0;
      return;
    }
    const index = Math.min(this.highestIndex, Math.max(this.lowestIndex, bucketIndex(value)));
    const position = this.find(index);
    const slots = this.slots;
    if (slots === undefined || position < 0) {
      // Taking back weight that was never added would be a caller's bug; there is nothing to take.
      if (weight < 0) return;
      this.total += weight;
      this.insert(~position, index, weight, weight * value);
      return;
    }
    this.total += weight;
    const at = position * SLOT;
    slots[at + 1] = slots[at + 1]! + weight;
    slots[at + 2] = slots[at + 2]! + weight * value;
    if (slots[at + 1]! <= EMPTY_WEIGHT) slots.splice(at, SLOT);
  }

  /** Adds everything in `other` (same range) to this sketch. */
  merge(other: ReferenceQuantileSketch): void {
    this.total += other.total;
    this.zeroWeight += other.zeroWeight;
    const theirs = other.slots;
    if (theirs === undefined) return;
    for (let at = 0; at < theirs.length; at += SLOT) {
      const index = theirs[at]!;
      const position = this.find(index);
      if (position < 0) {
        this.insert(~position, index, theirs[at + 1]!, theirs[at + 2]!);
      } else {
        const slots = this.slots!;
        const mine = position * SLOT;
        slots[mine + 1] = slots[mine + 1]! + theirs[at + 1]!;
        slots[mine + 2] = slots[mine + 2]! + theirs[at + 2]!;
      }
    }
  }

  /** The weighted q-quantile (0 <= q <= 1), or null when the sketch holds no weight. */
  quantile(q: number): number | null {
    if (this.total <= EMPTY_WEIGHT) return null;
    const target = Math.min(1, Math.max(0, q)) * this.total;
    let cumulative = this.zeroWeight;
    if (this.zeroWeight > EMPTY_WEIGHT && cumulative >= target) return 0;
    let last: number | null = this.zeroWeight > EMPTY_WEIGHT ? 0 : null;
    const slots = this.slots ?? [];
    for (let at = 0; at < slots.length; at += SLOT) {
      const weight = slots[at + 1]!;
      cumulative += weight;
      last = this.representative(slots[at]!, weight, slots[at + 2]!);
      if (cumulative >= target) return last;
    }
    // Only rounding in float weights gets here: the top bucket holds the quantile.
    return last;
  }

  /** Position (in buckets) of the bucket `index`, or ~(where it would go) when absent. */
  private find(index: number): number {
    const slots = this.slots;
    if (slots === undefined) return -1;
    const count = slots.length / SLOT;
    if (this.recent < count && slots[this.recent * SLOT] === index) return this.recent;
    let low = 0;
    let high = count - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = slots[middle * SLOT]!;
      if (found < index) low = middle + 1;
      else if (found > index) high = middle - 1;
      else {
        this.recent = middle;
        return middle;
      }
    }
    return ~low;
  }

  private insert(position: number, index: number, weight: number, weightedSum: number): void {
    this.recent = position;
    // Most sketches of a short input never hold more than one bucket: exactly its size.
    if (this.slots === undefined) this.slots = [index, weight, weightedSum];
    else this.slots.splice(position * SLOT, 0, index, weight, weightedSum);
  }

  private representative(index: number, weight: number, weightedSum: number): number {
    const mean = weightedSum / weight;
    // Keep float drift from subtraction inside the bucket (bounds widened by a hair so that a
    // value sitting exactly on a bound is never moved); the end buckets are open-ended.
    const lower = index === this.lowestIndex ? 0 : SKETCH_GAMMA ** (index - 1) * (1 - BOUND_SLACK);
    const upper = index === this.highestIndex ? Infinity : SKETCH_GAMMA ** index * (1 + BOUND_SLACK);
    return Math.min(upper, Math.max(lower, mean));
  }
}

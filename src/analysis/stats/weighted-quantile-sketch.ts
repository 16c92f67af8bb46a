/**
 * A weighted quantile sketch that can also take weight away again.
 *
 * Why subtraction: a sample's weight is the time until the next sample, capped at twice the
 * series' median interval, and the median is only known at the end. Samples are therefore
 * added with their full interval and the excess of the few long gaps is subtracted once the
 * cap is known (see ../series.ts).
 *
 * Layout: the value 0 has a bucket of its own (idle GPUs report exactly 0 a lot). A positive
 * value v goes to bucket i = ceil(log_γ v), which holds (γ^(i-1), γ^i], with γ = 1.005. Each
 * bucket keeps its total weight and the weighted sum of its values; the value a bucket stands
 * for is the weighted mean of what is in it.
 *
 * Error bound: the weighted mean of a bucket lies inside the bucket, and any two values of one
 * bucket are within a factor γ of each other, so a reported quantile is within a relative
 * error of γ - 1 = 0.5% of the exact weighted quantile (defined below). Out of range: values
 * below `minIndexable` share the lowest bucket (absolute error below minIndexable x γ), values
 * above `maxIndexable` share the highest; the ranges below are chosen so real inputs stay inside.
 *
 * Exactness: a bucket that only ever held one distinct value reports that value. Below 100 a
 * bucket is narrower than 0.5, so whole-number percentages (nvidia-smi prints integers) never
 * share a bucket and their quantiles are exact. With integer weights (milliseconds) the
 * weighted sums stay exact integers under addition and subtraction.
 *
 * Memory: three numbers per occupied bucket, at most `maxBucketCount(range)`, whatever the
 * number of values added, and nothing until a positive value arrives. They live in one flat
 * array sorted by bucket index rather than a Map of bucket objects: a report of 10,000 GPUs
 * holds hundreds of thousands of sketches, most with a handful of buckets, and a Map and an
 * object per bucket cost several times the numbers they hold.
 *
 * Quantile definition: the q-quantile is the smallest value v whose cumulative weight
 * (weight of all values <= v) reaches q x total weight.
 */

export interface SketchRange {
  /** Smallest positive value with a bucket of its own. */
  minIndexable: number;
  /** Largest value with a bucket of its own. */
  maxIndexable: number;
}

/** Percentages: 0.01 % .. 100 % (DCGM ratios x 100 carry fractions; utilization is whole). */
export const PERCENT_RANGE: SketchRange = { minIndexable: 0.01, maxIndexable: 100 };
/** Memory in MiB: 1 MiB .. 16 TiB. */
export const MIB_RANGE: SketchRange = { minIndexable: 1, maxIndexable: 2 ** 24 };
/** Sample intervals in milliseconds: 1 ms .. about 30 years. */
export const INTERVAL_MS_RANGE: SketchRange = { minIndexable: 1, maxIndexable: 1e12 };

export const SKETCH_GAMMA = 1.005;
/** Documented bound on |reported - exact| / exact for in-range values. */
export const SKETCH_RELATIVE_ERROR = SKETCH_GAMMA - 1;

const LOG_GAMMA = Math.log(SKETCH_GAMMA);
/** A bucket whose weight falls to this or below after subtraction is empty (weights are ms or counts). */
const EMPTY_WEIGHT = 1e-6;
const BOUND_SLACK = 1e-9;

function bucketIndex(value: number): number {
  return Math.ceil(Math.log(value) / LOG_GAMMA);
}

/** Numbers per bucket in `WeightedQuantileSketch.slots`: index, weight, weighted sum. */
const SLOT = 3;

export class WeightedQuantileSketch {
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
  merge(other: WeightedQuantileSketch): void {
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

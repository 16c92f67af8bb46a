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
 *
 * CPU: a report of 10,000 GPUs builds 8 sketches per series, adds a few values to each and
 * reads one or two quantiles, so the fixed costs count. The bucket bounds of a range are worked
 * out once per range, not per sketch; the bucket index of a whole number below 2^17 (percents,
 * MiB, ms) and the powers of γ that bound a bucket are each worked out once per process and
 * looked up after (the same expressions, so the same doubles); a quantile computes the value of
 * the one bucket where it stops, not of every bucket it passes; a new bucket moves the later
 * ones up in place rather than through `splice`. test/analysis/stats/sketch-reference.test.ts
 * holds all of it to the sketch as first written (test/helpers/reference-quantile-sketch.ts),
 * bit for bit.
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

/**
 * Whole numbers below this have their bucket index remembered once found: nvidia-smi and DCGM
 * print whole percents and MiB, and intervals are whole ms, so most adds of a fleet repeat a few
 * thousand values. Indices of 1 .. 2^17 - 1 are 0 .. 2363, which fit an Int16Array (256 KiB).
 */
const WHOLE_INDEX_VALUES = 2 ** 17;
/** Bucket index + 1 of each whole value (0: not worked out yet); allocated at the first use. */
let wholeIndexPlusOne: Int16Array | undefined;

/** bucketIndex(value) for a positive finite value, looked up for a whole number below 2^17. */
function bucketIndexOf(value: number): number {
  if (value < WHOLE_INDEX_VALUES) {
    const whole = value | 0;
    if (whole === value) {
      const table = (wholeIndexPlusOne ??= new Int16Array(WHOLE_INDEX_VALUES));
      const known = table[whole]!;
      if (known !== 0) return known - 1;
      const index = bucketIndex(whole);
      table[whole] = index + 1;
      return index;
    }
  }
  return bucketIndex(value);
}

/**
 * γ^index for the indices of the ranges in use (the lowest, of 0.01 %, is -923; the highest, of
 * 1e12 ms, 5541), each computed once: a quantile bounds its bucket with two of them. An index is
 * a whole number (the ceiling of a logarithm); one outside the table, or the ±Infinity or NaN of
 * an odd range's bound, is computed each time.
 */
const POWER_OFFSET = 2048;
const POWER_SLOTS = POWER_OFFSET + 8192;
/** γ^(slot - POWER_OFFSET) by slot (0: not computed yet; no power of γ in the table is 0). */
let powers: Float64Array | undefined;

function gammaPower(index: number): number {
  const slot = index + POWER_OFFSET;
  if (!(slot >= 0 && slot < POWER_SLOTS)) return SKETCH_GAMMA ** index;
  const table = (powers ??= new Float64Array(POWER_SLOTS));
  const known = table[slot]!;
  if (known !== 0) return known;
  return (table[slot] = SKETCH_GAMMA ** index);
}

interface RangeBounds {
  minIndexable: number;
  maxIndexable: number;
  lowestIndex: number;
  highestIndex: number;
}

/** The bounds of the ranges seen so far (a handful): two logarithms per range, not per sketch. */
const knownBounds: RangeBounds[] = [];
const KNOWN_BOUNDS_KEPT = 16;

function boundsOf(range: SketchRange): RangeBounds {
  const { minIndexable, maxIndexable } = range;
  for (const bounds of knownBounds) {
    if (bounds.minIndexable === minIndexable && bounds.maxIndexable === maxIndexable) return bounds;
  }
  const bounds = { minIndexable, maxIndexable, lowestIndex: bucketIndex(minIndexable), highestIndex: bucketIndex(maxIndexable) };
  if (knownBounds.length < KNOWN_BOUNDS_KEPT) knownBounds.push(bounds);
  return bounds;
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
    const bounds = boundsOf(range);
    this.lowestIndex = bounds.lowestIndex;
    this.highestIndex = bounds.highestIndex;
  }

  /** Most buckets this sketch can ever hold (the zero bucket included). */
  static maxBucketCount(range: SketchRange): number {
    const bounds = boundsOf(range);
    return bounds.highestIndex - bounds.lowestIndex + 2;
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
    const index = Math.min(this.highestIndex, Math.max(this.lowestIndex, bucketIndexOf(value)));
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
    if (slots[at + 1]! <= EMPTY_WEIGHT) this.remove(at);
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
    const holdsZero = this.zeroWeight > EMPTY_WEIGHT;
    if (holdsZero && cumulative >= target) return 0;
    const slots = this.slots;
    if (slots === undefined || slots.length === 0) return holdsZero ? 0 : null;
    // Stop at the first bucket whose cumulative weight reaches the target; only rounding in
    // float weights passes them all, and then the top bucket holds the quantile.
    const top = slots.length - SLOT;
    let at = 0;
    for (; at < top; at += SLOT) {
      cumulative += slots[at + 1]!;
      if (cumulative >= target) break;
    }
    return this.representative(at);
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
    const slots = this.slots;
    // Most sketches of a short input never hold more than one bucket: exactly its size.
    if (slots === undefined) {
      this.slots = [index, weight, weightedSum];
      return;
    }
    // One bucket more at the end (the array grows its store by half when full), then the later
    // buckets move up one; added in increasing order (a tally drained), none move.
    const at = position * SLOT;
    let from = slots.length;
    slots.push(0, 0, 0);
    while (from > at) {
      from -= 1;
      slots[from + SLOT] = slots[from]!;
    }
    slots[at] = index;
    slots[at + 1] = weight;
    slots[at + 2] = weightedSum;
  }

  /** Drops the bucket at `at` (in numbers), moving the later ones down. */
  private remove(at: number): void {
    const slots = this.slots!;
    const end = slots.length - SLOT;
    for (let to = at; to < end; to += 1) slots[to] = slots[to + SLOT]!;
    slots.length = end;
  }

  /** The value the bucket at `at` (in numbers) stands for. */
  private representative(at: number): number {
    const slots = this.slots!;
    const index = slots[at]!;
    const mean = slots[at + 2]! / slots[at + 1]!;
    // Keep float drift from subtraction inside the bucket (bounds widened by a hair so that a
    // value sitting exactly on a bound is never moved); the end buckets are open-ended.
    const lower = index === this.lowestIndex ? 0 : gammaPower(index - 1) * (1 - BOUND_SLACK);
    const upper = index === this.highestIndex ? Infinity : gammaPower(index) * (1 + BOUND_SLACK);
    return Math.min(upper, Math.max(lower, mean));
  }
}

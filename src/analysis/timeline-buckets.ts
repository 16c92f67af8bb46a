/**
 * A device's activity over time in equal buckets (GpuEntry.timeline), in memory that does not
 * grow with samples.
 *
 * Buckets are aligned to the epoch: bucket k covers [k x width, (k + 1) x width). Width starts
 * at BASE_BUCKET_MS and doubles (merging pairs of neighbours) whenever the buckets needed would
 * exceed STREAMING_BUCKET_CAP; aligned doubling keeps every merge exact and lets two timelines
 * of different widths be summed once the finer is widened to the coarser.
 *
 * Compute: each sample adds, per ladder rung, weight and weight x percent to every bucket its
 * time overlaps, split by time at bucket edges; a bucket's mean is the sum over the weight.
 * Weights can be taken back (the part of a gap beyond the cap, known only at the end).
 *
 * Memory: the largest memory used by a sample whose time overlaps the bucket. A sample is
 * counted in the bucket where it starts at once; for the later buckets it reaches, it is
 * remembered as the bucket's "carried" sample with its start time, and `settle(capMs)` keeps
 * it only where the capped time still reaches the bucket. Pair merges keep the carried sample
 * of the earlier half: the later half's is either the same sample or one that starts in the
 * earlier half and is counted there already.
 */
import { type GpuTimeline, TIMELINE_MAX_BUCKETS } from '../model/report.js';
import { RUNG_COUNT } from './compute-percent.js';

export const BASE_BUCKET_MS = 60_000;
/** Buckets held while streaming; `shrinkTo` brings them down to what the report shows. */
export const STREAMING_BUCKET_CAP = 2 * TIMELINE_MAX_BUCKETS;
/** Weight left over from adding and taking back the same time (floating point), in ms. */
const NEGLIGIBLE_WEIGHT_MS = 1e-3;

const maxOf = (a: number, b: number): number => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));

export class TimelineBuckets {
  bucketMs = BASE_BUCKET_MS;
  /** Epoch bucket number of the first bucket held. */
  private first = 0;
  private weight: number[][] = Array.from({ length: RUNG_COUNT }, () => []);
  private weightedSum: number[][] = Array.from({ length: RUNG_COUNT }, () => []);
  /** NaN where no memory reading reaches the bucket. */
  private memoryMax: number[] = [];
  private carried: number[] = [];
  private carriedFromMs: number[] = [];

  get count(): number {
    return this.memoryMax.length;
  }

  /**
   * A sample's time [startMs, startMs + durationMs), until `settle` says how far it really
   * reaches: its percent per rung (NaN where none, see computePercents) and its memory used.
   */
  addSample(startMs: number, durationMs: number, percents: Float64Array, memory: number | undefined): void {
    if (!(durationMs > 0)) return;
    const endMs = startMs + durationMs;
    this.cover(startMs, endMs);
    this.addCompute(startMs, endMs, percents, 1);
    if (memory === undefined) return;
    const startBucket = this.bucketOf(startMs);
    this.memoryMax[startBucket] = maxOf(this.memoryMax[startBucket]!, memory);
    for (let bucket = startBucket + 1; bucket < this.count && this.bucketStartMs(bucket) < endMs; bucket += 1) {
      this.carried[bucket] = memory;
      this.carriedFromMs[bucket] = startMs;
    }
  }

  /** Takes back the compute weight of [startMs, startMs + durationMs) of a sample added before. */
  takeBack(startMs: number, durationMs: number, percents: Float64Array): void {
    if (!(durationMs > 0)) return;
    this.addCompute(startMs, startMs + durationMs, percents, -1);
  }

  /** Counts each carried memory reading where its sample's time, capped at `capMs`, reaches the bucket. */
  settle(capMs: number): void {
    for (let bucket = 0; bucket < this.count; bucket += 1) {
      const from = this.carriedFromMs[bucket]!;
      if (Number.isNaN(from)) continue;
      if (this.bucketStartMs(bucket) - from < capMs) this.memoryMax[bucket] = maxOf(this.memoryMax[bucket]!, this.carried[bucket]!);
      this.carried[bucket] = Number.NaN;
      this.carriedFromMs[bucket] = Number.NaN;
    }
  }

  /** Adds a settled timeline (of time this one does not cover) into this one; `other` may be widened. */
  merge(other: TimelineBuckets): void {
    if (other.count === 0) return;
    for (;;) {
      while (this.bucketMs < other.bucketMs) this.widen();
      while (other.bucketMs < this.bucketMs) other.widen();
      if (this.count === 0) this.first = other.first;
      const before = this.bucketMs;
      this.cover(other.first * other.bucketMs, (other.first + other.count) * other.bucketMs);
      if (this.bucketMs === before) break;
    }
    const offset = other.first - this.first;
    for (let bucket = 0; bucket < other.count; bucket += 1) {
      const target = bucket + offset;
      for (let rung = 0; rung < RUNG_COUNT; rung += 1) {
        this.weight[rung]![target]! += other.weight[rung]![bucket]!;
        this.weightedSum[rung]![target]! += other.weightedSum[rung]![bucket]!;
      }
      this.memoryMax[target] = maxOf(this.memoryMax[target]!, other.memoryMax[bucket]!);
    }
  }

  /** Widens until at most `maxBuckets` remain. */
  shrinkTo(maxBuckets: number): void {
    while (this.count > maxBuckets) this.widen();
  }

  /** The report field for the rung chosen as compute basis (-1: none, compute all null). */
  toTimeline(rung: number): GpuTimeline | null {
    if (this.count === 0) return null;
    const computeMeanPct = this.memoryMax.map((_, bucket) => {
      if (rung < 0) return null;
      const weight = this.weight[rung]![bucket]!;
      return weight > NEGLIGIBLE_WEIGHT_MS ? this.weightedSum[rung]![bucket]! / weight : null;
    });
    return {
      start: new Date(this.first * this.bucketMs).toISOString(),
      bucketSeconds: this.bucketMs / 1000,
      computeMeanPct,
      memoryUsedMaxMiB: this.memoryMax.map((value) => (Number.isNaN(value) ? null : value)),
    };
  }

  private bucketOf(timeMs: number): number {
    return Math.floor(timeMs / this.bucketMs) - this.first;
  }

  private bucketStartMs(bucket: number): number {
    return (this.first + bucket) * this.bucketMs;
  }

  private addCompute(startMs: number, endMs: number, percents: Float64Array, sign: 1 | -1): void {
    for (let bucket = Math.max(0, this.bucketOf(startMs)); bucket < this.count; bucket += 1) {
      const bucketStart = this.bucketStartMs(bucket);
      if (bucketStart >= endMs) break;
      const partMs = sign * (Math.min(endMs, bucketStart + this.bucketMs) - Math.max(startMs, bucketStart));
      for (let rung = 0; rung < RUNG_COUNT; rung += 1) {
        const percent = percents[rung]!;
        if (Number.isNaN(percent)) continue;
        this.weight[rung]![bucket]! += partMs;
        this.weightedSum[rung]![bucket]! += partMs * percent;
      }
    }
  }

  /** Makes the buckets reach from startMs to endMs, widening while more than the cap would be needed. */
  private cover(startMs: number, endMs: number): void {
    // Most samples land inside the buckets held already.
    if (this.count > 0 && startMs >= this.first * this.bucketMs && endMs <= (this.first + this.count) * this.bucketMs) return;
    for (;;) {
      const firstNeeded = Math.floor(startMs / this.bucketMs);
      const endNeeded = Math.ceil(endMs / this.bucketMs);
      const newFirst = this.count === 0 ? firstNeeded : Math.min(this.first, firstNeeded);
      const newEnd = this.count === 0 ? endNeeded : Math.max(this.first + this.count, endNeeded);
      if (newEnd - newFirst > STREAMING_BUCKET_CAP) {
        if (this.count === 0) this.bucketMs *= 2;
        else this.widen();
        continue;
      }
      const before = this.count === 0 ? 0 : this.first - newFirst;
      const after = newEnd - newFirst - before - this.count;
      this.first = newFirst;
      this.extend(before, after);
      return;
    }
  }

  private extend(before: number, after: number): void {
    if (before === 0 && after === 0) return;
    const pad = (values: number[], fill: number): number[] =>
      before > 0 ? [...new Array<number>(before).fill(fill), ...values, ...new Array<number>(after).fill(fill)]
        : (values.push(...new Array<number>(after).fill(fill)), values);
    this.weight = this.weight.map((values) => pad(values, 0));
    this.weightedSum = this.weightedSum.map((values) => pad(values, 0));
    this.memoryMax = pad(this.memoryMax, Number.NaN);
    this.carried = pad(this.carried, Number.NaN);
    this.carriedFromMs = pad(this.carriedFromMs, Number.NaN);
  }

  /** Doubles the bucket width, merging each even-numbered bucket with the odd one after it. */
  private widen(): void {
    const newFirst = Math.floor(this.first / 2);
    const newCount = this.count === 0 ? 0 : Math.floor((this.first + this.count - 1) / 2) - newFirst + 1;
    const weight = this.weight.map(() => new Array<number>(newCount).fill(0));
    const weightedSum = this.weightedSum.map(() => new Array<number>(newCount).fill(0));
    const memoryMax = new Array<number>(newCount).fill(Number.NaN);
    const carried = new Array<number>(newCount).fill(Number.NaN);
    const carriedFromMs = new Array<number>(newCount).fill(Number.NaN);
    for (let bucket = 0; bucket < this.count; bucket += 1) {
      const epochBucket = this.first + bucket;
      const target = Math.floor(epochBucket / 2) - newFirst;
      for (let rung = 0; rung < RUNG_COUNT; rung += 1) {
        weight[rung]![target]! += this.weight[rung]![bucket]!;
        weightedSum[rung]![target]! += this.weightedSum[rung]![bucket]!;
      }
      memoryMax[target] = maxOf(memoryMax[target]!, this.memoryMax[bucket]!);
      if (epochBucket % 2 === 0) {
        carried[target] = this.carried[bucket]!;
        carriedFromMs[target] = this.carriedFromMs[bucket]!;
      }
    }
    this.bucketMs *= 2;
    this.first = newFirst;
    this.weight = weight;
    this.weightedSum = weightedSum;
    this.memoryMax = memoryMax;
    this.carried = carried;
    this.carriedFromMs = carriedFromMs;
  }
}

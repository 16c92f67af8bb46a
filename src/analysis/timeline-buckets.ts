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
 *
 * Layout: all numbers of all buckets in one array of doubles, STRIDE per bucket, grown at the
 * end in place (a fleet of 10,000 GPUs holds 10,000 of these, most with a bucket or two: one
 * array each, where arrays per rung and per figure made 13 small arrays and their garbage as
 * they grew). A plain number array rather than a Float64Array: V8 keeps it unboxed all the
 * same and allocates it on its heap, where each small typed array costs an ArrayBuffer.
 */
import type { GpuComputeSeries, GpuTimeline } from '../model/index.js';
import { RUNG_COUNT } from './compute-percent.js';
import { IsoTimes } from './iso-time.js';
import { SharedBudget, type BudgetMember } from './shared-budget.js';

export const BASE_BUCKET_MS = 60_000;
/**
 * Buckets held while streaming: a week of minutes, so that the joint demand of workloads that
 * might share a GPU is judged minute by minute (GpuEntry.computeSeries); `shrinkTo` brings them
 * down to what the charts show (TIMELINE_MAX_BUCKETS).
 */
export const STREAMING_BUCKET_CAP = 7 * 24 * 60;
/**
 * Buckets held by all timelines of a fleet before they are widened (./shared-budget.ts): tens of
 * megabytes. Past it, a fleet's timelines hold and report fewer, wider buckets, at least MIN_TIMELINE_BUCKETS.
 */
export const MAX_TIMELINE_BUCKETS_HELD = 256 * 1024;
export const MIN_TIMELINE_BUCKETS = 32;

/** The limit on the buckets a fleet's timelines hold. */
export function timelineBucketBudget(): SharedBudget {
  return new SharedBudget(MAX_TIMELINE_BUCKETS_HELD, STREAMING_BUCKET_CAP, MIN_TIMELINE_BUCKETS);
}
/** Weight left over from adding and taking back the same time (floating point), in ms. */
const NEGLIGIBLE_WEIGHT_MS = 1e-3;

/** Offsets in a bucket's cells: compute weight per rung, weighted sum per rung, then memory. */
const SUM = RUNG_COUNT;
/** NaN where no memory reading reaches the bucket. */
const MEMORY_MAX = 2 * RUNG_COUNT;
const CARRIED = MEMORY_MAX + 1;
const CARRIED_FROM_MS = MEMORY_MAX + 2;
const STRIDE = MEMORY_MAX + 3;

const maxOf = (a: number, b: number): number => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));

/** The devices of a fleet mostly share their timeline's start. */
const TIMELINE_STARTS = new IsoTimes();

/** Appends an empty bucket: no weight, no memory reading, nothing carried. */
function pushEmptyBucket(cells: number[]): void {
  for (let cell = 0; cell < MEMORY_MAX; cell += 1) cells.push(0);
  cells.push(Number.NaN, Number.NaN, Number.NaN);
}

/** Adds `partMs` of time at each rung's percent to the bucket whose cells start at `at`. */
function addComputePart(cells: number[], at: number, partMs: number, percents: Float64Array): void {
  for (let rung = 0; rung < RUNG_COUNT; rung += 1) {
    const percent = percents[rung]!;
    if (Number.isNaN(percent)) continue;
    cells[at + rung]! += partMs;
    cells[at + SUM + rung]! += partMs * percent;
  }
}

export class TimelineBuckets implements BudgetMember {
  bucketMs = BASE_BUCKET_MS;
  /** Epoch bucket number of the first bucket held. */
  private first = 0;
  private held = 0;
  /** STRIDE numbers per bucket held (see the offsets above). */
  private cells: number[] = [];
  /** Buckets held at most: the budget's capacity, which a cut may lower. */
  private cap: number;

  /** `budget`: the buckets a fleet's timelines share. */
  constructor(private readonly budget?: SharedBudget) {
    this.cap = budget?.capacity ?? STREAMING_BUCKET_CAP;
    budget?.join(this);
  }

  /** Buckets held (the budget's unit). */
  get budgetedCount(): number {
    return this.held;
  }

  /** Widens until at most `capacity` buckets remain, and holds no more than that from now on. */
  limitTo(capacity: number): void {
    this.cap = Math.min(this.cap, capacity);
    this.shrinkTo(this.cap);
  }

  /**
   * A sample's time [startMs, startMs + durationMs), until `settle` says how far it really
   * reaches: its percent per rung (NaN where none, see computePercents) and its memory used.
   */
  addSample(startMs: number, durationMs: number, percents: Float64Array, memory: number | undefined): void {
    if (!(durationMs > 0)) return;
    const endMs = startMs + durationMs;
    this.cover(startMs, endMs);
    const cells = this.cells;
    const startBucket = this.bucketOf(startMs);
    const bucketStart = this.bucketStartMs(startBucket);
    if (endMs <= bucketStart + this.bucketMs && bucketStart < endMs) {
      // Most samples: seconds inside a bucket of minutes, one bucket to add to (as addCompute would).
      addComputePart(cells, startBucket * STRIDE, endMs - Math.max(startMs, bucketStart), percents);
      if (memory !== undefined) cells[startBucket * STRIDE + MEMORY_MAX] = maxOf(cells[startBucket * STRIDE + MEMORY_MAX]!, memory);
      return;
    }
    this.addCompute(startMs, endMs, percents, 1);
    if (memory === undefined) return;
    const at = startBucket * STRIDE + MEMORY_MAX;
    cells[at] = maxOf(cells[at]!, memory);
    for (let bucket = startBucket + 1; bucket < this.held && this.bucketStartMs(bucket) < endMs; bucket += 1) {
      cells[bucket * STRIDE + CARRIED] = memory;
      cells[bucket * STRIDE + CARRIED_FROM_MS] = startMs;
    }
  }

  /** Takes back the compute weight of [startMs, startMs + durationMs) of a sample added before. */
  takeBack(startMs: number, durationMs: number, percents: Float64Array): void {
    if (!(durationMs > 0)) return;
    this.addCompute(startMs, startMs + durationMs, percents, -1);
  }

  /** Counts each carried memory reading where its sample's time, capped at `capMs`, reaches the bucket. */
  settle(capMs: number): void {
    const cells = this.cells;
    for (let bucket = 0; bucket < this.held; bucket += 1) {
      const at = bucket * STRIDE;
      const from = cells[at + CARRIED_FROM_MS]!;
      if (Number.isNaN(from)) continue;
      if (this.bucketStartMs(bucket) - from < capMs) cells[at + MEMORY_MAX] = maxOf(cells[at + MEMORY_MAX]!, cells[at + CARRIED]!);
      cells[at + CARRIED] = Number.NaN;
      cells[at + CARRIED_FROM_MS] = Number.NaN;
    }
  }

  /** Adds a settled timeline (of time this one does not cover) into this one; `other` may be widened. */
  merge(other: TimelineBuckets): void {
    if (other.held === 0) return;
    for (;;) {
      while (this.bucketMs < other.bucketMs) this.widen();
      while (other.bucketMs < this.bucketMs) other.widen();
      if (this.held === 0) this.first = other.first;
      const before = this.bucketMs;
      this.cover(other.first * other.bucketMs, (other.first + other.held) * other.bucketMs);
      if (this.bucketMs === before) break;
    }
    const cells = this.cells;
    const theirs = other.cells;
    const offset = other.first - this.first;
    for (let bucket = 0; bucket < other.held; bucket += 1) {
      const from = bucket * STRIDE;
      const to = (bucket + offset) * STRIDE;
      for (let rung = 0; rung < RUNG_COUNT; rung += 1) {
        cells[to + rung]! += theirs[from + rung]!;
        cells[to + SUM + rung]! += theirs[from + SUM + rung]!;
      }
      cells[to + MEMORY_MAX] = maxOf(cells[to + MEMORY_MAX]!, theirs[from + MEMORY_MAX]!);
    }
  }

  /** Widens until at most `maxBuckets` remain. */
  shrinkTo(maxBuckets: number): void {
    while (this.held > maxBuckets) this.widen();
  }

  /** The compute of the rung chosen as basis in the buckets held: GpuEntry.computeSeries. */
  toComputeSeries(rung: number): GpuComputeSeries | null {
    if (this.held === 0 || rung < 0) return null;
    const cells = this.cells;
    const meanPct: (number | null)[] = [];
    for (let bucket = 0; bucket < this.held; bucket += 1) {
      const at = bucket * STRIDE;
      const weight = cells[at + rung]!;
      // A tenth of a percent: the precision a sum of a few members is judged at.
      meanPct.push(weight > NEGLIGIBLE_WEIGHT_MS ? Math.round((cells[at + SUM + rung]! / weight) * 10) / 10 : null);
    }
    return { start: TIMELINE_STARTS.of(this.first * this.bucketMs), bucketSeconds: this.bucketMs / 1000, meanPct };
  }

  /** The report field for the rung chosen as compute basis (-1: none, compute all null). */
  toTimeline(rung: number): GpuTimeline | null {
    if (this.held === 0) return null;
    const cells = this.cells;
    const computeMeanPct: (number | null)[] = [];
    const memoryUsedMaxMiB: (number | null)[] = [];
    for (let bucket = 0; bucket < this.held; bucket += 1) {
      const at = bucket * STRIDE;
      const weight = rung < 0 ? 0 : cells[at + rung]!;
      computeMeanPct.push(rung >= 0 && weight > NEGLIGIBLE_WEIGHT_MS ? cells[at + SUM + rung]! / weight : null);
      const memory = cells[at + MEMORY_MAX]!;
      memoryUsedMaxMiB.push(Number.isNaN(memory) ? null : memory);
    }
    return {
      start: TIMELINE_STARTS.of(this.first * this.bucketMs),
      bucketSeconds: this.bucketMs / 1000,
      computeMeanPct,
      memoryUsedMaxMiB,
    };
  }

  private bucketOf(timeMs: number): number {
    return Math.floor(timeMs / this.bucketMs) - this.first;
  }

  private bucketStartMs(bucket: number): number {
    return (this.first + bucket) * this.bucketMs;
  }

  private addCompute(startMs: number, endMs: number, percents: Float64Array, sign: 1 | -1): void {
    const cells = this.cells;
    for (let bucket = Math.max(0, this.bucketOf(startMs)); bucket < this.held; bucket += 1) {
      const bucketStart = this.bucketStartMs(bucket);
      if (bucketStart >= endMs) break;
      addComputePart(cells, bucket * STRIDE, sign * (Math.min(endMs, bucketStart + this.bucketMs) - Math.max(startMs, bucketStart)), percents);
    }
  }

  /** Makes the buckets reach from startMs to endMs, widening while more than the cap would be needed. */
  private cover(startMs: number, endMs: number): void {
    // Most samples land inside the buckets held already.
    if (this.held > 0 && startMs >= this.first * this.bucketMs && endMs <= (this.first + this.held) * this.bucketMs) return;
    for (;;) {
      const firstNeeded = Math.floor(startMs / this.bucketMs);
      const endNeeded = Math.ceil(endMs / this.bucketMs);
      const newFirst = this.held === 0 ? firstNeeded : Math.min(this.first, firstNeeded);
      const newEnd = this.held === 0 ? endNeeded : Math.max(this.first + this.held, endNeeded);
      if (newEnd - newFirst > this.cap) {
        if (this.held === 0) this.bucketMs *= 2;
        else this.widen();
        continue;
      }
      const before = this.held === 0 ? 0 : this.first - newFirst;
      const after = newEnd - newFirst - before - this.held;
      this.first = newFirst;
      this.extend(before, after);
      return;
    }
  }

  /** Adds empty buckets before and after those held (after: in place). */
  private extend(before: number, after: number): void {
    if (before > 0) {
      const cells: number[] = [];
      for (let bucket = 0; bucket < before; bucket += 1) pushEmptyBucket(cells);
      for (const cell of this.cells) cells.push(cell);
      this.cells = cells;
    }
    for (let bucket = 0; bucket < after; bucket += 1) pushEmptyBucket(this.cells);
    this.held += before + after;
    this.budget?.changed(before + after);
  }

  /** Doubles the bucket width, merging each even-numbered bucket with the odd one after it. */
  private widen(): void {
    const newFirst = Math.floor(this.first / 2);
    const newCount = this.held === 0 ? 0 : Math.floor((this.first + this.held - 1) / 2) - newFirst + 1;
    const cells: number[] = [];
    for (let bucket = 0; bucket < newCount; bucket += 1) pushEmptyBucket(cells);
    const old = this.cells;
    for (let bucket = 0; bucket < this.held; bucket += 1) {
      const epochBucket = this.first + bucket;
      const from = bucket * STRIDE;
      const to = (Math.floor(epochBucket / 2) - newFirst) * STRIDE;
      for (let rung = 0; rung < RUNG_COUNT; rung += 1) {
        cells[to + rung]! += old[from + rung]!;
        cells[to + SUM + rung]! += old[from + SUM + rung]!;
      }
      cells[to + MEMORY_MAX] = maxOf(cells[to + MEMORY_MAX]!, old[from + MEMORY_MAX]!);
      if (epochBucket % 2 === 0) {
        cells[to + CARRIED] = old[from + CARRIED]!;
        cells[to + CARRIED_FROM_MS] = old[from + CARRIED_FROM_MS]!;
      }
    }
    this.bucketMs *= 2;
    this.first = newFirst;
    this.budget?.changed(newCount - this.held);
    this.held = newCount;
    this.cells = cells;
  }
}

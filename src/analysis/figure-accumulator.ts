/**
 * Weighted running figures of one device (or one series of it): for every signal its weight,
 * weighted sum (exact mean), maximum and a quantile sketch, and for every rung of the compute
 * ladder the weight observed and the weight idle. Weights are milliseconds for timed samples
 * and 1 per reading for point values. A negative weight takes weight back (gap correction);
 * maxima only ever grow, since capping a gap does not change what was seen.
 *
 * Layout: the running numbers of all signals and rungs live in one array of doubles (offsets
 * below), beside one sketch per signal. A fleet of 10,000 GPUs holds one accumulator per
 * series: an object per signal and per rung, each with its numbers boxed, cost about twice
 * these numbers, and `add` runs once per sample.
 *
 * Whole percents and MiB (nvidia-smi prints integers) reach their sketches through tallies of
 * weight per value once the accumulator has seen DEFER_AFTER_ADDS samples: one addition per
 * sample instead of a logarithm and a bucket search, the tallies going into the sketches when the
 * figures are read (./whole-value-tally.ts says why the sketches end up the same to the bit).
 */
import type { MemoryStats, PercentStats, ThroughputStats } from '../model/index.js';
import { COMPUTE_LADDER, type LadderBasis } from './compute-ladder.js';
import type { PcieMetric, PercentMetric, SampleValues } from './sample-values.js';
import { MIB_RANGE, PERCENT_RANGE, type SketchRange, WeightedQuantileSketch } from './stats/weighted-quantile-sketch.js';
import { exactMassAfter, WholeValueTally } from './whole-value-tally.js';

/** PCIe throughput in KiB/s: 1 KiB/s .. 1 TiB/s (a Gen6 x16 link carries about 121 GB/s each way). */
const KIBPS_RANGE: SketchRange = { minIndexable: 1, maxIndexable: 2 ** 30 };
const KIB_PER_MIB = 1024;

/** The signals with figures, by number: the percent signals, memory used, PCIe. */
const UTILIZATION = 0;
const SM_ACTIVE = 1;
const TENSOR_ACTIVE = 2;
const GR_ENGINE_ACTIVE = 3;
const MEMORY_USED = 4;
const PCIE_RX = 5;
const PCIE_TX = 6;
const SIGNAL_RANGES: readonly SketchRange[] = [PERCENT_RANGE, PERCENT_RANGE, PERCENT_RANGE, PERCENT_RANGE, MIB_RANGE, KIBPS_RANGE, KIBPS_RANGE];
const SIGNAL_OF: Record<PercentMetric | PcieMetric, number> = {
  utilizationPct: UTILIZATION,
  smActivePct: SM_ACTIVE,
  tensorActivePct: TENSOR_ACTIVE,
  grEngineActivePct: GR_ENGINE_ACTIVE,
  pcieRxKiBps: PCIE_RX,
  pcieTxKiBps: PCIE_TX,
};

/** Offsets in `scalars`: per signal [weight, weighted sum, max] ... */
const FIELDS_PER_SIGNAL = 3;
const SIGNAL_WEIGHT = 0;
const SIGNAL_SUM = 1;
const SIGNAL_MAX = 2;
/** ... then per ladder rung, in COMPUTE_LADDER order, [observed weight, idle weight] ... */
const IDLE = SIGNAL_RANGES.length * FIELDS_PER_SIGNAL;
const RUNG_OF = new Map<LadderBasis, number>(COMPUTE_LADDER.map((rung, position) => [rung.basis, position]));
/** ... then the weight of all samples and the largest memory total ... */
const WEIGHT = IDLE + 2 * COMPUTE_LADDER.length;
const MEMORY_TOTAL_MAX = WEIGHT + 1;
/** ... then the number of samples added and, per tallied signal, its exact mass (see ./whole-value-tally.ts). */
const ADDS = MEMORY_TOTAL_MAX + 1;
const EXACT_MASS = ADDS + 1;
/** Signals whose whole values may go through a tally: the first ones, UTILIZATION .. MEMORY_USED. */
const TALLIED_SIGNALS = MEMORY_USED + 1;
const SCALAR_COUNT = EXACT_MASS + TALLIED_SIGNALS;

/**
 * Samples an accumulator takes before whole values go through tallies: a short series (a few
 * scrapes of each of 10,000 GPUs) never holds one, a long log one per signal it reports.
 */
export const DEFER_AFTER_ADDS = 1024;
/** Percents tally 0 .. 100 at once; MiB in a window that follows the memory used. */
const PERCENT_TALLY_VALUES = 101;
const MIB_TALLY_VALUES = 256;

/**
 * The numbers of a new accumulator: weights and sums 0, maxima -Infinity. Each accumulator
 * copies them in one allocation (a fleet builds one per series) rather than growing its array.
 */
const INITIAL_SCALARS: readonly number[] = (() => {
  const scalars: number[] = [];
  for (let at = 0; at < SCALAR_COUNT; at += 1) scalars.push(0);
  for (let signal = 0; signal < SIGNAL_RANGES.length; signal += 1) scalars[signal * FIELDS_PER_SIGNAL + SIGNAL_MAX] = -Infinity;
  scalars[MEMORY_TOTAL_MAX] = -Infinity;
  return scalars;
})();

export interface IdleTally {
  observedWeight: number;
  idleWeight: number;
}

export class FigureAccumulator {
  private readonly scalars: number[];
  private readonly sketches: WeightedQuantileSketch[];
  /** Per tallied signal, whole-value weight not yet in its sketch; undefined until DEFER_AFTER_ADDS samples. */
  private tallies: (WholeValueTally | undefined)[] | undefined;

  constructor(readonly idleThresholdPct: number) {
    this.scalars = INITIAL_SCALARS.slice();
    this.sketches = SIGNAL_RANGES.map((range) => new WeightedQuantileSketch(range));
  }

  /** Sum of weights of all samples, whatever they report. */
  get weight(): number {
    return this.scalars[WEIGHT]!;
  }

  /** Runs once per sample: the signals are named one by one rather than looked up by key. */
  add(values: SampleValues, weight: number): void {
    const scalars = this.scalars;
    scalars[WEIGHT]! += weight;
    scalars[ADDS]! += 1;
    if (values.utilizationPct !== undefined) this.addTalliedSignal(UTILIZATION, values.utilizationPct, weight);
    if (values.smActivePct !== undefined) this.addTalliedSignal(SM_ACTIVE, values.smActivePct, weight);
    if (values.tensorActivePct !== undefined) this.addTalliedSignal(TENSOR_ACTIVE, values.tensorActivePct, weight);
    if (values.grEngineActivePct !== undefined) this.addTalliedSignal(GR_ENGINE_ACTIVE, values.grEngineActivePct, weight);
    if (values.memoryUsedMiB !== undefined) this.addTalliedSignal(MEMORY_USED, values.memoryUsedMiB, weight);
    if (values.memoryTotalMiB !== undefined && weight > 0) scalars[MEMORY_TOTAL_MAX] = Math.max(scalars[MEMORY_TOTAL_MAX]!, values.memoryTotalMiB);
    if (values.pcieRxKiBps !== undefined) this.addSignal(PCIE_RX, values.pcieRxKiBps, weight);
    if (values.pcieTxKiBps !== undefined) this.addSignal(PCIE_TX, values.pcieTxKiBps, weight);
    // The ladder's rungs written out, in COMPUTE_LADDER order (signal read by name, idle as the
    // ladder defines it): test/perf/sample-hot-path.test.ts holds this to the ladder's functions.
    const threshold = this.idleThresholdPct;
    if (values.smActivePct !== undefined) this.tally(0, weight, values.smActivePct < threshold);
    if (values.grEngineActivePct !== undefined) this.tally(1, weight, values.grEngineActivePct < threshold);
    if (values.utilizationPct !== undefined) this.tally(2, weight, values.utilizationPct < threshold);
    if (values.computeProcessCount !== undefined) this.tally(3, weight, values.computeProcessCount === 0);
  }

  merge(other: FigureAccumulator): void {
    this.settleTallies();
    other.settleTallies();
    const scalars = this.scalars;
    const theirs = other.scalars;
    scalars[WEIGHT]! += theirs[WEIGHT]!;
    scalars[ADDS]! += theirs[ADDS]!;
    // The sum of two exact sketches is exact while the masses stay in range (NaN: one was not).
    for (let signal = 0; signal < TALLIED_SIGNALS; signal += 1) {
      const mass = scalars[EXACT_MASS + signal]! + theirs[EXACT_MASS + signal]!;
      scalars[EXACT_MASS + signal] = exactMassAfter(mass, 0, 0);
    }
    for (let signal = 0; signal < SIGNAL_RANGES.length; signal += 1) {
      const at = signal * FIELDS_PER_SIGNAL;
      scalars[at + SIGNAL_WEIGHT]! += theirs[at + SIGNAL_WEIGHT]!;
      scalars[at + SIGNAL_SUM]! += theirs[at + SIGNAL_SUM]!;
      scalars[at + SIGNAL_MAX] = Math.max(scalars[at + SIGNAL_MAX]!, theirs[at + SIGNAL_MAX]!);
      this.sketches[signal]!.merge(other.sketches[signal]!);
    }
    scalars[MEMORY_TOTAL_MAX] = Math.max(scalars[MEMORY_TOTAL_MAX]!, theirs[MEMORY_TOTAL_MAX]!);
    for (let at = IDLE; at < WEIGHT; at += 1) scalars[at]! += theirs[at]!;
  }

  percentStats(metric: PercentMetric): PercentStats | null {
    const signal = SIGNAL_OF[metric];
    if (!this.observed(signal)) return null;
    this.settleTallies();
    const sketch = this.sketches[signal]!;
    return { mean: this.mean(signal), p50: sketch.quantile(0.5)!, p95: sketch.quantile(0.95)!, max: this.max(signal) };
  }

  memoryUsedStats(): MemoryStats | null {
    if (!this.observed(MEMORY_USED)) return null;
    this.settleTallies();
    return { mean: this.mean(MEMORY_USED), p95: this.sketches[MEMORY_USED]!.quantile(0.95)!, max: this.max(MEMORY_USED) };
  }

  /** Weighted mean, p95 and max of a PCIe throughput, converted from the samples' KiB/s to MiB/s. */
  pcieStats(metric: PcieMetric): ThroughputStats | null {
    const signal = SIGNAL_OF[metric];
    if (!this.observed(signal)) return null;
    return { mean: this.mean(signal) / KIB_PER_MIB, p95: this.sketches[signal]!.quantile(0.95)! / KIB_PER_MIB, max: this.max(signal) / KIB_PER_MIB };
  }

  /** Largest `memoryTotalMiB` a sample carried (CSV `memory.total`), for devices without inventory. */
  memoryTotalMiB(): number | null {
    const max = this.scalars[MEMORY_TOTAL_MAX]!;
    return Number.isFinite(max) ? max : null;
  }

  idleTally(basis: LadderBasis): IdleTally {
    const at = IDLE + 2 * RUNG_OF.get(basis)!;
    return { observedWeight: this.scalars[at]!, idleWeight: this.scalars[at + 1]! };
  }

  /** Occupied sketch buckets over all signals: the part of the state that grows with distinct values. */
  get sketchBucketCount(): number {
    this.settleTallies();
    let count = 0;
    for (const sketch of this.sketches) count += sketch.bucketCount;
    return count;
  }

  private addSignal(signal: number, value: number, weight: number): void {
    const scalars = this.scalars;
    const at = signal * FIELDS_PER_SIGNAL;
    scalars[at + SIGNAL_WEIGHT]! += weight;
    scalars[at + SIGNAL_SUM]! += weight * value;
    if (weight > 0 && value > scalars[at + SIGNAL_MAX]!) scalars[at + SIGNAL_MAX] = value;
    this.sketches[signal]!.add(value, weight);
  }

  /** addSignal for a signal whose whole values may go through a tally. */
  private addTalliedSignal(signal: number, value: number, weight: number): void {
    const scalars = this.scalars;
    const at = signal * FIELDS_PER_SIGNAL;
    scalars[at + SIGNAL_WEIGHT]! += weight;
    scalars[at + SIGNAL_SUM]! += weight * value;
    if (weight > 0 && value > scalars[at + SIGNAL_MAX]!) scalars[at + SIGNAL_MAX] = value;
    const mass = exactMassAfter(scalars[EXACT_MASS + signal]!, value, weight);
    scalars[EXACT_MASS + signal] = mass;
    if (Number.isNaN(mass)) {
      // Inexact from here on: what the tally holds goes in first, then every add in its order.
      this.settleTally(signal);
      this.sketches[signal]!.add(value, weight);
      return;
    }
    const tally = this.tallyOf(signal);
    if (tally === undefined) this.sketches[signal]!.add(value, weight);
    else tally.take(value, weight, this.sketches[signal]!);
  }

  /** The signal's tally, created once the accumulator has taken DEFER_AFTER_ADDS samples. */
  private tallyOf(signal: number): WholeValueTally | undefined {
    const tally = this.tallies?.[signal];
    if (tally !== undefined || this.scalars[ADDS]! < DEFER_AFTER_ADDS) return tally;
    this.tallies ??= [undefined, undefined, undefined, undefined, undefined];
    return (this.tallies[signal] = signal === MEMORY_USED ? new WholeValueTally(MIB_TALLY_VALUES) : new WholeValueTally(PERCENT_TALLY_VALUES, 0));
  }

  private settleTally(signal: number): void {
    const tally = this.tallies?.[signal];
    if (tally === undefined) return;
    tally.drainInto(this.sketches[signal]!);
    this.tallies![signal] = undefined;
  }

  /** Puts every tallied weight into the sketches (before they are read or merged). */
  private settleTallies(): void {
    if (this.tallies === undefined) return;
    for (let signal = 0; signal < TALLIED_SIGNALS; signal += 1) this.tallies[signal]?.drainInto(this.sketches[signal]!);
  }

  private tally(rung: number, weight: number, isIdle: boolean): void {
    const at = IDLE + 2 * rung;
    this.scalars[at]! += weight;
    if (isIdle) this.scalars[at + 1]! += weight;
  }

  private observed(signal: number): boolean {
    return this.scalars[signal * FIELDS_PER_SIGNAL + SIGNAL_WEIGHT]! > 0;
  }

  private mean(signal: number): number {
    const at = signal * FIELDS_PER_SIGNAL;
    return this.scalars[at + SIGNAL_SUM]! / this.scalars[at + SIGNAL_WEIGHT]!;
  }

  private max(signal: number): number {
    return this.scalars[signal * FIELDS_PER_SIGNAL + SIGNAL_MAX]!;
  }
}

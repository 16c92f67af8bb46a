/**
 * Weighted running figures of one device (or one series of it): for every signal its weight,
 * weighted sum (exact mean), maximum and a quantile sketch, and for every rung of the compute
 * ladder the weight observed and the weight idle. Weights are milliseconds for timed samples
 * and 1 per reading for point values. A negative weight takes weight back (gap correction);
 * maxima only ever grow, since capping a gap does not change what was seen.
 */
import type { MemoryStats, PercentStats, ThroughputStats } from '../model/report.js';
import { COMPUTE_LADDER, type LadderBasis } from './compute-ladder.js';
import { PCIE_METRICS, PERCENT_METRICS, type PcieMetric, type PercentMetric, type SampleValues } from './sample-values.js';
import { MIB_RANGE, PERCENT_RANGE, type SketchRange, WeightedQuantileSketch } from './stats/weighted-quantile-sketch.js';

/** PCIe throughput in KiB/s: 1 KiB/s .. 1 TiB/s (a Gen6 x16 link carries about 121 GB/s each way). */
const KIBPS_RANGE: SketchRange = { minIndexable: 1, maxIndexable: 2 ** 30 };
const KIB_PER_MIB = 1024;

class SignalFigures {
  weight = 0;
  weightedSum = 0;
  max = -Infinity;
  readonly sketch: WeightedQuantileSketch;

  constructor(range: SketchRange) {
    this.sketch = new WeightedQuantileSketch(range);
  }

  add(value: number, weight: number): void {
    this.weight += weight;
    this.weightedSum += weight * value;
    if (weight > 0 && value > this.max) this.max = value;
    this.sketch.add(value, weight);
  }

  merge(other: SignalFigures): void {
    this.weight += other.weight;
    this.weightedSum += other.weightedSum;
    this.max = Math.max(this.max, other.max);
    this.sketch.merge(other.sketch);
  }

  get observed(): boolean {
    return this.weight > 0;
  }

  mean(): number {
    return this.weightedSum / this.weight;
  }
}

export interface IdleTally {
  observedWeight: number;
  idleWeight: number;
}

export class FigureAccumulator {
  /** Sum of weights of all samples, whatever they report. */
  weight = 0;
  private readonly percent: Record<PercentMetric, SignalFigures>;
  private readonly memoryUsed = new SignalFigures(MIB_RANGE);
  private readonly pcie: Record<PcieMetric, SignalFigures> = { pcieRxKiBps: new SignalFigures(KIBPS_RANGE), pcieTxKiBps: new SignalFigures(KIBPS_RANGE) };
  private memoryTotalMax = -Infinity;
  private readonly idle: Record<LadderBasis, IdleTally>;
  /** The same tallies in COMPUTE_LADDER order. */
  private readonly talliesByRung: readonly IdleTally[];

  constructor(readonly idleThresholdPct: number) {
    this.percent = {
      utilizationPct: new SignalFigures(PERCENT_RANGE),
      smActivePct: new SignalFigures(PERCENT_RANGE),
      tensorActivePct: new SignalFigures(PERCENT_RANGE),
      grEngineActivePct: new SignalFigures(PERCENT_RANGE),
    };
    this.idle = {
      'sm-active': { observedWeight: 0, idleWeight: 0 },
      'gr-engine-active': { observedWeight: 0, idleWeight: 0 },
      utilization: { observedWeight: 0, idleWeight: 0 },
      processes: { observedWeight: 0, idleWeight: 0 },
    };
    this.talliesByRung = COMPUTE_LADDER.map((rung) => this.idle[rung.basis]);
  }

  /** Runs once per sample: the percent signals are named one by one rather than looked up by key. */
  add(values: SampleValues, weight: number): void {
    this.weight += weight;
    const percent = this.percent;
    if (values.utilizationPct !== undefined) percent.utilizationPct.add(values.utilizationPct, weight);
    if (values.smActivePct !== undefined) percent.smActivePct.add(values.smActivePct, weight);
    if (values.tensorActivePct !== undefined) percent.tensorActivePct.add(values.tensorActivePct, weight);
    if (values.grEngineActivePct !== undefined) percent.grEngineActivePct.add(values.grEngineActivePct, weight);
    if (values.memoryUsedMiB !== undefined) this.memoryUsed.add(values.memoryUsedMiB, weight);
    if (values.memoryTotalMiB !== undefined && weight > 0) this.memoryTotalMax = Math.max(this.memoryTotalMax, values.memoryTotalMiB);
    if (values.pcieRxKiBps !== undefined) this.pcie.pcieRxKiBps.add(values.pcieRxKiBps, weight);
    if (values.pcieTxKiBps !== undefined) this.pcie.pcieTxKiBps.add(values.pcieTxKiBps, weight);
    const tallies = this.talliesByRung;
    for (let rung = 0; rung < tallies.length; rung += 1) {
      const { signal, isIdle } = COMPUTE_LADDER[rung]!;
      const reading = signal(values);
      if (reading === undefined) continue;
      const tally = tallies[rung]!;
      tally.observedWeight += weight;
      if (isIdle(reading, this.idleThresholdPct)) tally.idleWeight += weight;
    }
  }

  merge(other: FigureAccumulator): void {
    this.weight += other.weight;
    for (const metric of PERCENT_METRICS) this.percent[metric].merge(other.percent[metric]);
    this.memoryUsed.merge(other.memoryUsed);
    for (const metric of PCIE_METRICS) this.pcie[metric].merge(other.pcie[metric]);
    this.memoryTotalMax = Math.max(this.memoryTotalMax, other.memoryTotalMax);
    for (const rung of COMPUTE_LADDER) {
      this.idle[rung.basis].observedWeight += other.idle[rung.basis].observedWeight;
      this.idle[rung.basis].idleWeight += other.idle[rung.basis].idleWeight;
    }
  }

  percentStats(metric: PercentMetric): PercentStats | null {
    const figures = this.percent[metric];
    if (!figures.observed) return null;
    return { mean: figures.mean(), p50: figures.sketch.quantile(0.5)!, p95: figures.sketch.quantile(0.95)!, max: figures.max };
  }

  memoryUsedStats(): MemoryStats | null {
    const figures = this.memoryUsed;
    if (!figures.observed) return null;
    return { mean: figures.mean(), p95: figures.sketch.quantile(0.95)!, max: figures.max };
  }

  /** Weighted mean, p95 and max of a PCIe throughput, converted from the samples' KiB/s to MiB/s. */
  pcieStats(metric: PcieMetric): ThroughputStats | null {
    const figures = this.pcie[metric];
    if (!figures.observed) return null;
    return { mean: figures.mean() / KIB_PER_MIB, p95: figures.sketch.quantile(0.95)! / KIB_PER_MIB, max: figures.max / KIB_PER_MIB };
  }

  /** Largest `memoryTotalMiB` a sample carried (CSV `memory.total`), for devices without inventory. */
  memoryTotalMiB(): number | null {
    return Number.isFinite(this.memoryTotalMax) ? this.memoryTotalMax : null;
  }

  idleTally(basis: LadderBasis): IdleTally {
    return this.idle[basis];
  }

  /** Occupied sketch buckets over all signals: the part of the state that grows with distinct values. */
  get sketchBucketCount(): number {
    let count = this.memoryUsed.sketch.bucketCount;
    for (const metric of PCIE_METRICS) count += this.pcie[metric].sketch.bucketCount;
    for (const metric of PERCENT_METRICS) count += this.percent[metric].sketch.bucketCount;
    return count;
  }
}

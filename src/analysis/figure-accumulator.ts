/**
 * Weighted running figures of one device (or one series of it): for every signal its weight,
 * weighted sum (exact mean), maximum and a quantile sketch, and for every rung of the compute
 * ladder the weight observed and the weight idle. Weights are milliseconds for timed samples
 * and 1 per reading for point values. A negative weight takes weight back (gap correction);
 * maxima only ever grow, since capping a gap does not change what was seen.
 */
import type { MemoryStats, PercentStats } from '../model/report.js';
import { COMPUTE_LADDER, type LadderBasis } from './compute-ladder.js';
import { PERCENT_METRICS, type PercentMetric, type SampleValues } from './sample-values.js';
import { MIB_RANGE, PERCENT_RANGE, type SketchRange, WeightedQuantileSketch } from './stats/weighted-quantile-sketch.js';

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
  private memoryTotalMax = -Infinity;
  private readonly idle: Record<LadderBasis, IdleTally>;

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
  }

  add(values: SampleValues, weight: number): void {
    this.weight += weight;
    for (const metric of PERCENT_METRICS) {
      const value = values[metric];
      if (value !== undefined) this.percent[metric].add(value, weight);
    }
    if (values.memoryUsedMiB !== undefined) this.memoryUsed.add(values.memoryUsedMiB, weight);
    if (values.memoryTotalMiB !== undefined && weight > 0) this.memoryTotalMax = Math.max(this.memoryTotalMax, values.memoryTotalMiB);
    for (const rung of COMPUTE_LADDER) {
      const signal = rung.signal(values);
      if (signal === undefined) continue;
      const tally = this.idle[rung.basis];
      tally.observedWeight += weight;
      if (rung.isIdle(signal, this.idleThresholdPct)) tally.idleWeight += weight;
    }
  }

  merge(other: FigureAccumulator): void {
    this.weight += other.weight;
    for (const metric of PERCENT_METRICS) this.percent[metric].merge(other.percent[metric]);
    this.memoryUsed.merge(other.memoryUsed);
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
    for (const metric of PERCENT_METRICS) count += this.percent[metric].sketch.bucketCount;
    return count;
  }
}

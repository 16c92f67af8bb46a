/**
 * What the inference servers' metrics add up to, per server instance: each counter's increase
 * over the window (a reading below the one before is a restart, counted from 0 again, as
 * Prometheus' rate() does), each gauge's mean and maximum, each histogram bucket's increase,
 * and the last of each summary quantile. Memory grows with instances, metrics and buckets
 * (and the distinct scrape times of an instance), never with the readings.
 */
import type { ServingMetric, ServingReadingKind, ServingSample, ServingServer } from '../../model/index.js';
import { ServingIntervals, type ServingInterval } from './serving-intervals.js';

/** One counter series (or histogram bucket, sum or count): its first and last reading and the increase between. */
export interface ServingCounter {
  metric: ServingMetric;
  kind: ServingReadingKind;
  bound: number | undefined;
  first: number;
  last: number;
  increase: number;
  resets: number;
  readings: number;
}

export interface ServingGaugeState {
  sum: number;
  count: number;
  max: number;
}

export interface ServingInstanceState {
  server: ServingServer;
  instance: string;
  host: string;
  model: string | null;
  namespace: string | null;
  pod: string | null;
  /**
   * Distinct scrape times (epoch ms) of timed readings, and the latest of them: a set, not a
   * count, because a file may list each series with all its times before the next series
   * (readings are then in order per series, not per page).
   */
  times: Set<number>;
  latestMs: number;
  /** `metric kind series bound` -> counter. */
  counters: Map<string, ServingCounter>;
  gauges: Map<ServingMetric, ServingGaugeState>;
  /** Summary quantile -> its last reading, by metric. */
  quantiles: Map<ServingMetric, Map<number, number>>;
  /** Load and latency by interval of the table's grid; null past MAX_TIMELINE_INSTANCES. */
  intervals: Map<number, ServingInterval> | null;
}

/** Bounds on what hostile or runaway labels can make the table hold: server instances, and series (with buckets) per instance. */
export const MAX_SERVING_INSTANCES = 10_000;
export const MAX_SERVING_SERIES_PER_INSTANCE = 4_096;
/** Instances whose load is kept by interval (for capacity, peaks and charts): the rest keep window totals only. */
export const MAX_TIMELINE_INSTANCES = 256;

export class ServingTable {
  readonly instances = new Map<string, ServingInstanceState>();
  /** Readings older than a later scrape of the same instance already read (a file out of order): not counted. */
  outOfOrder = 0;
  /** Readings of instances or series past the bounds above: not kept. */
  dropped = 0;
  /** The grid all instances' intervals share, so that pools add up interval by interval. */
  readonly grid = new ServingIntervals();
  private timelines = 0;

  add(sample: ServingSample): void {
    let state = this.instances.get(sample.instance);
    if (state === undefined) {
      if (this.instances.size >= MAX_SERVING_INSTANCES) {
        this.dropped += 1;
        return;
      }
      state = {
        server: sample.server, instance: sample.instance, host: sample.host, model: sample.model, namespace: sample.namespace, pod: sample.pod,
        times: new Set(), latestMs: -Infinity, counters: new Map(), gauges: new Map(), quantiles: new Map(),
        intervals: this.timelines < MAX_TIMELINE_INSTANCES ? new Map() : null,
      };
      if (state.intervals !== null) this.timelines += 1;
      this.instances.set(sample.instance, state);
    }
    if (sample.time !== undefined) {
      if (sample.time < state.latestMs && !state.times.has(sample.time)) {
        this.outOfOrder += 1;
        return;
      }
      if (!state.times.has(sample.time)) {
        // A new scrape: the time since the one before is covered, in the interval it ends in.
        if (state.intervals !== null && Number.isFinite(state.latestMs)) this.grid.at(state, sample.time).spanMs += sample.time - state.latestMs;
        state.times.add(sample.time);
      }
      state.latestMs = Math.max(state.latestMs, sample.time);
    }
    if (sample.kind === 'gauge') {
      const gauge = state.gauges.get(sample.metric) ?? { sum: 0, count: 0, max: -Infinity };
      gauge.sum += sample.value;
      gauge.count += 1;
      gauge.max = Math.max(gauge.max, sample.value);
      state.gauges.set(sample.metric, gauge);
      if (sample.metric === 'waiting' && sample.time !== undefined && state.intervals !== null) {
        const interval = this.grid.at(state, sample.time);
        interval.waitingSum += sample.value;
        interval.waitingCount += 1;
      }
      return;
    }
    if (sample.kind === 'quantile') {
      const byQuantile = state.quantiles.get(sample.metric) ?? new Map<number, number>();
      byQuantile.set(sample.bound!, sample.value);
      state.quantiles.set(sample.metric, byQuantile);
      return;
    }
    const key = `${sample.metric} ${sample.kind} ${sample.series} ${sample.bound ?? ''}`;
    const counter = state.counters.get(key);
    if (counter === undefined) {
      if (state.counters.size >= MAX_SERVING_SERIES_PER_INSTANCE) {
        this.dropped += 1;
        return;
      }
      state.counters.set(key, { metric: sample.metric, kind: sample.kind, bound: sample.bound, first: sample.value, last: sample.value, increase: 0, resets: 0, readings: 1 });
      return;
    }
    const delta = sample.value >= counter.last ? sample.value - counter.last : sample.value;
    if (sample.value < counter.last) counter.resets += 1;
    counter.increase += delta;
    counter.last = sample.value;
    counter.readings += 1;
    if (sample.time !== undefined && state.intervals !== null) this.grid.count(state, sample, delta);
  }
}

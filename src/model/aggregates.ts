/**
 * Per-device aggregates computed outside the streaming analysis: pushed down to a Prometheus
 * server (src/sources/live/prometheus produces them) and made into GpuEntries by
 * src/analysis/aggregates.ts, with the same identity, compute ladder and idle definitions.
 */
import type { ComputeBasis, DeviceRef } from './observations.js';
import type { MemoryStats, PercentStats, ThroughputStats } from './report.js';

/** Percent signals that get PercentStats in the report. */
export type PercentMetric = 'utilizationPct' | 'smActivePct' | 'tensorActivePct' | 'grEngineActivePct';

/** A rung of the compute ladder that has readings (DESIGN.md section 5). */
export type LadderBasis = Exclude<ComputeBasis, 'unknown'>;

export interface IdleAggregate {
  /** Time in which the signal was read, seconds. */
  observedSeconds: number;
  /** Part of it in which the signal was below the idle threshold, seconds. */
  idleSeconds: number;
}

/** Values on a grid of whole hours from `startMs`; null where the device had no data. */
export interface HourlyValues {
  startMs: number;
  values: (number | null)[];
}

export interface DeviceAggregates {
  ref: DeviceRef;
  model?: string;
  migProfile?: string;
  memoryTotalMiB?: number;
  percent: Partial<Record<PercentMetric, PercentStats>>;
  memoryUsedMiB?: MemoryStats;
  /** PCIe traffic each way, MiB/s. */
  pcieRxMiBps?: ThroughputStats;
  pcieTxMiBps?: ThroughputStats;
  idle: Partial<Record<LadderBasis, IdleAggregate>>;
  /** Time in which any signal of the device was read, seconds (its GPU-hours x 3600). */
  observedSeconds: number;
  samples: number;
  firstSeenMs?: number;
  lastSeenMs?: number;
  /** Hourly mean of the device's best compute signal, percent. */
  hourlyComputePct?: HourlyValues;
  /** The report's timeline, from `startMs` (epoch ms) in buckets of `bucketSeconds`. */
  timeline?: { startMs: number; bucketSeconds: number; computeMeanPct: (number | null)[]; memoryUsedMaxMiB: (number | null)[] };
  /** Containers of a pod mapping seen on the device, in the producer's order; absent without one. */
  pods?: readonly PodOnDeviceAggregate[];
}

export interface PodOnDeviceAggregate {
  namespace: string;
  pod: string;
  container?: string | null;
  /** Sightings (query steps) at which it held the device, and the first and last of them (epoch ms). */
  steps: number;
  firstSeenMs: number;
  lastSeenMs: number;
}


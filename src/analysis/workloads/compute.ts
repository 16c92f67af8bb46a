/**
 * A workload's compute profile from its devices' figures (DESIGN.md section 5: the signal
 * ladder). Each device weighs by the GPU-hours attributed to the workload (its hours x share).
 *
 * - basis: the weakest rung among the devices (a workload is only as well measured as its
 *   worst-measured device); mean = weighted mean of the devices' means on that basis; p95 =
 *   the highest device p95 on that basis (percentiles of different devices do not average).
 *   The processes rung has no percentage: mean and p95 are null there.
 * - idleFraction: weighted mean of the devices' idle fractions (each on its own basis);
 *   busyFraction = 1 - idleFraction.
 * - signals: weighted means of each ladder signal where any device has it.
 * - hourOfWeekPct: per hour of the week, the weighted mean of the devices' hourOfWeekComputePct.
 */
import type { ComputeBasis } from '../../model/index.js';
import type { GpuEntry, PercentStats } from '../../model/index.js';
import { COMPUTE_LADDER } from '../compute-ladder.js';

export interface WeightedDevice {
  device: GpuEntry;
  /** GPU-hours attributed to the workload; a device without timed samples weighs as 1 reading. */
  weight: number;
}

export interface ComputeSignals {
  smActivePct: number | null;
  tensorActivePct: number | null;
  grEngineActivePct: number | null;
  utilizationPct: number | null;
}

export interface WorkloadComputeProfile {
  basis: ComputeBasis;
  mean: number | null;
  p95: number | null;
  busyFraction: number | null;
  idleFraction: number | null;
  signals: ComputeSignals;
  hourOfWeekPct: (number | null)[] | null;
}

export const HOURS_PER_WEEK = 168;

const RUNG_ORDER: readonly ComputeBasis[] = [...COMPUTE_LADDER.map((rung) => rung.basis), 'unknown'];

function statsOn(device: GpuEntry, basis: ComputeBasis): PercentStats | null {
  switch (basis) {
    case 'sm-active': return device.smActive;
    case 'gr-engine-active': return device.grEngineActive;
    case 'utilization': return device.utilization;
    default: return null;
  }
}

function weightedMean(pairs: readonly [number | null | undefined, number][]): number | null {
  let total = 0;
  let weights = 0;
  for (const [value, weight] of pairs) {
    if (value === null || value === undefined || weight <= 0) continue;
    total += value * weight;
    weights += weight;
  }
  return weights > 0 ? total / weights : null;
}

function weakestBasis(devices: readonly WeightedDevice[]): ComputeBasis {
  const known = devices.map(({ device }) => device.computeBasis).filter((basis) => basis !== 'unknown');
  if (known.length === 0) return 'unknown';
  return known.reduce((weakest, basis) => (RUNG_ORDER.indexOf(basis) > RUNG_ORDER.indexOf(weakest) ? basis : weakest));
}

function hourOfWeek(devices: readonly WeightedDevice[]): (number | null)[] | null {
  const profiles = devices.filter(({ device }) => Array.isArray(device.hourOfWeekComputePct));
  if (profiles.length === 0) return null;
  return Array.from({ length: HOURS_PER_WEEK }, (_, hour) =>
    weightedMean(profiles.map(({ device, weight }) => [device.hourOfWeekComputePct![hour], weight])));
}

export function workloadCompute(devices: readonly WeightedDevice[]): WorkloadComputeProfile {
  const basis = weakestBasis(devices);
  const onBasis = devices.map(({ device, weight }) => ({ stats: statsOn(device, basis), weight }));
  const p95s = onBasis.map(({ stats }) => stats?.p95).filter((value): value is number => value !== undefined);
  const idleFraction = weightedMean(devices.map(({ device, weight }) => [device.idleFraction, weight]));
  const signal = (pick: (device: GpuEntry) => PercentStats | null): number | null =>
    weightedMean(devices.map(({ device, weight }) => [pick(device)?.mean, weight]));
  return {
    basis,
    mean: weightedMean(onBasis.map(({ stats, weight }) => [stats?.mean, weight])),
    p95: p95s.length === 0 ? null : Math.max(...p95s),
    busyFraction: idleFraction === null ? null : 1 - idleFraction,
    idleFraction,
    signals: {
      smActivePct: signal((device) => device.smActive),
      tensorActivePct: signal((device) => device.tensorActive),
      grEngineActivePct: signal((device) => device.grEngineActive),
      utilizationPct: signal((device) => device.utilization),
    },
    hourOfWeekPct: hourOfWeek(devices),
  };
}

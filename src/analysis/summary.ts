/**
 * Fleet totals (DESIGN.md sections 4 and 5). Totals count physical GPUs only: a MIG device's
 * hours are part of its parent's, and the parent carries the cost.
 */
import { HOURS_PER_MONTH } from '../model/index.js';
import type { ComputeBasis } from '../model/index.js';
import type { FleetComputeBasis, FleetSummary, GpuEntry } from '../model/index.js';

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/** GPU-hour-weighted mean of `value` over the GPUs that have one; a plain mean when none of them has duration. */
function weightedMean(entries: readonly { value: number; gpuHours: number }[]): number | null {
  if (entries.length === 0) return null;
  const hours = sum(entries.map((entry) => entry.gpuHours));
  if (hours > 0) return sum(entries.map((entry) => entry.value * entry.gpuHours)) / hours;
  return sum(entries.map((entry) => entry.value)) / entries.length;
}

function meanUtilization(physical: readonly GpuEntry[]): number | null {
  return weightedMean(physical.flatMap((gpu) => (gpu.utilization === null ? [] : [{ value: gpu.utilization.mean, gpuHours: gpu.gpuHours }])));
}

/**
 * Each GPU's mean compute percent on its own basis (the signal its idle figures read); null
 * where that basis has no figure. The processes basis has no percent signal: its busy share
 * of time, (1 - idleFraction) x 100, is the mean of the 0/100 reading compute-percent.ts gives it.
 */
const COMPUTE_MEAN: Record<ComputeBasis, (gpu: GpuEntry) => number | null> = {
  'sm-active': (gpu) => gpu.smActive?.mean ?? null,
  'gr-engine-active': (gpu) => gpu.grEngineActive?.mean ?? null,
  utilization: (gpu) => gpu.utilization?.mean ?? null,
  processes: (gpu) => (gpu.idleFraction === null ? null : (1 - gpu.idleFraction) * 100),
  unknown: () => null,
};

/** Fleet mean compute by compute basis, and the basis it was taken on (`mixed` when the counted GPUs differ). */
function meanCompute(physical: readonly GpuEntry[]): { meanComputePct: number | null; computeBasis: FleetComputeBasis } {
  const counted = physical.flatMap((gpu) => {
    const value = COMPUTE_MEAN[gpu.computeBasis](gpu);
    return value === null ? [] : [{ value, gpuHours: gpu.gpuHours, basis: gpu.computeBasis }];
  });
  const bases = new Set(counted.map((entry) => entry.basis));
  const [only] = bases;
  return {
    meanComputePct: weightedMean(counted),
    computeBasis: only === undefined ? 'unknown' : bases.size === 1 ? only : 'mixed',
  };
}

export function summarizeFleet(gpus: readonly GpuEntry[], potentialMonthlySavingsUsd: number): FleetSummary {
  const physical = gpus.filter((gpu) => gpu.parentId === null);
  const gpuHours = sum(physical.map((gpu) => gpu.gpuHours));
  const idleGpuHours = sum(physical.map((gpu) => gpu.idleHours));
  const priced = physical.filter((gpu) => gpu.hourlyCostUsd !== null);
  const pricedWithIdleness = priced.filter((gpu) => gpu.idleFraction !== null);
  return {
    gpuCount: physical.length,
    migDeviceCount: gpus.length - physical.length,
    hostCount: new Set(gpus.map((gpu) => gpu.host)).size,
    gpuHours,
    idleGpuHours,
    meanUtilization: meanUtilization(physical),
    ...meanCompute(physical),
    wastePct: gpuHours > 0 ? (idleGpuHours / gpuHours) * 100 : null,
    monthlyCostUsd: priced.length === 0 ? null : sum(priced.map((gpu) => gpu.hourlyCostUsd! * HOURS_PER_MONTH)),
    monthlyWasteUsd: pricedWithIdleness.length === 0
      ? null
      : sum(pricedWithIdleness.map((gpu) => gpu.hourlyCostUsd! * gpu.idleFraction! * HOURS_PER_MONTH)),
    potentialMonthlySavingsUsd,
  };
}

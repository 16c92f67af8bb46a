/**
 * Fleet totals (DESIGN.md sections 4 and 5). Totals count physical GPUs only: a MIG device's
 * hours are part of its parent's, and the parent carries the cost.
 */
import type { FleetSummary, GpuEntry } from '../model/report.js';
import { HOURS_PER_MONTH } from './options.js';

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/** GPU-hour-weighted mean of per-GPU mean utilization; a plain mean when no GPU has duration. */
function meanUtilization(physical: readonly GpuEntry[]): number | null {
  const reporting = physical.filter((gpu) => gpu.utilization !== null);
  if (reporting.length === 0) return null;
  const hours = sum(reporting.map((gpu) => gpu.gpuHours));
  if (hours > 0) return sum(reporting.map((gpu) => gpu.utilization!.mean * gpu.gpuHours)) / hours;
  return sum(reporting.map((gpu) => gpu.utilization!.mean)) / reporting.length;
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
    wastePct: gpuHours > 0 ? (idleGpuHours / gpuHours) * 100 : null,
    monthlyCostUsd: priced.length === 0 ? null : sum(priced.map((gpu) => gpu.hourlyCostUsd! * HOURS_PER_MONTH)),
    monthlyWasteUsd: pricedWithIdleness.length === 0
      ? null
      : sum(pricedWithIdleness.map((gpu) => gpu.hourlyCostUsd! * gpu.idleFraction! * HOURS_PER_MONTH)),
    potentialMonthlySavingsUsd,
  };
}

/**
 * Hourly cost of each assignable device. A physical GPU costs its catalog price per GPU-hour
 * (GpuEntry.hourlyCostUsd). A MIG device costs the share of its board that ../mig-accounting.ts
 * gave it (its compute slices / the GPU's; unpartitioned slices are no workload's, and idle).
 * Where that share is unknown (a profile or MIG table the catalog lacks) the board's price is
 * split among its devices by their slices, else equally.
 */
import type { GpuEntry } from '../../model/index.js';

const SLICES = /^(\d+)g\./;

function computeSlices(gpu: GpuEntry): number | undefined {
  const match = gpu.migProfile === null ? null : SLICES.exec(gpu.migProfile);
  return match === null ? undefined : Number(match[1]);
}

/** USD per hour by device id; null where the catalog has no price. */
export function deviceHourlyCosts(gpus: readonly GpuEntry[]): Map<string, number | null> {
  const costs = new Map<string, number | null>();
  const childrenOf = new Map<string, GpuEntry[]>();
  for (const gpu of gpus) {
    if (gpu.parentId === null) costs.set(gpu.id, gpu.hourlyCostUsd);
    else childrenOf.set(gpu.parentId, [...(childrenOf.get(gpu.parentId) ?? []), gpu]);
  }
  for (const [parentId, children] of childrenOf) {
    // Shares of the board set by ../mig-accounting.ts (slices / the GPU's slices) stand as they are.
    if (children.every((child) => child.hourlyCostUsd !== null)) {
      for (const child of children) costs.set(child.id, child.hourlyCostUsd);
      continue;
    }
    const parentCost = costs.get(parentId) ?? null;
    const slices = children.map(computeSlices);
    const known = slices.every((count) => count !== undefined && count > 0);
    const total = known ? slices.reduce<number>((sum, count) => sum + count!, 0) : children.length;
    children.forEach((child, index) => {
      costs.set(child.id, parentCost === null ? null : (parentCost * (known ? slices[index]! : 1)) / total);
    });
  }
  return costs;
}

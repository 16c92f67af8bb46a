/**
 * A GPU in MIG mode is paid for whole and used slice by slice. Its idle time is its instances'
 * idle time weighted by their compute slices, plus the slices no instance holds, idle all along:
 *   idle fraction = (sum over instances of idle fraction x slices + unpartitioned slices) / GPU slices
 * and each instance carries its share of the board's price, slices / GPU slices. So an instance
 * that never runs, or a slice never partitioned, is waste in the fleet's figures and in `check`.
 */
import { migProfileFor, migTableFor } from '../catalog/index.js';
import type { GpuEntry } from '../model/index.js';

const SLICES = /^(\d+)g\./u;

function slicesOf(modelKey: string, profile: string | null): number | undefined {
  if (profile === null) return undefined;
  return migProfileFor(modelKey, profile)?.computeSlices ?? (SLICES.exec(profile) === null ? undefined : Number(SLICES.exec(profile)![1]));
}

/** The entries with each MIG board's idle figures and each instance's cost share; what an unknown profile or table leaves unknown stays as it was. */
export function accountMigBoards(gpus: readonly GpuEntry[]): GpuEntry[] {
  const childrenOf = new Map<string, GpuEntry[]>();
  for (const gpu of gpus) if (gpu.parentId !== null) childrenOf.set(gpu.parentId, [...(childrenOf.get(gpu.parentId) ?? []), gpu]);
  const updated = new Map<string, GpuEntry>();
  for (const parent of gpus) {
    const children = childrenOf.get(parent.id);
    const total = migTableFor(parent.modelKey)?.computeSlicesTotal;
    if (children === undefined || total === undefined) continue; // a board with MIG devices is in MIG mode, whatever its source said of the mode
    const slices = children.map((child) => slicesOf(parent.modelKey, child.migProfile));
    // An instance's share needs only its own profile; the board's idle time needs every one.
    children.forEach((child, index) => {
      const count = slices[index];
      if (count !== undefined && count <= total) updated.set(child.id, { ...child, hourlyCostUsd: parent.hourlyCostUsd === null ? null : (parent.hourlyCostUsd * count) / total });
    });
    if (slices.some((count) => count === undefined)) continue;
    const held = slices.reduce<number>((sum, count) => sum + count!, 0);
    if (held > total || children.some((child) => child.idleFraction === null)) continue;
    const idleSlices = children.reduce((sum, child, index) => sum + child.idleFraction! * slices[index]!, 0) + (total - held);
    const idleFraction = idleSlices / total;
    updated.set(parent.id, { ...parent, idleFraction, idleHours: idleFraction * parent.gpuHours });
  }
  return gpus.map((gpu) => updated.get(gpu.id) ?? gpu);
}

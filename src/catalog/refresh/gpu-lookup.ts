/**
 * The one seam between a refresh and the project's GPU table: product name in, the table's
 * key (and the GPU's memory, for clouds that do not report it) out. Mappers take the lookup
 * as a parameter so they stay pure; aws.ts and azure.ts pass `tableGpuLookup`.
 */
import { resolveGpuModel } from '../gpus.js';

export { UNKNOWN_GPU_KEY } from '../gpu-keys.js';

export interface GpuTableEntry {
  key: string;
  vramMiB: number | null;
}

export type GpuLookup = (productName: string) => GpuTableEntry | undefined;

/**
 * Memory per GPU on the basis every cloud shares: the GPU table's driver-reported MiB where the
 * provider lists the same board within 5% (AWS lists an H100 80GB as 81,920 MiB, the driver
 * reports 81,559); the listed figure otherwise (a fractional GPU lists its slice).
 */
export function tableBasisMiB(listedMiB: number | null, table: GpuTableEntry | undefined): number | null {
  if (listedMiB === null || table?.vramMiB == null) return listedMiB;
  return Math.abs(table.vramMiB - listedMiB) / listedMiB < 0.05 ? table.vramMiB : listedMiB;
}

/** The project's GPU table (src/catalog/gpus.ts). */
export const tableGpuLookup: GpuLookup = (productName) => {
  const spec = resolveGpuModel(productName);
  return spec === undefined ? undefined : { key: spec.key, vramMiB: spec.vramMiB?.value ?? null };
};

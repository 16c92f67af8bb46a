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

/** The project's GPU table (src/catalog/gpus.ts). */
export const tableGpuLookup: GpuLookup = (productName) => {
  const spec = resolveGpuModel(productName);
  return spec === undefined ? undefined : { key: spec.key, vramMiB: spec.vramMiB?.value ?? null };
};

/** GPU names for the plan's sentences. */
import { gpuSpecByKey } from '../catalog/index.js';

/** Short name of a GPU model for sentences: the GPU table's first product name, else the key. */
export function gpuName(modelKey: string): string {
  return gpuSpecByKey(modelKey)?.productNames[0]?.replace(/^NVIDIA\s+/, '') ?? modelKey;
}

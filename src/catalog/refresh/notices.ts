/**
 * Notices for the refresh summary. A GPU the GPU table lacks shows up once per GPU, with the
 * instance types that carry it, rather than once per type (a family can have a dozen sizes).
 */
import { UNKNOWN_GPU_KEY } from './gpu-lookup.js';

const TYPES_SHOWN = 4;

export interface UnknownGpuSighting {
  gpu: string;
  instanceType: string;
}

export function unknownGpuNotices(sightings: readonly UnknownGpuSighting[]): string[] {
  const byGpu = new Map<string, string[]>();
  for (const { gpu, instanceType } of sightings) byGpu.set(gpu, [...(byGpu.get(gpu) ?? []), instanceType]);
  return [...byGpu].map(([gpu, types]) => {
    const shown = types.slice(0, TYPES_SHOWN).join(', ');
    const rest = types.length > TYPES_SHOWN ? ` and ${types.length - TYPES_SHOWN} more` : '';
    return `GPU "${gpu}" is not in the GPU table; model key "${UNKNOWN_GPU_KEY}" for ${types.length === 1 ? '' : `${types.length} types: `}${shown}${rest}`;
  });
}

/**
 * Replacement GPUs from the catalog: for each GPU model, the cheapest instance per GPU-hour at
 * the pricing model in force, within the providers and region asked for. Fractional GPUs (AWS
 * g6f) are left out: they cannot host a tensor-parallel split and share the board's compute.
 */
import { gpuSpecByKey, pricePerGpuHour, sortInstances } from '../catalog/index.js';
import type { InstanceCatalog, InstanceType, PricingModel } from '../model/catalog.js';

export interface GpuOption {
  modelKey: string;
  instance: InstanceType;
  usdPerGpuHour: number;
  vramMiB: number;
  bf16Tflops: number | null;
  bandwidthGBps: number | null;
}

export interface CandidateScope {
  providers?: readonly InstanceType['provider'][];
  region?: string;
  pricing: PricingModel;
}

/** Where to look when the user named nothing: the current instance's provider and region. */
export function scopeFor(catalog: InstanceCatalog, instanceType: string | null, scope: CandidateScope): CandidateScope {
  const current = instanceType === null ? undefined : catalog.instances.find((instance) => instance.name === instanceType);
  return {
    pricing: scope.pricing,
    providers: scope.providers !== undefined && scope.providers.length > 0 ? scope.providers : current === undefined ? undefined : [current.provider],
    region: scope.region ?? current?.region,
  };
}

/** One option per GPU model (its cheapest instance per GPU-hour), cheapest first. */
export function gpuOptions(catalog: InstanceCatalog, scope: CandidateScope): GpuOption[] {
  const best = new Map<string, GpuOption>();
  const ordered = sortInstances(catalog.instances, { key: 'gpu-price', pricing: scope.pricing });
  for (const instance of ordered) {
    if (instance.gpuCount <= 0 || instance.gpuModelKey === 'unknown') continue;
    if (scope.providers !== undefined && !scope.providers.includes(instance.provider)) continue;
    if (scope.region !== undefined && instance.region.toLowerCase() !== scope.region.toLowerCase()) continue;
    const usdPerGpuHour = pricePerGpuHour(instance, scope.pricing);
    const spec = gpuSpecByKey(instance.gpuModelKey);
    const vramMiB = spec?.vramMiB?.value ?? instance.vramPerGpuMiB;
    if (usdPerGpuHour === null || vramMiB === null || vramMiB === undefined) continue;
    const previous = best.get(instance.gpuModelKey);
    if (previous !== undefined && previous.usdPerGpuHour <= usdPerGpuHour) continue;
    best.set(instance.gpuModelKey, {
      modelKey: instance.gpuModelKey,
      instance,
      usdPerGpuHour,
      vramMiB,
      bf16Tflops: spec?.bf16DenseTflops?.value ?? null,
      bandwidthGBps: spec?.memoryBandwidthGBps?.value ?? null,
    });
  }
  return [...best.values()].sort((a, b) => a.usdPerGpuHour - b.usdPerGpuHour || a.modelKey.localeCompare(b.modelKey));
}

/** Short name of a GPU model for sentences: the GPU table's first product name, else the key. */
export function gpuName(modelKey: string): string {
  return gpuSpecByKey(modelKey)?.productNames[0]?.replace(/^NVIDIA\s+/, '') ?? modelKey;
}

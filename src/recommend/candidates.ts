/**
 * Replacement GPUs from the catalog: instance types priced per GPU-hour at the pricing model in
 * force, within the providers and region asked for. Fractional GPUs (AWS
 * g6f) are left out: they cannot host a tensor-parallel split and share the board's compute.
 */
import { gpuSpecByKey, pricePerGpuHour } from '../catalog/index.js';
import type { InstanceCatalog, InstanceType, PricingModel } from '../model/index.js';

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

/**
 * Every priced instance type with whole GPUs in scope, cheapest per GPU-hour first. All are kept
 * (not one per GPU model): a 1-GPU type may be cheapest per GPU while only an 8-GPU type of the
 * same GPU can hold a tensor-parallel split.
 */
export function gpuOptions(catalog: InstanceCatalog, scope: CandidateScope): GpuOption[] {
  const options: GpuOption[] = [];
  for (const instance of catalog.instances) {
    if (instance.gpuCount <= 0 || instance.gpuModelKey === 'unknown') continue;
    if (scope.providers !== undefined && !scope.providers.includes(instance.provider)) continue;
    if (scope.region !== undefined && instance.region.toLowerCase() !== scope.region.toLowerCase()) continue;
    const usdPerGpuHour = pricePerGpuHour(instance, scope.pricing);
    const spec = gpuSpecByKey(instance.gpuModelKey);
    const vramMiB = spec?.vramMiB?.value ?? instance.vramPerGpuMiB;
    if (usdPerGpuHour === null || vramMiB === null || vramMiB === undefined) continue;
    options.push({
      modelKey: instance.gpuModelKey,
      instance,
      usdPerGpuHour,
      vramMiB,
      bf16Tflops: spec?.bf16DenseTflops?.value ?? null,
      bandwidthGBps: spec?.memoryBandwidthGBps?.value ?? null,
    });
  }
  // Ties: fewer GPUs per instance first (smaller purchase), then name and region, so every run agrees.
  return options.sort(
    (a, b) =>
      a.usdPerGpuHour - b.usdPerGpuHour ||
      a.instance.gpuCount - b.instance.gpuCount ||
      a.instance.name.localeCompare(b.instance.name) ||
      a.instance.region.localeCompare(b.instance.region),
  );
}

/** Short name of a GPU model for sentences: the GPU table's first product name, else the key. */
export function gpuName(modelKey: string): string {
  return gpuSpecByKey(modelKey)?.productNames[0]?.replace(/^NVIDIA\s+/, '') ?? modelKey;
}

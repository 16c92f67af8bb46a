/**
 * Puts catalog facts on the profile's entries: the instance type and price per GPU, and the
 * catalog key of each GPU model. Pure: returns new entries, the input is left as it was.
 *
 * A MIG device has no cost of its own: its parent board carries the whole GPU's price, so a
 * MIG device gets its parent's instance type and a null hourly cost (counting both would
 * charge the GPU twice).
 */
import type { GpuEntry, InstanceTypeBasis } from '../model/index.js';
import type { DeviceFacts } from './gpu-entry.js';

export interface GpuPrice {
  instanceType: string;
  basis: InstanceTypeBasis;
  /** The instance's hourly price at the pricing model in force, divided by its GPUs; null when unknown. */
  hourlyUsdPerGpu: number | null;
}

export function applyGpuCosts(gpus: readonly GpuEntry[], pricePerGpu: (gpu: GpuEntry) => GpuPrice | undefined): GpuEntry[] {
  const priceOfPhysical = new Map<string, GpuPrice | undefined>();
  for (const gpu of gpus) if (gpu.parentId === null) priceOfPhysical.set(gpu.id, pricePerGpu(gpu));
  return gpus.map((gpu) => {
    const price = priceOfPhysical.get(gpu.parentId ?? gpu.id);
    if (price === undefined) return { ...gpu };
    return {
      ...gpu,
      instanceType: price.instanceType,
      instanceTypeBasis: price.basis,
      hourlyCostUsd: gpu.parentId === null ? price.hourlyUsdPerGpu : null,
    };
  });
}

/**
 * Sets `modelKey` from the product name and the PCI device id, which the report has no field
 * for: pass FleetProfile.deviceFacts. A MIG device is its parent's model.
 */
export function applyModelKeys(
  gpus: readonly GpuEntry[],
  resolve: (model: string | null, pciDeviceId: string | null) => string,
  deviceFacts: ReadonlyMap<string, Pick<DeviceFacts, 'pciDeviceId'>> = new Map(),
): GpuEntry[] {
  const keyOf = (gpu: GpuEntry): string => resolve(gpu.model, deviceFacts.get(gpu.id)?.pciDeviceId ?? null);
  const keyOfPhysical = new Map<string, string>();
  for (const gpu of gpus) if (gpu.parentId === null) keyOfPhysical.set(gpu.id, keyOf(gpu));
  return gpus.map((gpu) => ({ ...gpu, modelKey: keyOfPhysical.get(gpu.parentId ?? gpu.id) ?? keyOf(gpu) }));
}

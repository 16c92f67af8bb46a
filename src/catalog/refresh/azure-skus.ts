/**
 * One `Microsoft.Compute/skus` item -> one catalog `InstanceType` (prices left empty).
 *
 * Capabilities are `{name, value}` pairs whose values are all strings; `GPUs` is absent for
 * non-GPU sizes. The API names neither the GPU model nor its memory, so both come from the
 * SKU family table in gpu-names.ts; partial-GPU sizes report `GPUs` = 1 and are corrected
 * from the same table.
 */
import type { ResourceSku } from '@azure/arm-compute';
import type { InstanceType } from '../../model/index.js';
import { azureGpuFamily } from './gpu-names.js';
import { UNKNOWN_GPU_KEY, type GpuLookup } from './gpu-lookup.js';

export type AzureSkuMapping =
  | { kind: 'instance'; instance: InstanceType; notice?: string; /** A GPU the GPU table lacks, grouped in the summary. */ unknownGpu?: string }
  | { kind: 'skipped'; notice: string }
  | { kind: 'not-gpu' };

const VIRTUAL_MACHINES = 'virtualmachines';

export function capability(sku: ResourceSku, name: string): string | undefined {
  return sku.capabilities?.find((entry) => entry.name?.toLowerCase() === name.toLowerCase())?.value;
}

function numberCapability(sku: ResourceSku, name: string): number | null {
  const raw = capability(sku, name);
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

/** A restriction of type Location means the subscription cannot deploy the size there at all (zone restrictions only narrow where). */
function locationRestriction(sku: ResourceSku, location: string): string | undefined {
  const restriction = sku.restrictions?.find((entry) => entry.type === 'Location' && (entry.values ?? []).some((value) => value.toLowerCase() === location.toLowerCase()));
  return restriction === undefined ? undefined : (restriction.reasonCode ?? 'restricted');
}

export function instanceFromAzureSku(sku: ResourceSku, location: string, sourceTag: string, lookupGpu: GpuLookup): AzureSkuMapping {
  const name = sku.name?.trim();
  const gpusPerVm = numberCapability(sku, 'GPUs');
  if (name === undefined || sku.resourceType?.toLowerCase() !== VIRTUAL_MACHINES || gpusPerVm === null || gpusPerVm <= 0) return { kind: 'not-gpu' };

  const restricted = locationRestriction(sku, location);
  if (restricted !== undefined) return { kind: 'skipped', notice: `${name}: not offered to this subscription in ${location} (${restricted}); skipped` };

  const family = azureGpuFamily(name);
  const partition = family?.partitions?.[name.toLowerCase()];
  const tableEntry = family === undefined ? undefined : lookupGpu(family.productName);
  const gpuModelKey = tableEntry?.key ?? UNKNOWN_GPU_KEY;

  const instance: InstanceType = {
    provider: 'azure',
    name,
    region: location,
    gpuModelKey,
    gpuModelName: family?.productName ?? UNKNOWN_GPU_KEY,
    // Partial sizes: no whole GPU, a share of one (the convention AWS's fractional types set).
    gpuCount: partition === undefined ? gpusPerVm : 0,
    gpuPartitionSize: partition?.share ?? 1,
    vramPerGpuMiB: partition?.memoryMiB ?? tableEntry?.vramMiB ?? null,
    vcpus: numberCapability(sku, 'vCPUs'),
    memoryGiB: numberCapability(sku, 'MemoryGB'),
    // Resource SKUs carry no bandwidth figure.
    networkGbps: null,
    prices: { onDemand: null, spot: null, reserved1y: null, reserved3y: null, savingsPlan1y: null, savingsPlan3y: null, sources: [] },
    sources: [sourceTag, ...(family === undefined ? [] : [`GPU model from the size family: ${family.source}`])],
  };
  if (family === undefined) return { kind: 'instance', instance, notice: `${name}: GPU model not known for this size family (the API gives only a count); model key "${UNKNOWN_GPU_KEY}"` };
  return gpuModelKey === UNKNOWN_GPU_KEY ? { kind: 'instance', instance, unknownGpu: family.productName } : { kind: 'instance', instance };
}

/**
 * The bundled instance snapshot, and the pure functions `catalog list`, the audit and the
 * recommenders use to pick from a catalog (bundled or refreshed): filter, sort, look up.
 */
import type { InstanceCatalog, InstanceType, PricingModel } from '../model/index.js';
import { BUNDLED_CATALOG_AS_OF, BUNDLED_INSTANCES } from './data/instances.js';
import { gpuSpecByKey } from './gpus.js';
import { gpuHourPrice, instancePrice } from './pricing.js';
import type { InstanceRecord } from './types.js';
import { editDistance } from '../support/index.js';

export type Provider = InstanceType['provider'];
export const PROVIDERS: readonly Provider[] = ['aws', 'azure', 'gcp'];

export const BUNDLED_CATALOG_NAME = `bundled-${BUNDLED_CATALOG_AS_OF}`;

/** The snapshot shipped with gpu-audit; see src/catalog/data/instances.ts for every source. */
export function bundledCatalog(): InstanceCatalog {
  return {
    name: BUNDLED_CATALOG_NAME,
    asOf: BUNDLED_CATALOG_AS_OF,
    origin: 'bundled',
    ageDays: null,
    instances: [...BUNDLED_INSTANCES],
  };
}

export interface InstanceFilter {
  providers?: readonly Provider[];
  region?: string;
  /** GPU model words, e.g. `H100`, `h100-sxm-80gb`, `NVIDIA H100 80GB HBM3`. */
  gpu?: string;
  /** GPU memory as marketed at least this many GB (marketedVramGB). */
  minVramGB?: number;
  /** List types the provider has retired (they are left out otherwise). */
  includeRetired?: boolean;
  /** Hourly instance price at `pricing` at most this many USD; types without that price are left out. */
  maxPricePerHour?: number;
  pricing?: PricingModel;
}

/** Fields only the bundled records carry; entries of a refreshed cache may lack every one. */
export type InstanceExtras = Partial<Pick<InstanceRecord, 'gpuCatalogKey' | 'vramPerGpuNominalGB' | 'networkUpTo' | 'notes'>>;

export function instanceExtras(instance: InstanceType): InstanceExtras {
  return instance as InstanceType & InstanceExtras;
}

const MIB_PER_GIB = 1024;
const BYTES_PER_GB = 1e9;
const BYTES_PER_GIB = 2 ** 30;

/**
 * Usable VRAM per GPU in GiB. Where only the marketing size is known (some Azure/GCP rows),
 * it is read as decimal GB: every board in the GPU table has at least that many bytes usable
 * (H100 80GB: 81559 MiB = 85.5e9 bytes), so the figure is a lower bound, never an overstatement.
 */
export function usableVramGiB(instance: InstanceType): number | null {
  if (instance.vramPerGpuMiB !== null) return instance.vramPerGpuMiB / MIB_PER_GIB;
  const nominal = instanceExtras(instance).vramPerGpuNominalGB ?? null;
  return nominal === null ? null : (nominal * BYTES_PER_GB) / BYTES_PER_GIB;
}

/**
 * GPU memory per GPU (or slice) as marketed, in GB: the label the source or the GPU table gives
 * (H100 80GB: 80, though its 81,559 MiB usable are 79.6 GiB), else the usable bytes in decimal
 * GB, which every board's label undercounts. The class a user asks for by its size.
 */
export function marketedVramGB(instance: InstanceType): number | null {
  const nominal = instanceExtras(instance).vramPerGpuNominalGB ?? null;
  if (nominal !== null) return nominal;
  if (instance.gpuPartitionSize === 1) {
    const marketing = gpuSpecByKey(instance.gpuModelKey)?.vramMarketingGB?.value ?? null;
    if (marketing !== null) return marketing;
  }
  const usable = usableVramGiB(instance);
  return usable === null ? null : Math.floor((usable * BYTES_PER_GIB) / BYTES_PER_GB);
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** The names an instance's GPU goes by: model key, catalog key, model name, product names. */
function gpuNames(instance: InstanceType): string[] {
  const catalogKey = instanceExtras(instance).gpuCatalogKey;
  const spec = gpuSpecByKey(instance.gpuModelKey);
  return [instance.gpuModelKey, instance.gpuModelName, ...(catalogKey === undefined ? [] : [catalogKey]), ...(spec?.productNames ?? [])];
}

/**
 * Whole-word match: every word of the query appears among the words of one of the GPU's
 * names. `A10` finds the A10 but not the A100 or A10G; `H100 80GB` finds the H100 SXM.
 */
export function matchesGpu(instance: InstanceType, query: string): boolean {
  const wanted = words(query);
  if (wanted.length === 0) return true;
  return gpuNames(instance).some((name) => {
    const have = new Set(words(name));
    return wanted.every((word) => have.has(word));
  });
}

export function filterInstances<T extends InstanceType>(instances: readonly T[], filter: InstanceFilter): T[] {
  const pricing = filter.pricing ?? 'on-demand';
  return instances.filter((instance) => {
    if (filter.providers !== undefined && filter.providers.length > 0 && !filter.providers.includes(instance.provider)) return false;
    if (filter.region !== undefined && instance.region.toLowerCase() !== filter.region.toLowerCase()) return false;
    if (filter.gpu !== undefined && !matchesGpu(instance, filter.gpu)) return false;
    if (instance.retiredOn !== undefined && filter.includeRetired !== true) return false;
    if (filter.minVramGB !== undefined) {
      const vram = marketedVramGB(instance);
      if (vram === null || vram < filter.minVramGB) return false;
    }
    if (filter.maxPricePerHour !== undefined) {
      const price = instancePrice(instance, pricing);
      if (price === null || price > filter.maxPricePerHour) return false;
    }
    return true;
  });
}

export const SORT_KEYS = ['price', 'gpu-price', 'vram', 'gpus', 'vcpus', 'memory', 'name', 'provider'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface SortOptions {
  key: SortKey;
  pricing?: PricingModel;
  descending?: boolean;
}

type SortValue = number | string | null;

function sortValue(instance: InstanceType, key: SortKey, pricing: PricingModel): SortValue {
  switch (key) {
    case 'price':
      return instancePrice(instance, pricing);
    case 'gpu-price':
      return gpuHourPrice(instance, pricing)?.usdPerGpuHour ?? null;
    case 'vram':
      return usableVramGiB(instance);
    case 'gpus':
      return instance.gpuCount > 0 ? instance.gpuCount : instance.gpuPartitionSize;
    case 'vcpus':
      return instance.vcpus;
    case 'memory':
      return instance.memoryGiB;
    case 'name':
      return instance.name;
    case 'provider':
      return instance.provider;
  }
}

function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

/**
 * Sorted copy. Unknown values (no price, no VRAM figure) always come last, whichever the
 * direction; ties fall back to provider, name, region so the order is the same on every run.
 */
export function sortInstances<T extends InstanceType>(instances: readonly T[], options: SortOptions): T[] {
  const pricing = options.pricing ?? 'on-demand';
  const direction = options.descending === true ? -1 : 1;
  return [...instances].sort((a, b) => {
    const va = sortValue(a, options.key, pricing);
    const vb = sortValue(b, options.key, pricing);
    if (va === null && vb !== null) return 1;
    if (vb === null && va !== null) return -1;
    const primary = va === null || vb === null ? 0 : direction * compareValues(va, vb);
    return primary || a.provider.localeCompare(b.provider) || a.name.localeCompare(b.name) || a.region.localeCompare(b.region);
  });
}

/** Instances named `name` (case-insensitive), in every region the catalog has them. */
export function findInstances<T extends InstanceType>(instances: readonly T[], name: string): T[] {
  const wanted = name.trim().toLowerCase();
  return instances.filter((instance) => instance.name.toLowerCase() === wanted);
}

/**
 * Names a user may have meant: those containing what was typed, then the nearest by edit
 * distance (at most a third of the name's length away), closest first.
 */
export function closeInstanceNames(instances: readonly InstanceType[], typed: string, limit = 5): string[] {
  const wanted = typed.trim().toLowerCase();
  const names = [...new Set(instances.map((instance) => instance.name))];
  const scored = names
    .map((name) => {
      const lower = name.toLowerCase();
      const contains = wanted.length >= 2 && (lower.includes(wanted) || wanted.includes(lower));
      return { name, contains, distance: editDistance(wanted, lower) };
    })
    .filter((s) => s.contains || s.distance <= Math.max(2, Math.floor(s.name.length / 3)))
    .sort((a, b) => Number(b.contains) - Number(a.contains) || a.distance - b.distance || a.name.localeCompare(b.name));
  return scored.slice(0, limit).map((s) => s.name);
}

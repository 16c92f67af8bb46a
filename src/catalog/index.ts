/**
 * The catalog layer's public face: GPU models, MIG profiles, instance types and prices.
 * analysis/ and recommend/ import from here, not from the files behind it.
 */
import type { InstanceCatalog } from '../model/index.js';
import { readdir } from 'node:fs/promises';
import type { readNewestCache } from './cache.js';
import { cacheDirectory } from './cache-location.js';
import { bundledCatalog } from './instances.js';

export interface LoadCatalogOptions {
  /** Use the newest refreshed cache when there is one (default true); false: the bundled snapshot. */
  preferCache?: boolean;
  /** Where the cache lives and who hears about cache files that were ignored (corrupt, wrong schema). */
  cache?: Parameters<typeof readNewestCache>[0];
}

async function hasCacheFiles(directory: string): Promise<boolean> {
  const names = await readdir(directory).catch(() => [] as string[]);
  return names.some((name) => name.startsWith('catalog-') && name.endsWith('.json'));
}

/**
 * The instance catalog to price with: for each provider that `catalog refresh` has cached, the
 * cache; for the others, the snapshot bundled with gpu-audit (an AWS-only refresh must not make
 * Azure and GCP disappear). Reports name what was used (name, asOf, origin, age).
 */
export async function loadCatalog(options: LoadCatalogOptions = {}): Promise<InstanceCatalog> {
  const bundled = bundledCatalog();
  if (!(options.preferCache ?? true)) return bundled;
  // The cache reader (and zod, which validates cache files) loads only when there is a cache.
  if (!(await hasCacheFiles(cacheDirectory(options.cache)))) return bundled;
  const { readNewestCache: readCache } = await import('./cache.js');
  const cached = await readCache(options.cache);
  if (cached === undefined) return bundled;
  const cachedProviders = new Set(cached.instances.map((instance) => instance.provider));
  const fromBundle = bundled.instances.filter((instance) => !cachedProviders.has(instance.provider));
  if (fromBundle.length === 0) return cached;
  const bundledProviders = [...new Set(fromBundle.map((instance) => instance.provider))].join(', ');
  return {
    ...cached,
    name: `${cached.name} + ${bundled.name} (${bundledProviders})`,
    instances: [...cached.instances, ...fromBundle],
  };
}

export { bundledCatalog, BUNDLED_CATALOG_NAME, instanceExtras, filterInstances, sortInstances, findInstances, closeInstanceNames, matchesGpu, usableVramGiB, marketedVramGB, PROVIDERS, SORT_KEYS } from './instances.js';
export type { InstanceExtras, InstanceFilter, Provider, SortKey, SortOptions } from './instances.js';
export { gpuSpecs, gpuSpecByKey, modelKeyOf, normaliseGpuName, pciDeviceIdOf, resolveGpu, resolveGpuModel, GPU_REFERENCE_SOURCES, GPU_TABLE_AS_OF } from './gpus.js';
export type { GpuMatchBasis, GpuResolution, GpuUnknownReason } from './gpus.js';
export { UNKNOWN_GPU_KEY, INSTANCE_GPU_KEY_TO_MODEL_KEY, MODEL_KEY_TO_MIG_TABLE, modelKeyForInstanceGpu } from './gpu-keys.js';
export { inferMigProfile, migProfileFor, migTableFor, migTables, validateMigLayout, MIG_TABLES_COLLECTED } from './mig.js';
export type { MigLayoutVerdict, MigPlacement } from './mig.js';
export { gpuEquivalents, gpuHourPrice, instancePrice, isFractionalGpu, priceAt, pricePerDeviceHour, pricePerGpuHour } from './pricing.js';
export type { GpuHourPrice, PerGpuBasis, PriceTerm, TermPrice } from './pricing.js';
export { DEFAULT_PROVIDER, inferInstanceType, resolveInstanceType } from './resolve-instance.js';
export { holdsTensorParallel, interconnectOf } from './interconnect.js';
export type { Interconnect, InterconnectFact } from './interconnect.js';
export type { HostFacts, ResolvedInstance } from './resolve-instance.js';
export type { GpuSpecRecord, InstanceRecord, MigGpuTable, MigMemoryGiB, MigProfile, NotedValue } from './types.js';
export type { AwsRefreshOptions } from './aws.js';
export type { ProviderRefresh, RefreshProvider, RegionFailure, RegionSummary } from './refresh/types.js';

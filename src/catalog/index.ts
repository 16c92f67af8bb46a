/**
 * The catalog layer's public face: GPU models, MIG profiles, instance types and prices.
 * analysis/ and recommend/ import from here, not from the files behind it.
 */
import type { InstanceCatalog } from '../model/catalog.js';
import { readNewestCache } from './cache.js';
import { bundledCatalog } from './instances.js';

export interface LoadCatalogOptions {
  /** Use the newest refreshed cache when there is one (default true); false: the bundled snapshot. */
  preferCache?: boolean;
  /** Where the cache lives and who hears about cache files that were ignored (corrupt, wrong schema). */
  cache?: Parameters<typeof readNewestCache>[0];
}

/**
 * The instance catalog to price with: the newest cache written by `catalog refresh` if there
 * is one, else the snapshot bundled with gpu-audit. Reports name the one used (name, asOf).
 */
export async function loadCatalog(options: LoadCatalogOptions = {}): Promise<InstanceCatalog> {
  if (options.preferCache ?? true) {
    const cached = await readNewestCache(options.cache);
    if (cached !== undefined) return cached;
  }
  return bundledCatalog();
}

export { bundledCatalog, BUNDLED_CATALOG_NAME, instanceExtras, filterInstances, sortInstances, findInstances, closeInstanceNames, matchesGpu, usableVramGiB, PROVIDERS, SORT_KEYS } from './instances.js';
export type { InstanceExtras, InstanceFilter, Provider, SortKey, SortOptions } from './instances.js';
export { gpuSpecs, gpuSpecByKey, modelKeyOf, normaliseGpuName, pciDeviceIdOf, resolveGpu, resolveGpuModel, GPU_REFERENCE_SOURCES, GPU_TABLE_AS_OF } from './gpus.js';
export type { GpuMatchBasis, GpuResolution, GpuUnknownReason } from './gpus.js';
export { UNKNOWN_GPU_KEY, INSTANCE_GPU_KEY_TO_MODEL_KEY, MODEL_KEY_TO_MIG_TABLE, modelKeyForInstanceGpu } from './gpu-keys.js';
export { migProfileFor, migTableFor, migTables, validateMigLayout, MIG_TABLES_COLLECTED } from './mig.js';
export type { MigLayoutVerdict, MigPlacement } from './mig.js';
export { gpuEquivalents, gpuHourPrice, instancePrice, isFractionalGpu, priceAt, pricePerDeviceHour, pricePerGpuHour } from './pricing.js';
export type { GpuHourPrice, PerGpuBasis, PriceTerm, TermPrice } from './pricing.js';
export { DEFAULT_PROVIDER, inferInstanceType, resolveInstanceType } from './resolve-instance.js';
export type { HostFacts, ResolvedInstance } from './resolve-instance.js';
export type { GpuSpecRecord, InstanceRecord, MigGpuTable, MigMemoryGiB, MigProfile, NotedValue } from './types.js';

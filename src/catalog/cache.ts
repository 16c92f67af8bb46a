/**
 * The refreshed instance catalog on disk: one file per provider (`catalog-aws.json`,
 * `catalog-azure.json`) under `$XDG_CACHE_HOME/gpu-audit` (default `~/.cache/gpu-audit`;
 * `GPU_AUDIT_CACHE_DIR` or the `dir` option override it).
 *
 * Writers hold a per-provider lock for the whole refresh and replace the file atomically,
 * so a refresh that fails or is killed leaves the previous file as it was. Readers take every
 * provider file that validates and say which they ignored and why; a corrupt cache is never
 * a crash, and the caller falls back to the bundled snapshot when nothing is usable.
 */
import { readFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { cacheDirectory, type CacheLocationOptions } from './cache-location.js';
import { z } from 'zod';
import type { InstanceCatalog, InstanceType } from '../model/index.js';
import { removeLeftoverTempFiles, writeFileAtomic } from '../support/index.js';
import { acquireLock, type LockOptions } from './refresh/cache-lock.js';
import type { ProviderRefresh, RefreshProvider, RegionFailure } from './refresh/types.js';

export const CACHE_SCHEMA_VERSION = 1;
export const CACHE_PROVIDERS: readonly RefreshProvider[] = ['aws', 'azure'];
const MS_PER_DAY = 86_400_000;

export interface CacheOptions extends CacheLocationOptions {
  now?: () => Date;
}

export { cacheDirectory };

/** What a provider's cache file holds. */
export interface ProviderCacheFile {
  schemaVersion: typeof CACHE_SCHEMA_VERSION;
  provider: RefreshProvider;
  /** ISO timestamp of the refresh. */
  fetchedAt: string;
  /** Regions (Azure: locations) whose data the file holds. */
  regions: string[];
  /** Regions the refresh could not fetch: absent from `instances`. */
  failures: RegionFailure[];
  instances: InstanceType[];
}

export interface CacheEntry {
  provider: RefreshProvider;
  path: string;
  fetchedAt: string;
  ageDays: number;
  regions: string[];
  instanceCount: number;
}

export interface IgnoredCache {
  path: string;
  reason: string;
}

export interface CacheInspection {
  directory: string;
  entries: CacheEntry[];
  ignored: IgnoredCache[];
}

/**
 * `GPU_AUDIT_CACHE_DIR`, else `$XDG_CACHE_HOME/gpu-audit`, else `~/.cache/gpu-audit`.
 * A relative XDG_CACHE_HOME is invalid per the XDG spec and is ignored.
 */
export function cacheFilePath(provider: RefreshProvider, options: CacheOptions = {}): string {
  return path.join(cacheDirectory(options), `catalog-${provider}.json`);
}

function lockFilePath(provider: RefreshProvider, options: CacheOptions): string {
  return path.join(cacheDirectory(options), `catalog-${provider}.lock`);
}

/**
 * Runs `work` (a refresh and its write) holding the provider's lock; throws InputError naming
 * the running refresh when the lock is held. The lock goes whatever `work` does.
 */
export async function withCacheLock<T>(provider: RefreshProvider, work: () => Promise<T>, options: CacheOptions & LockOptions = {}): Promise<T> {
  await mkdir(cacheDirectory(options), { recursive: true });
  const lock = await acquireLock(lockFilePath(provider, options), `refresh of the ${provider} catalog cache`, options);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/** Writes a refresh as the provider's cache (call it inside `withCacheLock`). Returns the file's path. */
export async function writeProviderCache(refresh: ProviderRefresh, options: CacheOptions = {}): Promise<string> {
  if (refresh.regions.length === 0) throw new Error(`refusing to replace the ${refresh.provider} cache with a refresh that fetched no region`);
  const file: ProviderCacheFile = {
    schemaVersion: CACHE_SCHEMA_VERSION,
    provider: refresh.provider,
    fetchedAt: refresh.fetchedAt,
    regions: refresh.regions.map((region) => region.region),
    failures: refresh.failures,
    instances: refresh.instances,
  };
  const target = cacheFilePath(refresh.provider, options);
  await mkdir(path.dirname(target), { recursive: true });
  await removeLeftoverTempFiles(target);
  await writeFileAtomic(target, `${JSON.stringify(file, null, 2)}\n`);
  return target;
}

const nullableNumber = z.number().finite().nullable();

const instanceSchema = z.object({
  provider: z.enum(['aws', 'azure', 'gcp']),
  name: z.string().min(1),
  region: z.string().min(1),
  gpuModelKey: z.string().min(1),
  gpuModelName: z.string(),
  gpuCount: z.number().int().nonnegative(),
  gpuPartitionSize: z.number().positive(),
  vramPerGpuMiB: nullableNumber,
  vcpus: nullableNumber,
  memoryGiB: nullableNumber,
  networkGbps: nullableNumber,
  retiredOn: z.iso.date().optional(),
  prices: z.object({
    onDemand: nullableNumber,
    spot: nullableNumber,
    reserved1y: nullableNumber,
    reserved3y: nullableNumber,
    savingsPlan1y: nullableNumber,
    savingsPlan3y: nullableNumber,
    spotObservedAt: z.iso.date().optional(),
    sources: z.array(z.string()),
  }),
  sources: z.array(z.string()),
});

const cacheFileSchema = z.object({
  schemaVersion: z.literal(CACHE_SCHEMA_VERSION),
  provider: z.enum(['aws', 'azure']),
  fetchedAt: z.iso.datetime({ offset: true }),
  regions: z.array(z.string()),
  failures: z.array(z.object({ region: z.string(), error: z.string(), endpoint: z.string(), status: z.number().optional() })),
  instances: z.array(instanceSchema),
});

function ageInDays(fetchedAt: string, now: Date): number {
  // A clock that moved back makes a fresh cache look as if from the future: call it today's.
  return Math.max(0, Math.floor((now.getTime() - Date.parse(fetchedAt)) / MS_PER_DAY));
}

type ReadResult = { kind: 'valid'; file: ProviderCacheFile } | { kind: 'absent' } | { kind: 'invalid'; reason: string };

async function readProviderCache(provider: RefreshProvider, filePath: string): Promise<ReadResult> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'invalid', reason: `unreadable (${(error as Error).message})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', reason: `not valid JSON (${(error as Error).message})` };
  }
  const parsed = cacheFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', reason: `not a gpu-audit cache of schema version ${CACHE_SCHEMA_VERSION} (${issue?.path.join('.') || 'document'}: ${issue?.message ?? 'invalid'})` };
  }
  const file = parsed.data as ProviderCacheFile;
  if (file.provider !== provider) return { kind: 'invalid', reason: `holds the ${file.provider} catalog, not ${provider}` };
  const stranger = file.instances.find((instance) => instance.provider !== provider);
  if (stranger !== undefined) return { kind: 'invalid', reason: `instance ${stranger.name} is from ${stranger.provider}, not ${provider}` };
  return { kind: 'valid', file };
}

/** Every provider cache: the valid ones with their age, and the ignored ones with the reason. */
export async function inspectCache(options: CacheOptions = {}): Promise<CacheInspection & { files: ProviderCacheFile[] }> {
  const now = (options.now ?? (() => new Date()))();
  const inspection: CacheInspection & { files: ProviderCacheFile[] } = { directory: cacheDirectory(options), entries: [], ignored: [], files: [] };
  for (const provider of CACHE_PROVIDERS) {
    const filePath = cacheFilePath(provider, options);
    const result = await readProviderCache(provider, filePath);
    if (result.kind === 'invalid') inspection.ignored.push({ path: filePath, reason: result.reason });
    if (result.kind !== 'valid') continue;
    inspection.files.push(result.file);
    inspection.entries.push({
      provider,
      path: filePath,
      fetchedAt: result.file.fetchedAt,
      ageDays: ageInDays(result.file.fetchedAt, now),
      regions: result.file.regions,
      instanceCount: result.file.instances.length,
    });
  }
  return inspection;
}

/**
 * The refreshed catalog: every valid provider cache merged, `origin` 'cache'. Its `asOf` and
 * `ageDays` are those of the oldest file in the merge, so the catalog never claims to be
 * fresher than any of its parts. Undefined when no provider has a valid cache; ignored files
 * are reported through `onIgnored`.
 */
export async function readNewestCache(options: CacheOptions & { onIgnored?: (ignored: IgnoredCache) => void } = {}): Promise<InstanceCatalog | undefined> {
  const inspection = await inspectCache(options);
  for (const ignored of inspection.ignored) options.onIgnored?.(ignored);
  if (inspection.entries.length === 0) return undefined;
  const oldest = [...inspection.entries].sort((a, b) => Date.parse(a.fetchedAt) - Date.parse(b.fetchedAt))[0]!;
  return {
    name: `refreshed cache (${inspection.entries.map((entry) => `${entry.provider} ${entry.fetchedAt.slice(0, 10)}`).join(', ')})`,
    asOf: oldest.fetchedAt.slice(0, 10),
    origin: 'cache',
    ageDays: oldest.ageDays,
    instances: inspection.files.flatMap((file) => file.instances),
  };
}

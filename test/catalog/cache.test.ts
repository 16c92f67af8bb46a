/**
 * The catalog cache on disk: where it lives, how it is written (atomically, under a lock) and
 * how it is read back (every valid provider file merged; a broken file ignored with a reason).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { homedir, hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cacheDirectory, cacheFilePath, inspectCache, readNewestCache, withCacheLock, writeProviderCache, type IgnoredCache,
} from '../../src/catalog/cache.js';
import type { ProviderRefresh } from '../../src/catalog/refresh/types.js';
import type { InstanceType } from '../../src/model/catalog.js';
import { InputError } from '../../src/support/errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-cache-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function instance(provider: 'aws' | 'azure', name: string, region: string): InstanceType {
  return {
    provider, name, region, gpuModelKey: 'l4', gpuModelName: 'NVIDIA L4', gpuCount: 1, gpuPartitionSize: 1, vramPerGpuMiB: 22888,
    vcpus: 4, memoryGiB: 16, networkGbps: 16,
    prices: { onDemand: 0.8048, spot: null, reserved1y: null, reserved3y: null, savingsPlan1y: null, savingsPlan3y: null, sources: ['test'] },
    sources: ['test'],
  };
}

function refresh(provider: 'aws' | 'azure', fetchedAt: string, names: string[], region = provider === 'aws' ? 'us-east-1' : 'eastus'): ProviderRefresh {
  return {
    provider, fetchedAt,
    regions: [{ region, instanceTypes: names.length, withOnDemandPrice: names.length, withSpotPrice: 0 }],
    failures: [], notices: [],
    instances: names.map((name) => instance(provider, name, region)),
  };
}

describe('cache location', () => {
  it('is GPU_AUDIT_CACHE_DIR, else $XDG_CACHE_HOME/gpu-audit, else ~/.cache/gpu-audit', () => {
    expect(cacheDirectory({ env: { GPU_AUDIT_CACHE_DIR: '/srv/cache', XDG_CACHE_HOME: '/x' } })).toBe('/srv/cache');
    expect(cacheDirectory({ env: { XDG_CACHE_HOME: '/home/ci/.xdg' } })).toBe('/home/ci/.xdg/gpu-audit');
    // The XDG spec says a relative path is invalid and must be ignored.
    expect(cacheDirectory({ env: { XDG_CACHE_HOME: 'relative' } })).toBe(path.join(homedir(), '.cache', 'gpu-audit'));
    expect(cacheDirectory({ env: {} })).toBe(path.join(homedir(), '.cache', 'gpu-audit'));
    expect(cacheDirectory({ dir: '/explicit', env: { GPU_AUDIT_CACHE_DIR: '/srv/cache' } })).toBe('/explicit');
    expect(cacheFilePath('azure', { dir: '/c' })).toBe('/c/catalog-azure.json');
  });
});

describe('writing and reading the cache', () => {
  it('reads back what was written, as a catalog of origin "cache" with its date and age', async () => {
    const file = await writeProviderCache(refresh('aws', '2026-11-30T08:00:00.000Z', ['g6.xlarge']), { dir });
    expect(file).toBe(path.join(dir, 'catalog-aws.json'));
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({ schemaVersion: 1, provider: 'aws', fetchedAt: '2026-11-30T08:00:00.000Z', regions: ['us-east-1'], failures: [] });

    // 2026-11-30T08:00Z to 2026-12-03T07:00Z is 2 days 23 hours: 2 whole days.
    const catalog = await readNewestCache({ dir, now: () => new Date('2026-12-03T07:00:00Z') });
    expect(catalog).toEqual({
      name: 'refreshed cache (aws 2026-11-30)', asOf: '2026-11-30', origin: 'cache', ageDays: 2,
      instances: [instance('aws', 'g6.xlarge', 'us-east-1')],
    });
  });

  it('merges the providers and dates the whole by its oldest part', async () => {
    await writeProviderCache(refresh('aws', '2026-11-30T08:00:00.000Z', ['g6.xlarge']), { dir });
    await writeProviderCache(refresh('azure', '2026-11-20T12:00:00.000Z', ['Standard_NC4as_T4_v3']), { dir });
    const catalog = await readNewestCache({ dir, now: () => new Date('2026-12-01T00:00:00Z') });
    // Azure is the older: 2026-11-20T12:00Z to 2026-12-01T00:00Z is 10.5 days: 10.
    expect(catalog).toMatchObject({ name: 'refreshed cache (aws 2026-11-30, azure 2026-11-20)', asOf: '2026-11-20', ageDays: 10 });
    expect(catalog?.instances.map((entry) => entry.name)).toEqual(['g6.xlarge', 'Standard_NC4as_T4_v3']);
  });

  it('has nothing to offer when no refresh ever ran', async () => {
    expect(await readNewestCache({ dir })).toBeUndefined();
    expect(await readNewestCache({ dir: path.join(dir, 'never-created') })).toBeUndefined();
  });

  it('calls a cache written by a clock ahead of this one today\'s', async () => {
    await writeProviderCache(refresh('aws', '2026-12-05T00:00:00.000Z', ['g6.xlarge']), { dir });
    expect((await readNewestCache({ dir, now: () => new Date('2026-12-04T00:00:00Z') }))?.ageDays).toBe(0);
  });

  it('ignores a corrupt or foreign file, says why, and still serves the valid one', async () => {
    await writeProviderCache(refresh('aws', '2026-11-30T08:00:00.000Z', ['g6.xlarge']), { dir });
    writeFileSync(path.join(dir, 'catalog-azure.json'), '{"schemaVersion":1,"provider":"azure","fetchedAt":"2026-11-30T08:00:00Z","regions":[],"failures":[],"instan');
    const ignored: IgnoredCache[] = [];
    const catalog = await readNewestCache({ dir, onIgnored: (entry) => ignored.push(entry) });
    expect(catalog?.instances).toHaveLength(1);
    expect(ignored).toHaveLength(1);
    expect(ignored[0]!.path).toBe(path.join(dir, 'catalog-azure.json'));
    expect(ignored[0]!.reason).toMatch(/^not valid JSON/);
  });

  it.each([
    ['another schema version', { schemaVersion: 2 }, 'not a gpu-audit cache of schema version 1 (schemaVersion: '],
    ['a negative GPU count', { instances: [{ ...instance('aws', 'x', 'us-east-1'), gpuCount: -1 }] }, 'not a gpu-audit cache of schema version 1 (instances.0.gpuCount: '],
    ['the other provider\'s data', { provider: 'azure' }, 'holds the azure catalog, not aws'],
  ])('ignores a file with %s', async (_, change, reason) => {
    const valid = { schemaVersion: 1, provider: 'aws', fetchedAt: '2026-11-30T08:00:00.000Z', regions: ['us-east-1'], failures: [], instances: [instance('aws', 'g6.xlarge', 'us-east-1')] };
    writeFileSync(path.join(dir, 'catalog-aws.json'), JSON.stringify({ ...valid, ...change }));
    const inspection = await inspectCache({ dir });
    expect(inspection.entries).toEqual([]);
    expect(inspection.ignored[0]?.reason.startsWith(reason)).toBe(true);
    expect(await readNewestCache({ dir })).toBeUndefined();
  });

  it('leaves the previous file byte for byte when the new one cannot be written', async () => {
    await writeProviderCache(refresh('aws', '2026-11-30T08:00:00.000Z', ['g6.xlarge']), { dir });
    const before = readFileSync(path.join(dir, 'catalog-aws.json'));
    const unserialisable = refresh('aws', '2026-12-01T08:00:00.000Z', ['g6.2xlarge']);
    (unserialisable.instances[0]!.prices as unknown as Record<string, unknown>).onDemand = 10n;
    await expect(writeProviderCache(unserialisable, { dir })).rejects.toThrow(/BigInt/);
    await expect(writeProviderCache({ ...refresh('aws', '2026-12-01T08:00:00.000Z', []), regions: [] }, { dir })).rejects.toThrow(/fetched no region/);
    expect(readFileSync(path.join(dir, 'catalog-aws.json')).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['catalog-aws.json']);
  });

  it('clears temp files a killed writer left behind', async () => {
    writeFileSync(path.join(dir, '.catalog-aws.json.deadbeef0000.tmp'), '{"half":');
    await writeProviderCache(refresh('aws', '2026-11-30T08:00:00.000Z', ['g6.xlarge']), { dir });
    expect(readdirSync(dir)).toEqual(['catalog-aws.json']);
  });
});

describe('the refresh lock', () => {
  const lockPath = (): string => path.join(dir, 'catalog-aws.lock');

  it('lets one refresh in and turns the second away, naming the first', async () => {
    let release: () => void = () => undefined;
    const first = withCacheLock('aws', () => new Promise<string>((resolve) => {
      release = () => resolve('first done');
    }), { dir });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(JSON.parse(readFileSync(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });

    const second = await withCacheLock('aws', async () => 'second done', { dir }).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(InputError);
    expect((second as InputError).file).toBe(lockPath());
    expect((second as InputError).message).toMatch(new RegExp(`^another refresh of the aws catalog cache is running \\(process ${process.pid} on `));

    // Another provider has its own lock.
    expect(await withCacheLock('azure', async () => 'azure done', { dir })).toBe('azure done');
    release();
    expect(await first).toBe('first done');
    expect(existsSync(lockPath())).toBe(false);
  });

  it('serialises a second refresh that is willing to wait', async () => {
    const order: string[] = [];
    const first = withCacheLock('aws', async () => {
      order.push('first start');
      await new Promise((resolve) => setTimeout(resolve, 300));
      order.push('first end');
    }, { dir });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = withCacheLock('aws', async () => {
      order.push('second');
    }, { dir, waitMs: 5_000 });
    await Promise.all([first, second]);
    expect(order).toEqual(['first start', 'first end', 'second']);
  });

  it('takes over the lock of a refresh that was killed', async () => {
    // A pid that existed and is gone: a finished child process.
    const deadPid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    writeFileSync(lockPath(), JSON.stringify({ pid: deadPid, hostname: hostname(), createdAt: new Date().toISOString(), token: 'gone' }));
    expect(await withCacheLock('aws', async () => 'ran', { dir })).toBe('ran');
  });

  it('takes over a lock older than ten minutes, whoever holds it', async () => {
    writeFileSync(lockPath(), JSON.stringify({ pid: 1, hostname: 'elsewhere', createdAt: '2026-11-30T08:00:00.000Z', token: 'old' }));
    expect(await withCacheLock('aws', async () => 'ran', { dir, now: () => new Date('2026-11-30T08:10:01Z') })).toBe('ran');
  });

  it('respects a fresh lock of another host', async () => {
    writeFileSync(lockPath(), JSON.stringify({ pid: 1, hostname: 'elsewhere', createdAt: '2026-11-30T08:00:00.000Z', token: 'live' }));
    await expect(withCacheLock('aws', async () => 'ran', { dir, now: () => new Date('2026-11-30T08:05:00Z') })).rejects.toThrow(/process 1 on elsewhere, since 2026-11-30T08:00:00.000Z/);
  });
});

/**
 * loadCatalog consults the refreshed cache first and falls back to the bundled snapshot.
 * The cache module belongs to `catalog refresh`; here it is replaced by a stand-in so the
 * precedence can be tested without writing a cache to disk.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { InstanceCatalog } from '../../src/model/catalog.js';

const cacheState = vi.hoisted(() => ({ newest: undefined as InstanceCatalog | undefined, reads: 0 }));

vi.mock('../../src/catalog/cache.js', () => ({
  readNewestCache: async (): Promise<InstanceCatalog | undefined> => {
    cacheState.reads += 1;
    return cacheState.newest;
  },
}));

const { loadCatalog } = await import('../../src/catalog/index.js');

const refreshed: InstanceCatalog = { name: 'cache-2026-12-01', asOf: '2026-12-01', origin: 'cache', ageDays: 2, instances: [] };

describe('loadCatalog', () => {
  beforeEach(() => {
    cacheState.newest = undefined;
    cacheState.reads = 0;
  });

  it('returns the newest cache when there is one', async () => {
    cacheState.newest = refreshed;
    expect(await loadCatalog()).toBe(refreshed);
  });

  it('falls back to the bundled snapshot when there is no cache', async () => {
    expect(await loadCatalog()).toMatchObject({ name: 'bundled-2026-11-29', origin: 'bundled', asOf: '2026-11-29' });
    expect(cacheState.reads).toBe(1);
  });

  it('skips the cache when asked to (catalog list --bundled)', async () => {
    cacheState.newest = refreshed;
    expect(await loadCatalog({ preferCache: false })).toMatchObject({ origin: 'bundled' });
    expect(cacheState.reads).toBe(0);
  });

  it('hands out a copy of the bundled list: a caller sorting it in place changes nothing for the next', async () => {
    const first = await loadCatalog({ preferCache: false });
    first.instances.reverse();
    const second = await loadCatalog({ preferCache: false });
    expect(second.instances[0]!.name).not.toBe(first.instances[0]!.name);
  });
});

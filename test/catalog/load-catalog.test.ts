/**
 * loadCatalog prices with what `catalog refresh` cached, provider by provider, and with the
 * bundled snapshot for every provider not cached. A real cache directory is written here.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeProviderCache } from '../../src/catalog/cache.js';
import { bundledCatalog, loadCatalog } from '../../src/catalog/index.js';
import type { InstanceType } from '../../src/model/catalog.js';

function freshCacheDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'gpu-audit-catalog-'));
}

/** A p5.48xlarge whose on-demand price a refresh changed to 50 USD/h. */
function refreshedP5(): InstanceType {
  const bundled = bundledCatalog().instances.find((instance) => instance.name === 'p5.48xlarge')!;
  return { ...bundled, prices: { ...bundled.prices, onDemand: 50, sources: ['test refresh'] } };
}

describe('loadCatalog', () => {
  it('falls back to the bundled snapshot when nothing was refreshed', async () => {
    const catalog = await loadCatalog({ cache: { dir: freshCacheDir() } });
    expect(catalog).toMatchObject({ name: 'bundled-2026-11-29', origin: 'bundled', asOf: '2026-11-29', ageDays: null });
  });

  it('uses the cache for the refreshed provider and the bundled snapshot for the others', async () => {
    const dir = freshCacheDir();
    await writeProviderCache(
      { provider: 'aws', fetchedAt: '2026-12-01T10:00:00.000Z', regions: [{ region: 'us-east-1', instanceTypes: 1, withOnDemandPrice: 1, withSpotPrice: 0 }], failures: [], instances: [refreshedP5()], notices: [] },
      { dir },
    );
    const catalog = await loadCatalog({ cache: { dir, now: () => new Date('2026-12-03T10:00:00.000Z') } });
    expect(catalog.origin).toBe('cache');
    expect(catalog.asOf).toBe('2026-12-01');
    expect(catalog.ageDays).toBe(2);
    expect(catalog.name).toContain('bundled-2026-11-29 (azure, gcp)');
    const aws = catalog.instances.filter((instance) => instance.provider === 'aws');
    expect(aws.map((instance) => instance.name)).toEqual(['p5.48xlarge']);
    expect(aws[0]!.prices.onDemand).toBe(50);
    const bundled = bundledCatalog().instances;
    expect(catalog.instances.filter((instance) => instance.provider === 'azure')).toHaveLength(bundled.filter((instance) => instance.provider === 'azure').length);
  });

  it('skips the cache when asked to', async () => {
    const dir = freshCacheDir();
    await writeProviderCache(
      { provider: 'aws', fetchedAt: '2026-12-01T10:00:00.000Z', regions: [{ region: 'us-east-1', instanceTypes: 1, withOnDemandPrice: 1, withSpotPrice: 0 }], failures: [], instances: [refreshedP5()], notices: [] },
      { dir },
    );
    expect(await loadCatalog({ preferCache: false, cache: { dir } })).toMatchObject({ origin: 'bundled' });
  });

  it('hands out a copy of the bundled list: a caller sorting it in place changes nothing for the next', async () => {
    const first = await loadCatalog({ preferCache: false });
    first.instances.reverse();
    const second = await loadCatalog({ preferCache: false });
    expect(second.instances[0]!.name).not.toBe(first.instances[0]!.name);
  });
});

import { describe, expect, it } from 'vitest';
import {
  BUNDLED_CATALOG_NAME,
  bundledCatalog,
  closeInstanceNames,
  filterInstances,
  findInstances,
  gpuEquivalents,
  gpuHourPrice,
  instancePrice,
  matchesGpu,
  priceAt,
  pricePerDeviceHour,
  pricePerGpuHour,
  sortInstances,
  marketedVramGB,
  usableVramGiB,
} from '../../src/catalog/index.js';
import { BUNDLED_INSTANCES } from '../../src/catalog/data/instances.js';
import type { InstanceRecord } from '../../src/catalog/index.js';
import type { InstanceType } from '../../src/model/catalog.js';

const catalog = bundledCatalog();
/** The bundled record, with the fields only bundled records carry (notes, nominal GB). */
const INSTANCES = BUNDLED_INSTANCES;
const byName = (name: string): InstanceRecord => findInstances(BUNDLED_INSTANCES, name)[0]!;

/** A hand-made instance for the pure functions; only the fields a test sets matter. */
function instance(overrides: Partial<InstanceType> & { name: string }): InstanceType {
  return {
    provider: 'aws',
    region: 'us-east-1',
    gpuModelKey: 'l4',
    gpuModelName: 'NVIDIA L4',
    gpuCount: 1,
    gpuPartitionSize: 1,
    vramPerGpuMiB: 22888,
    vcpus: 4,
    memoryGiB: 16,
    networkGbps: 10,
    sources: [],
    ...overrides,
    prices: { onDemand: null, spot: null, reserved1y: null, reserved3y: null, savingsPlan1y: null, savingsPlan3y: null, sources: [], ...overrides.prices },
  };
}

describe('the bundled snapshot', () => {
  it('names itself and its date', () => {
    expect(catalog).toMatchObject({ name: 'bundled-2026-11-29', asOf: '2026-11-29', origin: 'bundled', ageDays: null });
    expect(BUNDLED_CATALOG_NAME).toBe(catalog.name);
  });

  it('holds the 114 types of gpu-instances.json: 73 AWS, 25 Azure, 16 GCP', () => {
    const count = (provider: string): number => catalog.instances.filter((i) => i.provider === provider).length;
    expect([catalog.instances.length, count('aws'), count('azure'), count('gcp')]).toEqual([114, 73, 25, 16]);
  });

  it('p5.48xlarge: 8 x H100 80GB, on-demand 55.04 from the 2026-07-20 Karpenter table', () => {
    expect(byName('p5.48xlarge')).toMatchObject({
      provider: 'aws',
      region: 'us-east-1',
      gpuModelKey: 'h100-sxm-80gb',
      gpuCount: 8,
      vramPerGpuMiB: 81559,
      vcpus: 192,
      memoryGiB: 2048,
      networkGbps: 3200,
      prices: { onDemand: 55.04 },
    });
    expect(byName('p5.48xlarge').prices.sources[0]).toMatch(/^on-demand: github:aws\/karpenter-provider-aws .*2026-07-20/);
  });

  it('Standard_ND96isr_H200_v5: 8 x H200, usable MiB from the GPU table, 141 GB as marketed, eastus2', () => {
    expect(byName('Standard_ND96isr_H200_v5')).toMatchObject({
      provider: 'azure',
      region: 'eastus2',
      gpuModelKey: 'h200-sxm-141gb',
      gpuCount: 8,
      vramPerGpuMiB: 143771,
      vramPerGpuNominalGB: 141,
      prices: { onDemand: 84.8, spot: null },
    });
    expect(byName('Standard_ND96isr_H200_v5').sources).toContain('vramPerGpuMiB: GPU table h200-sxm-141gb (SMI_CSV_PUBLIC; seen)');
  });

  it('leaves unknown prices null, never 0', () => {
    expect(byName('p5e.48xlarge').prices.onDemand).toBeNull();
    for (const i of catalog.instances) {
      for (const price of [i.prices.onDemand, i.prices.spot, i.prices.reserved1y, i.prices.reserved3y, i.prices.savingsPlan1y, i.prices.savingsPlan3y]) {
        expect(price === null || price > 0).toBe(true);
      }
    }
  });

  it('names a source for every price it has', () => {
    for (const i of catalog.instances) {
      const known = Object.entries({ 'on-demand': i.prices.onDemand, spot: i.prices.spot }).filter(([, v]) => v !== null).map(([k]) => k);
      for (const term of known) expect(i.prices.sources.some((s) => s.startsWith(`${term}: `)), `${i.name} ${term}`).toBe(true);
    }
  });

  it('takes AWS spot from commitment-prices.json, preferring a dated observation over an undated snapshot', () => {
    // p5en.48xlarge: skypilot (undated) 24.2902 vs dstack PR #4110 (2026-08-06) 27.1988.
    expect(byName('p5en.48xlarge').prices.spot).toBe(27.1988);
    // g6.xlarge: only the skypilot median of the us-east-1 AZs.
    expect(byName('g6.xlarge').prices.spot).toBe(0.41285);
    expect(byName('g6.xlarge').prices.sources.find((s) => s.startsWith('spot: '))).toContain('predates the 2026-07-20 on-demand prices');
  });

  it('GCP a2-highgpu-1g: on-demand = VM part + the GPU-only row, labelled derived', () => {
    // 0.73948 (vCPU + memory, skypilot) + 2.93391 (1 x A100, skypilot GPU row) = 3.67339
    expect(byName('a2-highgpu-1g').prices.onDemand).toBe(3.67339);
    // spot: 0.29576 + 1.1472 = 1.44296
    expect(byName('a2-highgpu-1g').prices.spot).toBe(1.44296);
    expect(byName('a2-highgpu-1g').prices.sources[0]).toMatch(/^on-demand: derived: VM part 0.73948 .* \+ GPU part 2.93391/);
  });

  it('GCP: no price where the GPU row is flagged suspect, and the note says why', () => {
    expect(byName('a3-highgpu-8g').prices.onDemand).toBeNull();
    expect(byName('a3-highgpu-8g').notes.join(' ')).toContain('flagged suspect');
  });

  it('GCP a3-ultragpu-8g: a per-GPU "instance share" price is multiplied back by 8 GPUs', () => {
    // 10.4365 x 8 = 83.492
    expect(byName('a3-ultragpu-8g').prices.onDemand).toBe(83.492);
  });
});

describe('fractional GPU types', () => {
  it('AWS g6f.2xlarge: 0 whole GPUs, a quarter of an L4, the slice size as VRAM', () => {
    expect(byName('g6f.2xlarge')).toMatchObject({ gpuCount: 0, gpuPartitionSize: 0.25, vramPerGpuMiB: 5722, gpuModelKey: 'l4' });
  });

  it('Azure NV6ads_A10_v5: Azure says GPUs=1; the table holds a sixth of an A10, derived from vCPUs', () => {
    // 6 vCPUs / 36 vCPUs of Standard_NV36ads_A10_v5 (one whole A10) = 1/6
    expect(byName('Standard_NV6ads_A10_v5')).toMatchObject({ gpuCount: 0, gpuPartitionSize: 6 / 36, vramPerGpuMiB: null });
    expect(byName('Standard_NV6ads_A10_v5').notes.join(' ')).toContain('gpuPartitionSize derived');
  });

  it('prices per whole-GPU-equivalent without dividing by zero', () => {
    // g6f.2xlarge: $0.475/h for 0.25 of an L4 -> 0.475 / 0.25 = $1.90 per L4-hour
    const g6f = byName('g6f.2xlarge');
    expect(gpuEquivalents(g6f)).toBe(0.25);
    expect(gpuHourPrice(g6f, 'on-demand')).toEqual({ usdPerGpuHour: 1.9, basis: 'per-whole-gpu-equivalent' });
    expect(pricePerGpuHour(g6f, 'on-demand')).toBe(1.9);
    // The one device the host sees costs the whole instance price.
    expect(pricePerDeviceHour(g6f, 'on-demand')).toBe(0.475);
  });

  it('gives no per-GPU price for an instance with neither GPUs nor a partition', () => {
    const none = instance({ name: 'x', gpuCount: 0, gpuPartitionSize: 0, prices: { onDemand: 1 } as InstanceType['prices'] });
    expect(gpuEquivalents(none)).toBeNull();
    expect(pricePerGpuHour(none, 'on-demand')).toBeNull();
    expect(pricePerDeviceHour(none, 'on-demand')).toBeNull();
  });
});

describe('prices under a pricing model', () => {
  it('p5.48xlarge per GPU-hour: 55.04 / 8 = 6.88 on demand; 26.7861 / 8 = 3.3482625 spot', () => {
    const p5 = byName('p5.48xlarge');
    expect(pricePerGpuHour(p5, 'on-demand')).toBeCloseTo(6.88, 10);
    expect(pricePerGpuHour(p5, 'spot')).toBeCloseTo(3.3482625, 10);
    expect(pricePerGpuHour(p5, 'reserved-1y')).toBeNull();
  });

  it('a commitment takes the reservation, else the savings plan of the same term, and says which', () => {
    const both = instance({ name: 'a', prices: { reserved1y: 3, savingsPlan1y: 4 } as InstanceType['prices'] });
    const planOnly = instance({ name: 'b', prices: { savingsPlan3y: 2 } as InstanceType['prices'] });
    expect(priceAt(both, 'reserved-1y')).toEqual({ usdPerHour: 3, term: 'reserved-1y' });
    expect(priceAt(planOnly, 'reserved-3y')).toEqual({ usdPerHour: 2, term: 'savings-plan-3y' });
    expect(instancePrice(planOnly, 'reserved-1y')).toBeNull();
  });
});

describe('filterInstances', () => {
  it('--provider aws --gpu H100: the two H100 types of AWS', () => {
    expect(filterInstances(catalog.instances, { providers: ['aws'], gpu: 'H100' }).map((i) => i.name).sort()).toEqual(['p5.48xlarge', 'p5.4xlarge']);
  });

  it('matches whole words: A10 is not the A100 or the A10G', () => {
    const names = new Set(filterInstances(catalog.instances, { gpu: 'A10' }).map((i) => i.gpuModelKey));
    expect([...names]).toEqual(['a10']);
    expect(matchesGpu(byName('g5.xlarge'), 'A10')).toBe(false);
    expect(matchesGpu(byName('g5.xlarge'), 'a10g')).toBe(true);
  });

  it('matches a GPU by its key, its nvidia-smi name, or the catalog key', () => {
    const p5 = byName('p5.48xlarge');
    expect(matchesGpu(p5, 'h100-sxm-80gb')).toBe(true);
    expect(matchesGpu(p5, 'NVIDIA H100 80GB HBM3')).toBe(true);
    expect(matchesGpu(p5, 'H100-SXM-80GB')).toBe(true);
    expect(matchesGpu(p5, 'H200')).toBe(false);
  });

  it('puts one H100 80GB on one basis on every cloud: the GPU table\'s 81,559 MiB (79.6 GiB), labelled 80 GB', () => {
    for (const name of ['p5.48xlarge', 'Standard_ND96isr_H100_v5', 'a3-highgpu-8g']) {
      const instance = byName(name);
      expect([name, instance.vramPerGpuMiB, usableVramGiB(instance)?.toFixed(1), marketedVramGB(instance)]).toEqual([name, 81559, '79.6', 80]);
    }
    // AWS lists 81,920 MiB for the same board; the source line keeps it.
    expect(byName('p5.48xlarge').sources).toContain('vramPerGpuMiB: GPU table h100-sxm-80gb (SMI_CSV_PUBLIC; seen); the provider lists 81920 MiB');
  });

  it('--min-vram compares the marketed GB: 80 finds the H100 80GB types on all three clouds, 81 none of them', () => {
    const h100 = filterInstances(INSTANCES, { gpu: 'H100', minVramGB: 80 });
    expect(new Set(h100.map((instance) => instance.provider))).toEqual(new Set(['aws', 'azure', 'gcp']));
    expect(filterInstances(INSTANCES, { gpu: 'h100-sxm-80gb', minVramGB: 81 })).toEqual([]);
  });

  it('leaves retired types out unless asked, marked with the day they went: Azure NCv3 on 2025-09-30', () => {
    const azure = filterInstances(INSTANCES, { providers: ['azure'] }).map((instance) => instance.name);
    expect(azure).not.toContain('Standard_NC6s_v3');
    const all = filterInstances(INSTANCES, { providers: ['azure'], includeRetired: true });
    expect(all.filter((instance) => instance.retiredOn !== undefined).map((instance) => [instance.name, instance.retiredOn])).toEqual([
      ['Standard_NC6s_v3', '2025-09-30'],
      ['Standard_NC12s_v3', '2025-09-30'],
      ['Standard_NC24s_v3', '2025-09-30'],
    ]);
  });

  it('reads a marketed-only size as decimal GB, a lower bound: Azure V100 16 GB -> 16e9 / 2^30 = 14.90 GiB', () => {
    const nc6 = byName('Standard_NC6s_v3');
    expect(nc6.vramPerGpuMiB).toBeNull();
    expect(usableVramGiB(nc6)).toBeCloseTo(14.9012, 4);
  });

  it('--max-price leaves out types without a price at the chosen pricing', () => {
    const cheap = filterInstances(catalog.instances, { maxPricePerHour: 0.3 });
    expect(cheap.map((i) => i.name).sort()).toEqual(['g6f.large', 'g6f.xlarge']);
    const cheapSpot = filterInstances(catalog.instances, { maxPricePerHour: 0.1, pricing: 'spot' });
    expect(cheapSpot.map((i) => i.name).sort()).toEqual(['Standard_NC4as_T4_v3', 'Standard_NC8as_T4_v3']);
  });

  it('--region is matched case-insensitively', () => {
    expect(filterInstances(catalog.instances, { region: 'EASTUS2' }).map((i) => i.name).sort()).toEqual(['Standard_ND96isr_H200_v5', 'Standard_ND96isr_MI300X_v5']);
  });
});

describe('sortInstances', () => {
  const a = instance({ name: 'a', gpuCount: 8, prices: { onDemand: 16 } as InstanceType['prices'] });
  const b = instance({ name: 'b', gpuCount: 1, prices: { onDemand: 4 } as InstanceType['prices'] });
  const c = instance({ name: 'c', gpuCount: 2, prices: { onDemand: null } as InstanceType['prices'] });

  it('sorts by instance price, unknown prices last', () => {
    expect(sortInstances([a, c, b], { key: 'price' }).map((i) => i.name)).toEqual(['b', 'a', 'c']);
  });

  it('sorts by price per GPU: a is 16 / 8 = 2, b is 4 / 1 = 4', () => {
    expect(sortInstances([b, c, a], { key: 'gpu-price' }).map((i) => i.name)).toEqual(['a', 'b', 'c']);
  });

  it('descending keeps unknowns last, and ties fall back to provider, name, region', () => {
    expect(sortInstances([b, c, a], { key: 'price', descending: true }).map((i) => i.name)).toEqual(['a', 'b', 'c']);
    const twin = instance({ name: 'a', region: 'eu-west-1', gpuCount: 8, prices: { onDemand: 16 } as InstanceType['prices'] });
    expect(sortInstances([a, twin], { key: 'price' }).map((i) => i.region)).toEqual(['eu-west-1', 'us-east-1']);
  });
});

describe('closeInstanceNames', () => {
  it('suggests the names a typo or a prefix was after', () => {
    expect(closeInstanceNames(catalog.instances, 'Standard_ND96isr_H200')[0]).toBe('Standard_ND96isr_H200_v5');
    expect(closeInstanceNames(catalog.instances, 'p5.48xlrge')[0]).toBe('p5.48xlarge');
    expect(closeInstanceNames(catalog.instances, 'zzzzzzzz')).toEqual([]);
  });
});

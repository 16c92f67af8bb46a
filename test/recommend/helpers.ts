/**
 * Tiny hand-written inputs for the recommender tests: a demand unit with every field named,
 * and a catalog of a few instance types whose prices the tests work with by hand.
 */
import type { InstanceCatalog, InstanceType } from '../../src/model/catalog.js';
import { DEFAULT_RECOMMEND_SETTINGS, type RecommendOptions } from '../../src/recommend/index.js';
import type { DemandUnit } from '../../src/recommend/types.js';

export const GIB = 1024;

export function unit(overrides: Partial<DemandUnit> & { id: string }): DemandUnit {
  return {
    label: overrides.id,
    gpuIds: [`gpu-${overrides.id}`],
    gpuCount: 1,
    host: 'node-1',
    modelKey: 'h200-sxm-141gb',
    memoryTotalMiB: 143771,
    migProfile: null,
    instanceType: 'test.h200x8',
    instanceTypeBasis: 'flag',
    hourlyUsdPerGpu: 10,
    vram: { peakMiB: 60 * GIB, p95MiB: 60 * GIB, requiredMiB: 69 * GIB, basis: 'measured' },
    compute: { basis: 'sm-active', meanPct: 5, p95Pct: 20, busyFraction: 0.2, bound: 'unknown' },
    hourOfWeekPct: null,
    tenant: null,
    kind: 'unknown',
    checkpoint: null,
    serving: null,
    window: { hours: 168, samples: 2016 },
    processNames: ['python3 serve.py'],
    ...overrides,
  };
}

function instance(name: string, gpuModelKey: string, gpuCount: number, onDemand: number, extra: Partial<InstanceType['prices']> = {}): InstanceType {
  return {
    provider: 'aws',
    name,
    region: 'us-east-1',
    gpuModelKey,
    gpuModelName: gpuModelKey,
    gpuCount,
    gpuPartitionSize: 1,
    vramPerGpuMiB: null,
    vcpus: null,
    memoryGiB: null,
    networkGbps: null,
    prices: { onDemand, spot: null, reserved1y: null, reserved3y: null, savingsPlan1y: null, savingsPlan3y: null, sources: ['test'], ...extra },
    sources: ['test'],
  };
}

/**
 * Per GPU-hour: H200 $10, H100 $8, A100 80GB $5, A100 40GB $4, L40S $3, L4 $1.
 * (8-GPU types priced at 8 x the per-GPU figure.)
 */
export function testCatalog(extra: InstanceType[] = []): InstanceCatalog {
  return {
    name: 'test-catalog',
    asOf: '2026-11-29',
    origin: 'bundled',
    ageDays: null,
    instances: [
      instance('test.h200x8', 'h200-sxm-141gb', 8, 80),
      instance('test.h100x8', 'h100-sxm-80gb', 8, 64),
      instance('test.a100-80x8', 'a100-sxm4-80gb', 8, 40),
      instance('test.a100-40x8', 'a100-sxm4-40gb', 8, 32),
      instance('test.l40sx1', 'l40s', 1, 3),
      instance('test.l4x1', 'l4', 1, 1),
      ...extra,
    ],
  };
}

export function options(overrides: Partial<RecommendOptions> = {}): RecommendOptions {
  return { ...DEFAULT_RECOMMEND_SETTINGS, catalog: testCatalog(), pricing: 'on-demand', ...overrides };
}

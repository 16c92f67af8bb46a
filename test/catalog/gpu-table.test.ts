/**
 * The GPU table as data: one row per board, names and PCI ids that point at one row each,
 * confidence carried over from the reference, and the key schemes reconciled in one place.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  INSTANCE_GPU_KEY_TO_MODEL_KEY,
  MODEL_KEY_TO_MIG_TABLE,
  UNKNOWN_GPU_KEY,
  bundledCatalog,
  gpuSpecByKey,
  gpuSpecs,
  migTableFor,
  migTables,
  normaliseGpuName,
  resolveGpuModel,
  type GpuSpecRecord,
} from '../../src/catalog/index.js';
import { repoRoot } from '../helpers/corpus.js';

const shared = (file: string): unknown => JSON.parse(readFileSync(path.resolve(repoRoot, '../shared', file), 'utf8'));

describe('GPU table rows', () => {
  const specs = gpuSpecs();

  it('has one row per key, and names and PCI ids that point at one row each', () => {
    const keys = specs.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    // "NVIDIA A100-PCIE-40GB" and the older "A100-PCIE-40GB" are one board: the same row twice is fine.
    const owners = new Map<string, Set<string>>();
    for (const spec of specs) for (const name of spec.productNames) owners.set(normaliseGpuName(name), (owners.get(normaliseGpuName(name)) ?? new Set()).add(spec.key));
    expect([...owners].filter(([, keys]) => keys.size > 1)).toEqual([]);
    const ids = specs.flatMap((s) => s.pciDeviceIds);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('splits the reference GH200 entry into its two boards', () => {
    // gpus.json keeps per-variant dicts: vram {480GB: 97871, 144G: 146831}, PCI {96GB: 0x2342, 144G: 0x2348}.
    expect(gpuSpecByKey('gh200-96gb')).toMatchObject({ productNames: ['NVIDIA GH200 480GB'], pciDeviceIds: ['0x2342'], vramMiB: { value: 97871 } });
    expect(gpuSpecByKey('gh200-144gb')).toMatchObject({ productNames: ['NVIDIA GH200 144G HBM3e'], pciDeviceIds: ['0x2348'], vramMiB: { value: 146831 } });
    expect(gpuSpecByKey('gh200')).toBeUndefined();
  });

  it('keeps values with their sources and check marks', () => {
    expect(gpuSpecByKey('h100-sxm-80gb')!.bf16DenseTflops).toEqual({ value: 989.4, sources: ['NV_DS_H100', 'NANOCHAT_TABLE'], check: 'seen' });
    expect(gpuSpecByKey('t4')!.fp32Tflops).toEqual({ value: 8.1, sources: ['RECALLED_NV_DATASHEET'], check: 'recalled' });
    // A qualifier in the reference's check stays as a note.
    expect(gpuSpecByKey('a10')!.memoryBandwidthGBps).toMatchObject({ value: 600, check: 'seen', note: 'seen (third-party 600.2)' });
  });

  it('keeps the smallest of several seen memory sizes, and says so', () => {
    // V100-SXM2-32GB: both 32768 and 32510 MiB appear in public captures.
    expect(gpuSpecByKey('v100-sxm2-32gb')!.vramMiB).toMatchObject({ value: 32510, note: expect.stringContaining('also seen: 32768') });
  });

  it('leaves prose and ranges empty rather than picking a number', () => {
    // GB200 TDP: "~1200 per GPU (power policy seen in one run log); superchip budget differs".
    expect(gpuSpecByKey('gb200')!.tdpW).toBeNull();
    expect(gpuSpecByKey('gb200')!.notes.join(' ')).toContain('~1200 per GPU');
  });

  it('does not call B100 MIG-capable: the reference says supported = null (not in the MIG table)', () => {
    expect(gpuSpecByKey('b100')!.migSupported).toBe(false);
  });
});

describe('confidence carried over from reference/gpus.json', () => {
  const reference = shared('reference/gpus.json') as { gpus: Record<string, unknown>[] };
  const FIELDS: Record<string, keyof GpuSpecRecord> = {
    vram_mib_total: 'vramMiB',
    vram_gb_marketing: 'vramMarketingGB',
    mem_bandwidth_gbs: 'memoryBandwidthGBps',
    bf16_dense_tflops: 'bf16DenseTflops',
    fp16_dense_tensor_tflops: 'fp16DenseTflops',
    fp32_tflops: 'fp32Tflops',
    tdp_w: 'tdpW',
    sm_count: 'smCount',
  };
  const rows = reference.gpus.flatMap((entry) => {
    const key = entry.key as string;
    const tableKeys = key === 'gh200' ? ['gh200-96gb', 'gh200-144gb'] : [key];
    return tableKeys.flatMap((tableKey) =>
      Object.entries(FIELDS).map(([field, property]) => {
        const check = ((entry[field] as { check?: string } | null)?.check ?? '').toLowerCase();
        return { tableKey, field, property, check };
      }),
    );
  });

  it('covers every GPU of the reference, and adds only the three known by their MIG tooling alone', () => {
    const fromReference = new Set(rows.map((r) => r.tableKey));
    expect(gpuSpecs().filter((spec) => !fromReference.has(spec.key)).map((spec) => spec.key)).toEqual(['b300', 'h20', 'rtx-pro-6000-bse']);
    // Those carry no throughput: the planner never sizes a workload onto them.
    for (const key of ['b300', 'h20', 'rtx-pro-6000-bse']) expect(gpuSpecByKey(key)).toMatchObject({ migSupported: true, bf16DenseTflops: null, memoryBandwidthGBps: null, vramMiB: null });
  });

  it('never raises a recalled or unverified value to seen or derived', () => {
    const lowered = rows.filter((r) => r.check.startsWith('recalled') || r.check.startsWith('unverified'));
    expect(lowered.length).toBeGreaterThan(40);
    for (const row of lowered) {
      const value = gpuSpecByKey(row.tableKey)![row.property] as { check: string } | null;
      if (value === null) continue;
      expect([row.tableKey, row.field, value.check]).toEqual([row.tableKey, row.field, expect.stringMatching(/^(recalled|unverified)$/)]);
    }
  });

  it('lowers a value whose check says unverified outside its parentheses', () => {
    // No value of this shape carries a number today; the rule is exercised by the parser test in data-build.test.ts.
    const mixed = rows.filter((r) => /\)\s*\/\s*unverified/.test(r.check));
    for (const row of mixed) {
      const value = gpuSpecByKey(row.tableKey)![row.property] as { check: string } | null;
      expect(value === null || value.check === 'unverified').toBe(true);
    }
  });
});

describe('MIG tables per GPU', () => {
  it('every MIG-capable GPU has a profile table, and every table serves a GPU', () => {
    const capable = gpuSpecs().filter((s) => s.migSupported).map((s) => s.key);
    expect(capable.sort()).toEqual(Object.keys(MODEL_KEY_TO_MIG_TABLE).sort());
    for (const key of capable) expect(migTableFor(key), key).toBeDefined();
    const served = new Set(Object.values(MODEL_KEY_TO_MIG_TABLE));
    expect(migTables().map((t) => t.key).filter((k) => !served.has(k))).toEqual([]);
  });

  it("a table's own product names resolve to GPUs that map back to it", () => {
    for (const table of migTables()) {
      for (const name of table.productNames) {
        const key = resolveGpuModel(name)?.key;
        expect([name, key === undefined ? undefined : MODEL_KEY_TO_MIG_TABLE[key]]).toEqual([name, table.key]);
      }
    }
  });
});

describe('instance catalog GPU keys -> GPU table keys', () => {
  const catalog = shared('catalog/gpu-instances.json') as { instances: { gpu: { key: string; model: string; manufacturer?: string } }[] };
  const catalogKeys = [...new Set(catalog.instances.map((i) => i.gpu.key))].sort();

  it('maps every GPU key of gpu-instances.json explicitly, and nothing else', () => {
    expect(Object.keys(INSTANCE_GPU_KEY_TO_MODEL_KEY).sort()).toEqual(catalogKeys);
  });

  it('maps every NVIDIA key to a GPU table row or to an explicit unknown', () => {
    const nvidia = catalog.instances.filter((i) => (i.gpu.manufacturer ?? i.gpu.model).toUpperCase().includes('NVIDIA')).map((i) => i.gpu.key);
    expect(nvidia.length).toBeGreaterThan(0);
    for (const key of new Set(nvidia)) {
      const modelKey = INSTANCE_GPU_KEY_TO_MODEL_KEY[key]!;
      expect(modelKey === UNKNOWN_GPU_KEY || gpuSpecByKey(modelKey) !== undefined, `${key} -> ${modelKey}`).toBe(true);
    }
  });

  it('agrees with the GPU names: the catalog model name resolves to the mapped key where the table knows it', () => {
    for (const instance of bundledCatalog().instances) {
      const byName = resolveGpuModel(instance.gpuModelName)?.key;
      if (byName !== undefined) expect([instance.name, byName]).toEqual([instance.name, instance.gpuModelKey]);
    }
  });
});

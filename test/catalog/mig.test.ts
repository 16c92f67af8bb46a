import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { MODEL_KEY_TO_MIG_TABLE, inferMigProfile, migProfileFor, migTableFor, migTables, resolveGpuModel, validateMigLayout } from '../../src/catalog/index.js';
import type { MigGpuTable } from '../../src/catalog/index.js';
import { corpusFiles, repoRoot } from '../helpers/corpus.js';

/** One GPU key per MIG table, to call the validator with. */
const GPU_FOR_TABLE = new Map<string, string>();
for (const [gpu, table] of Object.entries(MODEL_KEY_TO_MIG_TABLE)) if (!GPU_FOR_TABLE.has(table)) GPU_FOR_TABLE.set(table, gpu);

describe('MIG profile tables', () => {
  it('carry the reference figures: A100-80GB 3g.40gb', () => {
    expect(migProfileFor('a100-sxm4-80gb', '3g.40gb')).toMatchObject({
      computeSlices: 3,
      memorySlices: 4,
      smCount: 42,
      maxInstances: 2,
      placementStarts: [0, 4],
      placementSizeSlots: 4,
      // lgip 39.25 GiB x 1024 = 40192 MiB
      memoryGiB: { min: 39.25, max: 39.25 },
      memoryMiB: 40192,
      nominalMemoryGB: 40,
    });
  });

  it('keep the lower bound where lgip printed a range: A100-80GB 1g.10gb "9.50-9.75"', () => {
    // 9.50 GiB x 1024 = 9728 MiB
    expect(migProfileFor('a100-sxm4-80gb', '1g.10gb')).toMatchObject({ memoryGiB: { min: 9.5, max: 9.75 }, memoryMiB: 9728 });
  });

  it('say where placements were inferred rather than seen', () => {
    expect(migTableFor('h100-sxm-80gb')!.placementsVerified).toBe(true);
    expect(migTableFor('b200')!.placementsVerified).toBe(false);
  });

  it('give H100 PCIe its own table: the SXM profiles and placements, without the SXM SM counts (114 SMs, not 132)', () => {
    const pcie = migTableFor('h100-pcie-80gb')!;
    const sxm = migTableFor('h100-sxm-80gb')!;
    expect(pcie.key).toBe('H100-PCIe-80GB');
    expect(pcie.profiles.map((p) => [p.name, p.placementStarts, p.memoryMiB])).toEqual(sxm.profiles.map((p) => [p.name, p.placementStarts, p.memoryMiB]));
    expect(pcie.profiles.map((p) => p.smCount)).toEqual(sxm.profiles.map(() => null));
    expect(sxm.profiles.find((p) => p.name === '7g.80gb')!.smCount).toBe(132);
    expect(pcie.productNames).toEqual(['NVIDIA H100 PCIe']);
    expect(sxm.productNames).not.toContain('NVIDIA H100 PCIe');
    expect(migTableFor('l4')).toBeUndefined();
  });

  it('infer an H100 PCIe instance profile from its memory alone: a 1g.10gb shows 14 SMs there, not the SXM 16', () => {
    expect(inferMigProfile('h100-pcie-80gb', { memoryTotalMiB: 9984, multiprocessorCount: 14 })).toBe('1g.10gb');
    expect(inferMigProfile('h100-sxm-80gb', { memoryTotalMiB: 9984, multiprocessorCount: 14 })).toBeUndefined();
  });
});

describe('validateMigLayout: one invalid layout per MIG table, with its reason', () => {
  const cases: [table: string, layout: Record<string, number>, reason: string][] = [
    ['A30-24GB', { '1g.6gb+me': 1, '2g.12gb+me': 1 }, '2 media-extension (+me) instances; at most one per GPU'],
    // 4 x 1g.10gb take 2 memory slots each (8) + 1g.5gb 1 slot = 9 > 8; compute 4 + 1 = 5 <= 7.
    ['A100-40GB', { '1g.10gb': 4, '1g.5gb': 1 }, 'no placement fits: they need 9 memory slots of 8'],
    // 4 + 3 + 1 = 8 compute slices > 7.
    ['A100-80GB', { '4g.40gb': 1, '3g.40gb': 1, '1g.10gb': 1 }, '8 compute slices exceed the 7 available'],
    ['H100-80GB', { '2g.20gb': 4 }, '4 x 2g.20gb exceeds its maximum of 3 per GPU'],
    ['H100-PCIe-80GB', { '3g.40gb': 3 }, '3 x 3g.40gb exceeds its maximum of 2 per GPU'],
    ['H100-NVL-94GB', { '1g.10gb': 1 }, 'unknown MIG profile 1g.10gb for h100-nvl-94gb; valid: 1g.12gb, 1g.12gb+me, 1g.24gb, 2g.24gb, 3g.47gb, 4g.47gb, 7g.94gb'],
    ['H200-141GB', { '1g.18gb': 7, '1g.35gb': 1 }, '8 GPU instances exceed the maximum of 7'],
    [
      'GH200-96GB',
      { '1c.3g.48gb': 1 },
      'unknown MIG profile 1c.3g.48gb for gh200-96gb (that is a compute-instance profile; list GPU-instance profiles); valid: 1g.12gb, 1g.12gb+me, 1g.24gb, 2g.24gb, 3g.48gb, 4g.48gb, 7g.96gb',
    ],
    // 2 x 4 slots + 1 = 9 > 8; compute 3 + 3 + 1 = 7.
    ['GH200-144GB-HBM3e', { '3g.72gb': 2, '1g.18gb': 1 }, 'no placement fits: they need 9 memory slots of 8'],
    ['B200-180GB', { '7g.180gb': 1, '1g.23gb': 1 }, '8 compute slices exceed the 7 available'],
    ['GB200-186GB', { '4g.93gb': 2 }, '2 x 4g.93gb exceeds its maximum of 1 per GPU'],
    // 1g.67gb takes 2 memory slots at 0, 2, 4 or 6: four of them fill all 8, a 1g.34gb has none left.
    ['B300-288GB', { '1g.67gb': 4, '1g.34gb': 1 }, 'no placement fits: they need 9 memory slots of 8'],
    ['H20-96GB', { '7g.96gb': 1, '1g.12gb': 1 }, '8 compute slices exceed the 7 available'],
    // 4 compute slices on RTX PRO 6000: 2 + 2 + 1 = 5.
    ['RTX-PRO-6000-96GB', { '2g.48gb': 2, '1g.24gb': 1 }, '5 compute slices exceed the 4 available'],
  ];

  it('covers every table', () => {
    expect(cases.map(([table]) => table).sort()).toEqual(migTables().map((t) => t.key).sort());
  });

  it.each(cases)('%s: %o -> %s', (table, layout, reason) => {
    expect(validateMigLayout(GPU_FOR_TABLE.get(table)!, layout)).toEqual({ ok: false, reason });
  });

  it('refuses a GPU without MIG, an empty layout, and a count that is not a whole number', () => {
    expect(validateMigLayout('l40s', ['1g.10gb'])).toMatchObject({ ok: false, reason: expect.stringContaining('has no MIG profile table') });
    expect(validateMigLayout('a100-sxm4-80gb', {})).toEqual({ ok: false, reason: 'the layout has no GPU instances' });
    expect(validateMigLayout('a100-sxm4-80gb', { '1g.10gb': 1.5 })).toMatchObject({ ok: false });
  });
});

describe('validateMigLayout: valid layouts and their placement', () => {
  it('accepts a list of names and returns one placement that works', () => {
    // 3g.40gb at slot 4 (4 slots), 2g.20gb at 0 (2), 1g.10gb at 2 and 3: DCGM issue #138's layout on an A100 80GB.
    expect(validateMigLayout('a100-sxm4-80gb', ['3g.40gb', '2g.20gb', '1g.10gb', '1g.10gb'])).toEqual({
      ok: true,
      placement: [
        { profile: '2g.20gb', start: 0, size: 2 },
        { profile: '1g.10gb', start: 2, size: 1 },
        { profile: '1g.10gb', start: 3, size: 1 },
        { profile: '3g.40gb', start: 4, size: 4 },
      ],
    });
  });

  it('fills all seven 1g slots and leaves memory slot 7 unused (1g starts only at 0-6)', () => {
    const verdict = validateMigLayout('h100-sxm-80gb', { '1g.10gb': 7 });
    expect(verdict.ok && verdict.placement.map((p) => p.start)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(validateMigLayout('h100-sxm-80gb', { '1g.10gb': 7, '1g.10gb+me': 1 })).toMatchObject({ ok: false });
  });

  it('accepts 4g + 3g, allowed since R510', () => {
    expect(validateMigLayout('a100-sxm4-40gb', { '4g.20gb': 1, '3g.20gb': 1 })).toMatchObject({ ok: true });
  });

  it('accepts MIG prefixes on names as nvidia-smi -L prints them', () => {
    expect(validateMigLayout('a30', ['MIG 2g.12gb', 'MIG 2g.12gb'])).toMatchObject({ ok: true });
  });

  const reference = JSON.parse(readFileSync(path.resolve(repoRoot, '../shared/reference/mig-profiles.json'), 'utf8')) as {
    gpus: Record<string, { derived_valid_layouts: { instances: Record<string, number>; example_placement: { profile: string; start: number }[] }[]; mig_parted_named_configs: Record<string, Record<string, number>> }>;
  };

  it.each(Object.keys(reference.gpus))("%s: every layout the reference derived is valid, and its example placement obeys the table's rules", (tableKey) => {
    const table = migTables().find((t) => t.key === tableKey)!;
    const gpu = GPU_FOR_TABLE.get(tableKey)!;
    for (const layout of reference.gpus[tableKey]!.derived_valid_layouts) {
      expect(validateMigLayout(gpu, layout.instances)).toMatchObject({ ok: true });
      expect(placementIsLegal(table, layout.example_placement)).toBe(true);
    }
  });

  it.each(Object.keys(reference.gpus))('%s: every mig-parted named config is valid', (tableKey) => {
    for (const [name, layout] of Object.entries(reference.gpus[tableKey]!.mig_parted_named_configs)) {
      expect([name, validateMigLayout(GPU_FOR_TABLE.get(tableKey)!, layout).ok]).toEqual([name, true]);
    }
  });

  it('every device-filtered mig-parted config in the corpus is valid on each table GPU its filter names', () => {
    let checked = 0;
    for (const file of corpusFiles('mig-parted', (n) => n.endsWith('.yaml'))) {
      // Manifests hold several documents; the GPU Operator's ConfigMap embeds mig-parted YAML as a string.
      const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as { data?: { 'config.yaml'?: string }; 'mig-configs'?: unknown } | null);
      const migDocs = docs.map((doc) => (typeof doc?.data?.['config.yaml'] === 'string' ? (parseYaml(doc.data['config.yaml']) as typeof doc) : doc));
      const configs = Object.assign({}, ...migDocs.map((doc) => doc?.['mig-configs'] ?? {})) as Record<string, { 'device-filter'?: string | string[]; 'mig-enabled': boolean; 'mig-devices'?: Record<string, number> }[]>;
      for (const [name, entries] of Object.entries(configs)) {
        for (const entry of entries) {
          const filter = entry['device-filter'];
          if (filter === undefined || !entry['mig-enabled'] || Object.keys(entry['mig-devices'] ?? {}).length === 0) continue;
          for (const id of Array.isArray(filter) ? filter : [filter]) {
            const gpu = resolveGpuModel(null, id);
            if (gpu === undefined) continue; // H800, A800, RTX PRO 6000: not in the GPU table
            checked += 1;
            expect([path.basename(file), name, id, validateMigLayout(gpu.key, entry['mig-devices']!)]).toEqual([path.basename(file), name, id, expect.objectContaining({ ok: true })]);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

/** Starts allowed for the profile, inside the GPU, no slot shared. */
function placementIsLegal(table: MigGpuTable, placement: { profile: string; start: number }[]): boolean {
  const used = new Set<number>();
  for (const { profile, start } of placement) {
    const p = table.profiles.find((candidate) => candidate.name === profile);
    if (p === undefined || !p.placementStarts.includes(start)) return false;
    for (let slot = start; slot < start + p.placementSizeSlots; slot += 1) {
      if (slot >= table.memorySlicesTotal || used.has(slot)) return false;
      used.add(slot);
    }
  }
  return true;
}

describe('validateMigLayout against brute force', () => {
  /** Every combination of starts, independently of the validator's search; small layouts only. */
  function bruteForce(table: MigGpuTable, names: string[]): boolean {
    const profiles = names.map((n) => table.profiles.find((p) => p.name === n)!);
    if (profiles.reduce((sum, p) => sum + p.computeSlices, 0) > table.computeSlicesTotal) return false;
    if (profiles.filter((p) => p.mediaExtensions).length > 1) return false;
    const counts = new Map<string, number>();
    for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
    for (const [n, c] of counts) if (c > table.profiles.find((p) => p.name === n)!.maxInstances) return false;
    const tryFrom = (i: number, chosen: { profile: string; start: number }[]): boolean =>
      i === profiles.length ? placementIsLegal(table, chosen) : profiles[i]!.placementStarts.some((start) => tryFrom(i + 1, [...chosen, { profile: profiles[i]!.name, start }]));
    return tryFrom(0, []);
  }

  it.each(migTables().map((t) => [t.key, t] as const))('%s: the verdict matches trying every placement, and the placement returned is legal', (_key, table) => {
    const gpu = GPU_FOR_TABLE.get(table.key)!;
    const names = table.profiles.map((p) => p.name);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 4 }), (layout) => {
        const verdict = validateMigLayout(gpu, layout);
        expect(verdict.ok).toBe(bruteForce(table, layout));
        if (verdict.ok) {
          expect(placementIsLegal(table, verdict.placement)).toBe(true);
          expect(verdict.placement.map((p) => p.profile).sort()).toEqual([...layout].sort());
        }
      }),
      { numRuns: 300 },
    );
  });
});

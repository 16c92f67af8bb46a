import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MODEL_KEY_TO_MIG_TABLE, migTableFor, validateMigLayout } from '../../src/catalog/index.js';
import { mig, migPartedConfig, packProfiles, profileMemoryMiB, smallestProfile, validateMigPartedConfig } from '../../src/recommend/sharing/mig.js';
import { GIB, options, unit } from './helpers.js';

/** One GPU model key per MIG table of the reference (A30, A100 40/80, H100, H100 NVL, H200, GH200, B200, GB200). */
const modelPerTable = new Map<string, string>();
for (const [modelKey, tableKey] of Object.entries(MODEL_KEY_TO_MIG_TABLE)) if (!modelPerTable.has(tableKey)) modelPerTable.set(tableKey, modelKey);
const MIG_MODELS = [...modelPerTable.values()];

function plainProfiles(modelKey: string) {
  return migTableFor(modelKey)!.profiles.filter((profile) => !profile.mediaExtensions);
}

describe('MIG packing', () => {
  it('covers every MIG table of the reference', () => {
    expect(MIG_MODELS.length).toBe(new Set(Object.values(MODEL_KEY_TO_MIG_TABLE)).size);
    expect(MIG_MODELS.length).toBeGreaterThanOrEqual(9);
  });

  for (const modelKey of MIG_MODELS) {
    it(`emits only layouts valid under the placement rules of ${MODEL_KEY_TO_MIG_TABLE[modelKey]}`, () => {
      const profiles = plainProfiles(modelKey);
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...profiles), { minLength: 1, maxLength: 12 }), (chosen) => {
          const packed = packProfiles(modelKey, chosen.map((profile, index) => ({ unit: `w${index}`, profile })));
          // Every instance placed exactly once, every GPU's layout valid.
          expect(packed.flatMap((gpu) => gpu.units).sort()).toEqual(chosen.map((_, index) => `w${index}`).sort());
          for (const gpu of packed) expect(validateMigLayout(modelKey, gpu.profiles)).toMatchObject({ ok: true });
          // And the YAML says the same, parsed back.
          const verdict = validateMigPartedConfig(modelKey, migPartedConfig('test', packed));
          expect(verdict.ok).toBe(true);
        }),
        { numRuns: 60, seed: 7 },
      );
    });

    it(`rejects an invalid hand-written ${MODEL_KEY_TO_MIG_TABLE[modelKey]} layout with the reason`, () => {
      const table = migTableFor(modelKey)!;
      const full = plainProfiles(modelKey).find((profile) => profile.computeSlices === table.computeSlicesTotal)!;
      const smallest = plainProfiles(modelKey).find((profile) => profile.computeSlices === 1) ?? plainProfiles(modelKey)[0]!;
      const text = `version: v1\nmig-configs:\n  bad:\n    - devices: [0]\n      mig-enabled: true\n      mig-devices:\n        "${full.name}": 1\n        "${smallest.name}": 1\n`;
      const verdict = validateMigPartedConfig(modelKey, text);
      expect(verdict.ok).toBe(false);
      // The whole GPU's slices are taken by the full profile: one more instance exceeds a limit.
      expect(verdict.ok ? '' : verdict.reason).toMatch(/^bad\[0\]: .*(exceed|no placement)/);
    });
  }

  it('rejects an unknown profile and a wrong version', () => {
    expect(validateMigPartedConfig('a100-sxm4-80gb', 'version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {"3g.45gb": 1}\n')).toMatchObject({ ok: false, reason: expect.stringMatching(/unknown MIG profile 3g.45gb/) });
    expect(validateMigPartedConfig('a100-sxm4-80gb', 'version: v2\n')).toEqual({ ok: false, reason: 'version must be v1' });
  });

  it('gives each workload the smallest profile covering its VRAM and compute slices', () => {
    // A100 80GB: 14,500 MiB in 1 slice -> 1g.20gb (19,968 MiB), not 1g.10gb (9,728) nor 2g.20gb (2 slices).
    expect(smallestProfile('a100-sxm4-80gb', 14500, 1)?.name).toBe('1g.20gb');
    expect(smallestProfile('a100-sxm4-80gb', 14500, 2)?.name).toBe('2g.20gb');
    // 30,000 MiB in 3 slices -> 3g.40gb (40,192 MiB).
    expect(smallestProfile('a100-sxm4-80gb', 30000, 3)?.name).toBe('3g.40gb');
    // More than the whole GPU: none.
    expect(smallestProfile('a100-sxm4-80gb', 90000, 1)).toBeUndefined();
  });

  it('reads a profile whose memory was never captured as its decimal GB, a lower bound', () => {
    const profile = migTableFor('h100-sxm-80gb')!.profiles.find((candidate) => candidate.name === '3g.40gb')!;
    expect(profile.memoryMiB).toBeNull();
    // 40 GB = 40e9 bytes / 2^20 = 38,146.97 -> 38,146 MiB.
    expect(profileMemoryMiB(profile)).toBe(38146);
  });

  it('packs two ~61 GiB H200 services into 3g.71gb instances of one H200 and emits the mig-parted config', () => {
    // Each: 62,418 MiB upper bound (preallocating) <= 3g.71gb's 71,168 MiB; p95 40% of 7 slices = 2.8 -> 3 slices.
    // Two 3g.71gb use 6 of 7 slices, memory slots 0-3 and 4-7: one GPU, one freed: $10 x 730 = $7,300.
    const a = unit({ id: 'vllm-a', vram: { peakMiB: 62418, p95MiB: 62418, requiredMiB: 62418, basis: 'upper-bound' }, compute: { basis: 'utilization', meanPct: 4, p95Pct: 40, busyFraction: 0.15, bound: 'unknown' }, tenant: 'search' });
    const b = unit({ id: 'vllm-b', vram: { peakMiB: 62412, p95MiB: 62412, requiredMiB: 62412, basis: 'upper-bound' }, compute: { basis: 'utilization', meanPct: 4, p95Pct: 40, busyFraction: 0.15, bound: 'unknown' }, tenant: 'ads' });
    const { recommendations } = mig([a, b], options());
    expect(recommendations).toHaveLength(1);
    const [advice] = recommendations;
    expect(advice!.monthlySavingsUsd).toBe(7300);
    expect(advice!.evidence.layout).toBe('2 x 3g.71gb');
    // Different tenants may share through MIG: memory and faults are isolated, and the rationale says so.
    expect(advice!.rationale).toMatch(/tenants search, ads stay isolated/);
    const config = parse(advice!.config!.text) as { version: string; 'mig-configs': Record<string, { devices: number[]; 'mig-enabled': boolean; 'mig-devices': Record<string, number> }[]> };
    expect(config.version).toBe('v1');
    expect(config['mig-configs']['gpu-audit-h200-sxm-141gb']).toEqual([{ devices: [0], 'mig-enabled': true, 'mig-devices': { '3g.71gb': 2 } }]);
  });

  it('keeps the compute of a MIG instance without a compute signal, and frees nothing when nothing fits tighter', () => {
    // The demo's A100s: 3g + 2g + 1g on one GPU, 3g on the other: 9 slices need two GPUs either way.
    const parent = (gpu: string) => ({ modelKey: 'a100-sxm4-80gb', memoryTotalMiB: 40192, gpuIds: [gpu], hourlyUsdPerGpu: 3.43 });
    const processes = { basis: 'processes' as const, meanPct: null, p95Pct: null, busyFraction: 0.5, bound: 'unknown' as const };
    const units = [
      unit({ id: 'triton', migProfile: '3g.40gb', ...parent('g0'), vram: { peakMiB: 26112, p95MiB: 26112, requiredMiB: 30029, basis: 'measured' }, compute: processes }),
      unit({ id: 'embed', migProfile: '2g.20gb', ...parent('g0'), vram: { peakMiB: 14336, p95MiB: 14336, requiredMiB: 16487, basis: 'measured' }, compute: processes }),
      unit({ id: 'pytest', migProfile: '1g.10gb', ...parent('g0'), vram: { peakMiB: 6100, p95MiB: 6100, requiredMiB: 7015, basis: 'measured' }, compute: processes }),
      unit({ id: 'eval', migProfile: '3g.40gb', ...parent('g1'), vram: { peakMiB: 31744, p95MiB: 31744, requiredMiB: 36506, basis: 'measured' }, compute: processes }),
    ];
    expect(mig(units, options()).recommendations).toEqual([]);
  });

  it('says "not enough data" for a whole GPU without a compute signal', () => {
    const result = mig([unit({ id: 'blind', compute: { basis: 'processes', meanPct: null, p95Pct: null, busyFraction: 0.3, bound: 'unknown' } })], options());
    expect(result.notEnoughData).toEqual([{ strategy: 'mig', targets: ['blind'], reason: 'no compute figure to size a MIG instance (basis processes)' }]);
  });
});

describe('packing stays within GiB-level needs', () => {
  it('fits seven 1g workloads of 9 GiB onto one A100 80GB', () => {
    const units = Array.from({ length: 7 }, (_, index) =>
      unit({ id: `w${index}`, gpuIds: [`g${index}`], modelKey: 'a100-sxm4-80gb', memoryTotalMiB: 81920, vram: { peakMiB: 8 * GIB, p95MiB: 8 * GIB, requiredMiB: 9 * GIB, basis: 'measured' }, compute: { basis: 'sm-active', meanPct: 2, p95Pct: 10, busyFraction: 0.5, bound: 'unknown' } }),
    );
    // 9,216 MiB <= 1g.10gb's 9,728; 10% of 7 slices -> 1 slice. 7 x 1g.10gb = the whole GPU: 6 of 7 GPUs freed ($10 x 6 x 730 = $43,800).
    const [advice] = mig(units, options()).recommendations;
    expect(advice!.evidence.layout).toBe('7 x 1g.10gb');
    expect(advice!.monthlySavingsUsd).toBe(43800);
  });
});

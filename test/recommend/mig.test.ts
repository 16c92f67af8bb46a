import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MODEL_KEY_TO_MIG_TABLE, migTableFor, validateMigLayout } from '../../src/catalog/index.js';
import { migPartedConfig, packProfiles, profileMemoryMiB, smallestProfile, validateMigPartedConfig } from '../../src/recommend/sharing/mig.js';
const GIB = 1024;

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
    const profile = migTableFor('gb200')!.profiles.find((candidate) => candidate.memoryMiB === null)!;
    // N GB = N x 10^9 bytes / 2^20, rounded down.
    expect(profileMemoryMiB(profile)).toBe(Math.floor((profile.nominalMemoryGB * 1e9) / 2 ** 20));
  });

  it('takes the H100 80GB instance memory nvidia-smi printed: a 38 GiB need fits 3g.40gb, not 7g', () => {
    // 3g.40gb: 40,448 MiB in the capture; the decimal fallback (38,146 MiB) left 38 GiB (38,912 MiB) to 7g.80gb.
    expect(profileMemoryMiB(migTableFor('h100-sxm-80gb')!.profiles.find((candidate) => candidate.name === '3g.40gb')!)).toBe(40448);
    expect(smallestProfile('h100-sxm-80gb', 38 * 1024, 3)?.name).toBe('3g.40gb');
  });

  it('packs two ~61 GiB H200 replicas into 3g.71gb instances of one H200 and writes the mig-parted config', () => {
    // 62,418 MiB <= 3g.71gb's 71,168 MiB; p95 40% of 7 slices = 2.8 -> 3 slices. Two 3g.71gb use 6 of 7
    // slices, memory slots 0-3 and 4-7: one GPU.
    const profile = smallestProfile('h200-sxm-141gb', 62418, 3)!;
    expect(profile.name).toBe('3g.71gb');
    const packed = packProfiles('h200-sxm-141gb', [{ unit: 'vllm-a', profile }, { unit: 'vllm-b', profile }]);
    expect(packed).toEqual([{ profiles: ['3g.71gb', '3g.71gb'], units: ['vllm-a', 'vllm-b'] }]);
    const config = parse(migPartedConfig('gpu-audit-h200-sxm-141gb', packed)) as { version: string; 'mig-configs': Record<string, unknown> };
    expect(config.version).toBe('v1');
    expect(config['mig-configs']['gpu-audit-h200-sxm-141gb']).toEqual([{ devices: [0], 'mig-enabled': true, 'mig-devices': { '3g.71gb': 2 } }]);
  });

  it('needs two A100s for 3g + 2g + 1g + 3g: nine compute slices of seven', () => {
    const table = migTableFor('a100-sxm4-80gb')!;
    const byName = (name: string) => table.profiles.find((profile) => profile.name === name)!;
    const packed = packProfiles('a100-sxm4-80gb', ['3g.40gb', '2g.20gb', '1g.10gb', '3g.40gb'].map((name, index) => ({ unit: `w${index}`, profile: byName(name) })));
    expect(packed).toHaveLength(2);
  });
});

describe('packing stays within GiB-level needs', () => {
  it('fits seven 1g workloads of 9 GiB onto one A100 80GB', () => {
    // 9,216 MiB <= 1g.10gb's 9,728; 10% of 7 slices -> 1 slice. 7 x 1g.10gb = the whole GPU.
    const profile = smallestProfile('a100-sxm4-80gb', 9 * GIB, 1)!;
    expect(profile.name).toBe('1g.10gb');
    const packed = packProfiles('a100-sxm4-80gb', Array.from({ length: 7 }, (_, index) => ({ unit: `w${index}`, profile })));
    expect(packed).toHaveLength(1);
    expect(packed[0]!.profiles).toHaveLength(7);
  });
});

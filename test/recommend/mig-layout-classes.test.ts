/**
 * MIG packing looks GPUs up by layout class so that a 10,000-GPU fleet packs in near-linear
 * time. The answers must be the ones the plain definition gives, which is written out below as a
 * reference scan (first fit over every GPU) and compared on random inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODEL_KEY_TO_MIG_TABLE, migTableFor, validateMigLayout } from '../../src/catalog/index.js';
import type { MigProfile } from '../../src/catalog/index.js';
import { packProfiles, type PackedGpu } from '../../src/recommend/sharing/mig.js';

/** First-fit decreasing by definition: every item tries every GPU in order. */
function packByScan(modelKey: string, items: readonly { unit: string; profile: MigProfile }[]): PackedGpu[] {
  const ordered = [...items].sort((a, b) => b.profile.computeSlices - a.profile.computeSlices || b.profile.memorySlices - a.profile.memorySlices || a.unit.localeCompare(b.unit));
  const gpus: PackedGpu[] = [];
  for (const item of ordered) {
    const target = gpus.find((gpu) => validateMigLayout(modelKey, [...gpu.profiles, item.profile.name]).ok);
    if (target === undefined) gpus.push({ profiles: [item.profile.name], units: [item.unit] });
    else {
      target.profiles.push(item.profile.name);
      target.units.push(item.unit);
    }
  }
  return gpus;
}

describe('MIG packing by layout classes', () => {
  const modelKeys = Object.keys(MODEL_KEY_TO_MIG_TABLE).filter((key) => migTableFor(key) !== undefined);

  it('packs exactly as first fit over every GPU does', () => {
    fc.assert(fc.property(
      fc.constantFrom(...modelKeys),
      fc.array(fc.nat(), { maxLength: 80 }),
      (modelKey, draws) => {
        const profiles = migTableFor(modelKey)!.profiles.filter((profile) => !profile.mediaExtensions);
        const items = draws.map((draw, index) => ({ unit: `w${String(index).padStart(3, '0')}`, profile: profiles[draw % profiles.length]! }));
        expect(packProfiles(modelKey, items)).toEqual(packByScan(modelKey, items));
      },
    ), { numRuns: 150 });
  });

  it('packs 7,000 single-slice instances onto 1,000 GPUs without testing each GPU for each instance', () => {
    const modelKey = 'a100-sxm4-80gb';
    const smallest = migTableFor(modelKey)!.profiles.find((profile) => profile.name === '1g.10gb')!;
    const items = Array.from({ length: 7000 }, (_, index) => ({ unit: `w${String(index).padStart(4, '0')}`, profile: smallest }));
    const packed = packProfiles(modelKey, items);
    // A100-80GB: 1g.10gb may be placed 7 times per GPU (starts 0-6): 7000 / 7 = 1000 GPUs.
    expect(packed).toHaveLength(1000);
    expect(packed.every((gpu) => gpu.profiles.length === 7)).toBe(true);
  });
});

/**
 * The sharing strategies look candidates up in indexes (GPUs by layout, groups and units by GPU
 * model) so that a 10,000-GPU fleet packs in near-linear time. The answers must be the ones the
 * plain definitions give, which are written out below as reference scans (first fit over every
 * GPU or group, every pair of units) and compared on random fleets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODEL_KEY_TO_MIG_TABLE, migTableFor, validateMigLayout } from '../../src/catalog/index.js';
import type { MigProfile } from '../../src/catalog/index.js';
import type { DemandUnit } from '../../src/recommend/index.js';
import { groupUnits, tenantBlockedPairs, tenantsConflict, type Admission } from '../../src/recommend/sharing/grouping.js';
import { packProfiles, type PackedGpu } from '../../src/recommend/sharing/mig.js';
import { GIB, unit } from './helpers.js';

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

/** First fit over every group of every model. */
function groupByScan(units: readonly DemandUnit[], admit: Admission, allowCrossTenant: boolean): DemandUnit[][] {
  const ordered = [...units].sort((a, b) => (b.vram.requiredMiB ?? 0) - (a.vram.requiredMiB ?? 0) || a.id.localeCompare(b.id));
  const groups: { modelKey: string; members: DemandUnit[] }[] = [];
  for (const candidate of ordered) {
    const group = groups.find((g) => g.modelKey === candidate.modelKey && (allowCrossTenant || !tenantsConflict(g.members, candidate)) && admit(g.members, candidate));
    if (group === undefined) groups.push({ modelKey: candidate.modelKey, members: [candidate] });
    else group.members.push(candidate);
  }
  return groups.filter((g) => g.members.length > 1).map((g) => g.members);
}

/** Every pair (i < j) of units. */
function blockedPairsByScan(units: readonly DemandUnit[], admit: Admission): [string, string][] {
  const pairs: [string, string][] = [];
  units.forEach((left, i) => {
    for (const right of units.slice(i + 1)) {
      if (left.modelKey === right.modelKey && tenantsConflict([left], right) && admit([left], right)) pairs.push([left.id, right.id]);
    }
  });
  return pairs;
}

/** Summed VRAM fits the GPU: the shape of the time-slicing and MPS rules. */
const fitsMemory: Admission = (members, candidate) =>
  [...members, candidate].reduce((sum, member) => sum + (member.vram.requiredMiB ?? Infinity), 0) <= (candidate.memoryTotalMiB ?? 0);

const MODELS = [
  { modelKey: 'h100-sxm-80gb', memoryTotalMiB: 81559 },
  { modelKey: 'a100-sxm4-80gb', memoryTotalMiB: 81920 },
  { modelKey: 'l40s-48gb', memoryTotalMiB: 46068 },
] as const;

const unitsArbitrary = fc.array(
  fc.record({
    model: fc.constantFrom(...MODELS),
    requiredGiB: fc.integer({ min: 1, max: 60 }),
    tenant: fc.constantFrom(null, 'team-a', 'team-b', 'team-c'),
  }),
  { maxLength: 60 },
).map((drawn) => drawn.map((draw, index) => unit({
  id: `u${String(index).padStart(3, '0')}`,
  modelKey: draw.model.modelKey,
  memoryTotalMiB: draw.model.memoryTotalMiB,
  tenant: draw.tenant,
  vram: { peakMiB: null, p95MiB: null, requiredMiB: draw.requiredGiB * GIB, basis: 'measured' },
})));

const ids = (members: readonly DemandUnit[]): string[] => members.map((member) => member.id);

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
    const started = performance.now();
    const packed = packProfiles(modelKey, items);
    // A100-80GB: 1g.10gb may be placed 7 times per GPU (starts 0-6): 7000 / 7 = 1000 GPUs.
    expect(packed).toHaveLength(1000);
    expect(packed.every((gpu) => gpu.profiles.length === 7)).toBe(true);
    // The scan made 7000 x 1000 / 2 validations (tens of seconds); the classes make a few.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('grouping by GPU model', () => {
  it('groups exactly as first fit over every group does, with and without the tenant rule', () => {
    fc.assert(fc.property(unitsArbitrary, fc.boolean(), (units, allowCrossTenant) => {
      expect(groupUnits(units, fitsMemory, allowCrossTenant).map((group) => ids(group.members)))
        .toEqual(groupByScan(units, fitsMemory, allowCrossTenant).map(ids));
    }), { numRuns: 200 });
  });

  it('sets closed groups aside without changing any group (MPS- and time-slicing-shaped rules)', () => {
    // MPS shape: summed p95 compute <= 80 %; a group already over 80 % takes nobody (p95 >= 0).
    const computeAdmit: Admission = (members, candidate) => [...members, candidate].reduce((sum, member) => sum + member.compute.p95Pct!, 0) <= 80;
    const computeClosed = (members: readonly DemandUnit[]): boolean => members.reduce((sum, member) => sum + member.compute.p95Pct!, 0) > 80;
    // Time-slicing shape: summed VRAM within the GPU; over the largest GPU of the pool takes nobody.
    const memoryClosed = (members: readonly DemandUnit[]): boolean => members.reduce((sum, member) => sum + member.vram.requiredMiB!, 0) > 81920;
    const withCompute = fc.tuple(unitsArbitrary, fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 60, maxLength: 60 }))
      .map(([units, p95s]) => units.map((member, index) => ({ ...member, compute: { ...member.compute, p95Pct: p95s[index]! } })));
    fc.assert(fc.property(withCompute, fc.boolean(), (units, allowCrossTenant) => {
      expect(groupUnits(units, computeAdmit, allowCrossTenant, computeClosed).map((group) => ids(group.members)))
        .toEqual(groupByScan(units, computeAdmit, allowCrossTenant).map(ids));
      expect(groupUnits(units, fitsMemory, allowCrossTenant, memoryClosed).map((group) => ids(group.members)))
        .toEqual(groupByScan(units, fitsMemory, allowCrossTenant).map(ids));
    }), { numRuns: 200 });
  });

  it('finds the tenant-blocked pairs every pair scan finds, in the same order', () => {
    fc.assert(fc.property(unitsArbitrary, (units) => {
      expect(tenantBlockedPairs(units, fitsMemory).map(([left, right]) => [left.id, right.id]))
        .toEqual(blockedPairsByScan(units, fitsMemory));
    }), { numRuns: 200 });
  });
});

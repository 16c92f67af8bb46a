/**
 * MIG profiles per GPU model and the rules a layout of GPU instances must satisfy, as
 * reference/mig-profiles.json states them:
 *  - each profile is known for that GPU and used at most `maxInstances` times;
 *  - at most one media-extension (`+me`) instance per GPU;
 *  - at most `maxGpuInstances` instances, and compute slices summing to at most `computeSlicesTotal`;
 *  - every instance sits on `placementSizeSlots` contiguous memory slots starting at one of its
 *    `placementStarts`, and no two instances share a slot.
 * A 4g plus a 3g on the same GPU is accepted: the reference notes drivers before R510 refused it.
 */
import { MIG_TABLES } from './data/mig-profiles.js';
import { MODEL_KEY_TO_MIG_TABLE } from './gpu-keys.js';
import type { MigGpuTable, MigProfile } from './types.js';

export { MIG_TABLES_COLLECTED } from './data/mig-profiles.js';

export interface MigPlacement {
  profile: string;
  /** First memory slot. */
  start: number;
  /** Memory slots occupied. */
  size: number;
}

export type MigLayoutVerdict = { ok: true; placement: MigPlacement[] } | { ok: false; reason: string };

const tablesByKey = new Map(MIG_TABLES.map((t) => [t.key, t]));

/** The MIG profile table for a GPU model key; undefined where the GPU does not support MIG. */
export function migTableFor(gpuKey: string): MigGpuTable | undefined {
  const tableKey = MODEL_KEY_TO_MIG_TABLE[gpuKey];
  return tableKey === undefined ? undefined : tablesByKey.get(tableKey);
}

export function migTables(): readonly MigGpuTable[] {
  return MIG_TABLES;
}

export function migProfileFor(gpuKey: string, profileName: string): MigProfile | undefined {
  return migTableFor(gpuKey)?.profiles.find((p) => p.name === profileName);
}

function countProfiles(profiles: string[] | Record<string, number>): Map<string, number> | string {
  const counts = new Map<string, number>();
  const entries: [string, number][] = Array.isArray(profiles) ? profiles.map((p) => [p, 1]) : Object.entries(profiles);
  for (const [rawName, count] of entries) {
    if (!Number.isInteger(count) || count < 0) return `count for ${rawName} must be a whole number >= 0, got ${count}`;
    const name = rawName.trim().replace(/^MIG\s+/i, '');
    counts.set(name, (counts.get(name) ?? 0) + count);
  }
  for (const [name, count] of counts) if (count === 0) counts.delete(name);
  return counts;
}

/**
 * Places instances largest first, trying each allowed start in order; the first complete
 * placement is returned. At most 7 instances with at most 7 starts each, so the search is tiny.
 */
function place(instances: MigProfile[], slots: number): MigPlacement[] | undefined {
  const used: boolean[] = Array.from({ length: slots }, () => false);
  const order = [...instances].sort((a, b) => b.placementSizeSlots - a.placementSizeSlots || a.name.localeCompare(b.name));
  const chosen: MigPlacement[] = [];

  const fits = (start: number, size: number): boolean => {
    if (start + size > slots) return false;
    for (let s = start; s < start + size; s += 1) if (used[s]) return false;
    return true;
  };
  const mark = (start: number, size: number, value: boolean): void => {
    for (let s = start; s < start + size; s += 1) used[s] = value;
  };
  const search = (i: number, minStartForSame: number): boolean => {
    if (i === order.length) return true;
    const profile = order[i]!;
    for (const start of profile.placementStarts) {
      // Identical instances are interchangeable: try starts in increasing order only.
      if (start < minStartForSame || !fits(start, profile.placementSizeSlots)) continue;
      mark(start, profile.placementSizeSlots, true);
      chosen.push({ profile: profile.name, start, size: profile.placementSizeSlots });
      const next = order[i + 1];
      if (search(i + 1, next !== undefined && next.name === profile.name ? start + 1 : 0)) return true;
      chosen.pop();
      mark(start, profile.placementSizeSlots, false);
    }
    return false;
  };
  return search(0, 0) ? [...chosen].sort((a, b) => a.start - b.start) : undefined;
}

/** Whether a set of GPU-instance profiles fits on one GPU; where it does, one placement that works. */
export function validateMigLayout(gpuKey: string, profiles: string[] | Record<string, number>): MigLayoutVerdict {
  const table = migTableFor(gpuKey);
  if (table === undefined) return { ok: false, reason: `${gpuKey} has no MIG profile table: the GPU does not support MIG or is not in the GPU table` };

  const counts = countProfiles(profiles);
  if (typeof counts === 'string') return { ok: false, reason: counts };
  if (counts.size === 0) return { ok: false, reason: 'the layout has no GPU instances' };

  const known = new Map(table.profiles.map((p) => [p.name, p]));
  const instances: MigProfile[] = [];
  for (const [name, count] of counts) {
    const profile = known.get(name);
    if (profile === undefined) {
      const hint = /^\d+c\./.test(name) ? ' (that is a compute-instance profile; list GPU-instance profiles)' : '';
      return { ok: false, reason: `unknown MIG profile ${name} for ${gpuKey}${hint}; valid: ${table.profiles.map((p) => p.name).join(', ')}` };
    }
    if (count > profile.maxInstances) {
      return { ok: false, reason: `${count} x ${name} exceeds its maximum of ${profile.maxInstances} per GPU` };
    }
    for (let n = 0; n < count; n += 1) instances.push(profile);
  }

  const withMedia = instances.filter((p) => p.mediaExtensions).length;
  if (withMedia > 1) return { ok: false, reason: `${withMedia} media-extension (+me) instances; at most one per GPU` };
  if (instances.length > table.maxGpuInstances) {
    return { ok: false, reason: `${instances.length} GPU instances exceed the maximum of ${table.maxGpuInstances}` };
  }
  const computeSlices = instances.reduce((sum, p) => sum + p.computeSlices, 0);
  if (computeSlices > table.computeSlicesTotal) {
    return { ok: false, reason: `${computeSlices} compute slices exceed the ${table.computeSlicesTotal} available` };
  }
  const memorySlots = instances.reduce((sum, p) => sum + p.placementSizeSlots, 0);
  const placement = place(instances, table.memorySlicesTotal);
  if (placement === undefined) {
    const why = memorySlots > table.memorySlicesTotal ? `they need ${memorySlots} memory slots of ${table.memorySlicesTotal}` : 'their allowed start slots overlap';
    return { ok: false, reason: `no placement fits: ${why}` };
  }
  return { ok: true, placement };
}

/** MiB to the decimal GB of MIG profile names (`1g.10gb`). */
const GB_PER_MIB = 1.048576 / 1000;
/** Drivers print instance memory a few percent off the nominal name (9728 MiB for 1g.10gb). */
const NOMINAL_MEMORY_TOLERANCE = 0.1;

/**
 * The MIG profile of an instance, inferred from what nvidia-smi XML shows of it (memory and
 * SM count; the XML names no profile). Media-extension variants (`+me`) look the same, so the
 * plain profile is named. Undefined where the facts fit no profile, or fit two equally.
 */
export function inferMigProfile(
  gpuKey: string,
  facts: { memoryTotalMiB: number | null; multiprocessorCount?: number | null },
): string | undefined {
  const table = migTableFor(gpuKey);
  if (table === undefined || facts.memoryTotalMiB === null || facts.memoryTotalMiB <= 0) return undefined;
  const memoryGB = facts.memoryTotalMiB * GB_PER_MIB;
  const fits = table.profiles.filter((profile) => {
    if (profile.mediaExtensions || profile.name.includes('+')) return false;
    if (Math.abs(profile.nominalMemoryGB - memoryGB) / profile.nominalMemoryGB > NOMINAL_MEMORY_TOLERANCE) return false;
    const sms = facts.multiprocessorCount;
    return sms === undefined || sms === null || profile.smCount === null || profile.smCount === sms;
  });
  return fits.length === 1 ? fits[0]!.name : undefined;
}

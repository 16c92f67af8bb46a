/**
 * MIG packing: each unit gets the smallest GPU-instance profile of its GPU model that covers its
 * VRAM and compute need, and the instances are packed onto as few GPUs as the placement rules
 * allow (first-fit decreasing; every GPU's layout is checked with the catalog's
 * validateMigLayout). Where fewer GPUs result, the rest are freed; the layout is emitted as a
 * mig-parted config, validated again from its own text before it is printed.
 *
 * Needs: a MIG table for modelKey, vram.requiredMiB, and a compute need: p95 percent of the
 * whole GPU x its compute slices, or, for a unit already in a MIG instance without a compute
 * signal, its current profile's slices (compute is never shrunk on no evidence).
 * MIG isolates memory and faults, so units of different tenants may share a GPU this way.
 */
import { parse, stringify } from 'yaml';
import { migTableFor, validateMigLayout } from '../../catalog/index.js';
import type { MigProfile } from '../../catalog/index.js';

const BYTES_PER_GB = 1e9;
const BYTES_PER_MIB = 2 ** 20;

/** Usable memory of a profile: as `nvidia-smi mig -lgip` printed it, else the name's decimal GB (always less). */
export function profileMemoryMiB(profile: MigProfile): number {
  return profile.memoryMiB ?? Math.floor((profile.nominalMemoryGB * BYTES_PER_GB) / BYTES_PER_MIB);
}

/** The smallest plain (no media engines) profile covering memory and slices: fewest slices, then least memory. */
export function smallestProfile(modelKey: string, requiredMiB: number, slices: number): MigProfile | undefined {
  const table = migTableFor(modelKey);
  if (table === undefined) return undefined;
  return table.profiles
    .filter((profile) => !profile.mediaExtensions && profile.computeSlices >= slices && profileMemoryMiB(profile) >= requiredMiB)
    .sort((a, b) => a.computeSlices - b.computeSlices || a.memorySlices - b.memorySlices || profileMemoryMiB(a) - profileMemoryMiB(b))[0];
}

export interface PackedGpu {
  profiles: string[];
  units: string[];
}

/** GPUs holding the same multiset of profiles, by position; the first one is the lowest position. */
interface LayoutClass {
  profiles: readonly string[];
  positions: number[];
}

/** Canonical name of a multiset of profiles: whether a layout is valid depends on nothing else. */
function layoutKey(profiles: readonly string[]): string {
  return [...profiles].sort().join('\u0000');
}

/** Inserts into an ascending array, keeping it ascending. */
function insertSorted(values: number[], value: number): void {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  values.splice(low, 0, value);
}

/**
 * First-fit decreasing: largest profiles first, each onto the first GPU whose layout stays valid.
 * Whether a GPU takes a profile depends only on the multiset of profiles it already holds, so
 * GPUs are kept in classes of equal layouts and each (layout, profile) is validated once: the
 * first GPU that fits is the lowest position among the classes that take the profile. A fleet
 * of thousands of MIG candidates packs onto a few distinct layouts, which keeps this near
 * linear where testing every GPU for every item was quadratic in validations.
 */
export function packProfiles(modelKey: string, items: readonly { unit: string; profile: MigProfile }[]): PackedGpu[] {
  const ordered = [...items].sort((a, b) => b.profile.computeSlices - a.profile.computeSlices || b.profile.memorySlices - a.profile.memorySlices || a.unit.localeCompare(b.unit));
  const gpus: PackedGpu[] = [];
  const classes = new Map<string, LayoutClass>();
  const classOf: string[] = [];
  const fitsCache = new Map<string, boolean>();
  const takes = (layout: LayoutClass, key: string, profile: string): boolean => {
    const cacheKey = `${key}\u0001${profile}`;
    let ok = fitsCache.get(cacheKey);
    if (ok === undefined) {
      ok = validateMigLayout(modelKey, [...layout.profiles, profile]).ok;
      fitsCache.set(cacheKey, ok);
    }
    return ok;
  };
  const join = (key: string, profiles: readonly string[], position: number): void => {
    let layout = classes.get(key);
    if (layout === undefined) {
      layout = { profiles: [...profiles], positions: [] };
      classes.set(key, layout);
    }
    insertSorted(layout.positions, position);
    classOf[position] = key;
  };
  for (const item of ordered) {
    const name = item.profile.name;
    let target: number | undefined;
    for (const [key, layout] of classes) {
      const first = layout.positions[0];
      if (first === undefined || (target !== undefined && first > target)) continue;
      if (takes(layout, key, name)) target = first;
    }
    if (target === undefined) {
      gpus.push({ profiles: [name], units: [item.unit] });
      join(layoutKey([name]), [name], gpus.length - 1);
      continue;
    }
    const gpu = gpus[target]!;
    const from = classes.get(classOf[target]!)!;
    from.positions.shift();
    gpu.profiles.push(name);
    gpu.units.push(item.unit);
    join(layoutKey(gpu.profiles), gpu.profiles, target);
  }
  return gpus;
}

function countsOf(profiles: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of [...profiles].sort()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/** One named mig-parted config: the MIG GPUs of one node, and how many GPUs the node has in all. */
export interface MigPartedNode {
  name: string;
  gpus: readonly PackedGpu[];
  /** GPUs of the node; those after the MIG ones are listed with MIG disabled. Default: the MIG ones. */
  gpuCount?: number;
}

/**
 * A mig-parted config file (`version: v1`, `mig-configs`), one named config per node: the MIG
 * GPUs at device indices 0.., the node's other GPUs with MIG disabled, so that applying the
 * config leaves no device as it happened to be.
 */
export function migPartedConfigs(nodes: readonly MigPartedNode[]): string {
  const configs: Record<string, unknown[]> = {};
  for (const node of nodes) {
    const entries: unknown[] = node.gpus.map((gpu, index) => ({ devices: [index], 'mig-enabled': true, 'mig-devices': countsOf(gpu.profiles) }));
    const whole = Array.from({ length: Math.max(0, (node.gpuCount ?? node.gpus.length) - node.gpus.length) }, (_, index) => node.gpus.length + index);
    if (whole.length > 0) entries.push({ devices: whole, 'mig-enabled': false });
    configs[node.name] = entries;
  }
  return stringify({ version: 'v1', 'mig-configs': configs });
}

/** mig-parted config with one named config: device index = position. */
export function migPartedConfig(configName: string, gpus: readonly PackedGpu[]): string {
  return migPartedConfigs([{ name: configName, gpus }]);
}

export type MigPartedVerdict = { ok: true; gpus: Record<string, number>[] } | { ok: false; reason: string };

/** Parses a mig-parted config and checks every enabled device's layout against the placement rules. */
export function validateMigPartedConfig(modelKey: string, text: string): MigPartedVerdict {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    return { ok: false, reason: `not YAML: ${error instanceof Error ? error.message : String(error)}` };
  }
  const root = document as { version?: unknown; 'mig-configs'?: unknown } | null;
  if (root === null || typeof root !== 'object' || root.version !== 'v1') return { ok: false, reason: 'version must be v1' };
  const configs = root['mig-configs'];
  if (configs === null || typeof configs !== 'object') return { ok: false, reason: 'mig-configs missing' };
  const gpus: Record<string, number>[] = [];
  for (const [name, entries] of Object.entries(configs as Record<string, unknown>)) {
    if (!Array.isArray(entries)) return { ok: false, reason: `${name}: expected a list of device entries` };
    for (const [position, entry] of entries.entries()) {
      const record = entry as { 'mig-enabled'?: unknown; 'mig-devices'?: unknown };
      if (record['mig-enabled'] !== true) continue;
      const devices = (record['mig-devices'] ?? {}) as Record<string, number>;
      const verdict = validateMigLayout(modelKey, devices);
      if (!verdict.ok) return { ok: false, reason: `${name}[${position}]: ${verdict.reason}` };
      gpus.push(devices);
    }
  }
  return { ok: true, gpus };
}

/**
 * Builds the catalog's data tables from the shared reference material:
 *   ../shared/reference/gpus.json          -> src/catalog/data/gpus.ts
 *   ../shared/reference/mig-profiles.json  -> src/catalog/data/mig-profiles.ts
 *   ../shared/catalog/gpu-instances.json
 *   + ../shared/catalog/commitment-prices.json -> src/catalog/data/instances.ts
 *
 *   npx tsx scripts/build-catalog-data.ts          write the modules
 *   npx tsx scripts/build-catalog-data.ts --check  exit 1 if a module is out of date
 *
 * The shared folder is not shipped, so the project carries these generated modules.
 * Rules: copy numbers, never invent them; keep each value's sources and check mark;
 * where a figure is derived (a sum, a ratio) say so beside it; fail on any shape this
 * script does not understand rather than guess. test/catalog/data-build.test.ts runs the
 * builders below against the same inputs and compares with the committed modules.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Confidence, InstancePrices } from '../src/model/catalog.js';
import type { GpuSpecRecord, InstanceRecord, MigGpuTable, MigProfile, NotedValue } from '../src/catalog/types.js';
import { INSTANCE_GPU_KEY_TO_MODEL_KEY, UNKNOWN_GPU_KEY } from '../src/catalog/gpu-keys.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const sharedRoot = path.resolve(repoRoot, '../shared');

export const INPUT_FILES = {
  gpus: 'reference/gpus.json',
  migProfiles: 'reference/mig-profiles.json',
  instances: 'catalog/gpu-instances.json',
  commitments: 'catalog/commitment-prices.json',
} as const;

export const OUTPUT_FILES = {
  gpus: 'src/catalog/data/gpus.ts',
  migProfiles: 'src/catalog/data/mig-profiles.ts',
  instances: 'src/catalog/data/instances.ts',
} as const;

/**
 * gpus.json states no compile date of its own. It was compiled with the rest of the shared
 * reference set, whose catalog/SOURCES.md says "Compiled 2026-11-29"; that is the date recorded.
 */
export const GPU_REFERENCE_AS_OF = '2026-11-29';

// ---------------------------------------------------------------------------------------------
// Reading untyped JSON with errors that say where

type Json = unknown;

function fail(where: string, message: string): never {
  throw new Error(`${where}: ${message}`);
}
function record(value: Json, where: string): Record<string, Json> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'expected an object');
  return value as Record<string, Json>;
}
function list(value: Json, where: string): Json[] {
  if (!Array.isArray(value)) fail(where, 'expected an array');
  return value;
}
function text(value: Json, where: string): string {
  if (typeof value !== 'string') fail(where, 'expected a string');
  return value;
}
function num(value: Json, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(where, 'expected a number');
  return value;
}
function optionalNum(value: Json, where: string): number | null {
  return value === null || value === undefined ? null : num(value, where);
}
function optionalText(value: Json, where: string): string | null {
  return value === null || value === undefined ? null : text(value, where);
}
function texts(value: Json, where: string): string[] {
  return list(value, where).map((item, i) => text(item, `${where}[${i}]`));
}

/** Money and sums of money: six decimals, as the sources print them. */
function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

// ---------------------------------------------------------------------------------------------
// Check marks

const CONFIDENCE_FROM_LOWEST: Confidence[] = ['unverified', 'recalled', 'derived', 'seen'];

/**
 * The reference writes checks as a word, often with a qualifier: "seen (third-party 600.2)",
 * "recalled (up to 600 W configurable)", "seen (single log) / unverified officially".
 * The lowest confidence mentioned wins; the full text is kept as the note.
 */
export function parseCheck(check: string): { check: Confidence; note?: string } {
  const lower = check.toLowerCase();
  // Words inside parentheses qualify a part of the claim ("seen (... 192GB on some pages - unverified)"),
  // words outside qualify the value itself ("seen (single log) / unverified officially").
  const outside = lower.replace(/\([^)]*\)/g, ' ');
  const found =
    CONFIDENCE_FROM_LOWEST.find((level) => outside.includes(level)) ??
    CONFIDENCE_FROM_LOWEST.find((level) => lower.includes(level)) ??
    'unverified';
  return lower.trim() === found ? { check: found } : { check: found, note: check };
}

/** Splits "A100-PCIE-40GB (older drivers ... omit the NVIDIA prefix)" into the name and its note. */
function splitNote(value: string): { name: string; note: string | null } {
  const open = value.indexOf(' (');
  if (open < 0) return { name: value.trim(), note: null };
  return { name: value.slice(0, open).trim(), note: value.slice(open + 2).replace(/\)$/, '').trim() };
}

// ---------------------------------------------------------------------------------------------
// GPU table

/**
 * The reference keeps GH200 as one entry with per-variant values (dicts keyed by variant).
 * The two variants differ in memory, bandwidth, PCI id and MIG profiles, so the table splits
 * them; each row names the dict key to take for every per-variant field.
 */
const GH200_VARIANTS = [
  {
    key: 'gh200-96gb',
    productName: 'NVIDIA GH200 480GB',
    pci: 'GH200 96GB',
    vram: 'NVIDIA GH200 480GB',
    marketing: 'GH200 480GB',
    bandwidth: '96GB',
  },
  {
    key: 'gh200-144gb',
    productName: 'NVIDIA GH200 144G HBM3e',
    pci: 'GH200 144G HBM3e',
    vram: 'NVIDIA GH200 144G HBM3e',
    marketing: 'GH200 144G',
    bandwidth: '144GB',
  },
] as const;

type Variant = (typeof GH200_VARIANTS)[number];
type VariantField = 'pci' | 'vram' | 'marketing' | 'bandwidth';

interface FieldContext {
  where: string;
  variant: Variant | undefined;
  variantField: VariantField | undefined;
}

/** One `{value, src, check}` field as a NotedValue; null when absent or when the value is null. */
function sourced(field: Json, ctx: FieldContext): NotedValue | null {
  if (field === null || field === undefined) return null;
  const f = record(field, ctx.where);
  const sources = texts(f.src, `${ctx.where}.src`);
  const parsed = parseCheck(text(f.check, `${ctx.where}.check`));
  const notes = parsed.note === undefined ? [] : [parsed.note];
  let value = f.value;

  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const options = record(value, ctx.where);
    if (ctx.variant !== undefined && ctx.variantField !== undefined) {
      const key = ctx.variant[ctx.variantField];
      if (!(key in options)) fail(ctx.where, `no value for variant "${key}"`);
      value = options[key];
    } else if ('vector' in options && 'matrix' in options) {
      // MI250X FP32: vector is the figure comparable with other GPUs' FP32; matrix kept as a note.
      notes.push(`matrix FP32 ${String(options.matrix)}`);
      value = options.vector;
    } else {
      fail(ctx.where, `per-variant value without a variant rule: ${JSON.stringify(value)}`);
    }
  }
  if (Array.isArray(value)) {
    // Several values seen (V100-SXM2-32GB: 32768 and 32510 MiB): keep the smallest, since a
    // workload must fit the smallest board it may land on, and note the others.
    const values = value.map((v, i) => num(v, `${ctx.where}.value[${i}]`));
    const smallest = Math.min(...values);
    notes.push(`also seen: ${values.filter((v) => v !== smallest).join(', ')}`);
    value = smallest;
  }
  if (typeof value === 'string') {
    // Ranges and prose ("500-560", "~1200 per GPU ...") are not one number: keep as a note only.
    return null;
  }
  if (value === null || value === undefined) return null;
  const result: NotedValue = { value: num(value, `${ctx.where}.value`), sources, check: parsed.check };
  if (notes.length > 0) result.note = notes.join('; ');
  return result;
}

function pciIds(field: Json, ctx: FieldContext): { ids: string[]; note: string | null } {
  if (field === null || field === undefined) return { ids: [], note: null };
  const f = record(field, ctx.where);
  let value = f.value;
  if (typeof value === 'object' && value !== null && ctx.variant !== undefined) {
    value = record(value, ctx.where)[ctx.variant.pci];
  }
  if (value === null || value === undefined) return { ids: [], note: null };
  const raw = text(value, `${ctx.where}.value`);
  const ids = [...raw.matchAll(/0x([0-9a-f]{4})\b/gi)].map((m) => `0x${m[1]!.toUpperCase()}`);
  if (ids.length === 0) fail(ctx.where, `no PCI device id in "${raw}"`);
  const { note } = splitNote(raw);
  return { ids, note: note === null ? null : `PCI id: ${note}` };
}

function gpuSpec(entry: Record<string, Json>, where: string, variant: Variant | undefined): GpuSpecRecord {
  const ctx = (field: string, variantField?: VariantField): FieldContext => ({
    where: `${where}.${field}`,
    variant,
    variantField,
  });
  const names = record(entry.product_names, `${where}.product_names`);
  const namesCheck = parseCheck(text(names.check, `${where}.product_names.check`));
  const allNames = texts(names.value, `${where}.product_names.value`).map(splitNote);
  const chosen = variant === undefined ? allNames : allNames.filter((n) => n.name === variant.productName);
  if (variant !== undefined && chosen.length !== 1) fail(where, `variant name ${variant.productName} not found`);

  const pci = pciIds(entry.pci_device_id, ctx('pci_device_id', 'pci'));
  const mig = entry.mig === undefined ? null : record(record(entry.mig, `${where}.mig`).value, `${where}.mig.value`);
  const notes = [
    ...chosen.flatMap((n) => (n.note === null ? [] : [`name "${n.name}": ${n.note}`])),
    ...(namesCheck.note === undefined ? [] : [`product names: ${namesCheck.note}`]),
    ...(pci.note === null ? [] : [pci.note]),
    ...(typeof mig?.note === 'string' ? [mig.note] : []),
    ...(entry.notes === undefined ? [] : texts(entry.notes, `${where}.notes`)),
    ...proseValueNotes(entry, where),
  ];

  return {
    key: variant?.key ?? text(entry.key, `${where}.key`),
    vendor: text(entry.vendor, `${where}.vendor`),
    architecture: optionalText(entry.architecture, `${where}.architecture`),
    productNames: chosen.map((n) => n.name),
    productNamesCheck: namesCheck.check,
    pciDeviceIds: pci.ids,
    vramMiB: sourced(entry.vram_mib_total, ctx('vram_mib_total', 'vram')),
    vramMarketingGB: sourced(entry.vram_gb_marketing, ctx('vram_gb_marketing', 'marketing')),
    memoryBandwidthGBps: sourced(entry.mem_bandwidth_gbs, ctx('mem_bandwidth_gbs', 'bandwidth')),
    bf16DenseTflops: sourced(entry.bf16_dense_tflops, ctx('bf16_dense_tflops')),
    fp16DenseTflops: sourced(entry.fp16_dense_tensor_tflops, ctx('fp16_dense_tensor_tflops')),
    fp32Tflops: sourced(entry.fp32_tflops, ctx('fp32_tflops')),
    tdpW: sourced(entry.tdp_w, ctx('tdp_w')),
    smCount: sourced(entry.sm_count, ctx('sm_count')),
    // `supported: null` (B100: not in NVIDIA's MIG table) is not a yes.
    migSupported: mig?.supported === true,
    computeCapability: optionalText(entry.compute_capability, `${where}.compute_capability`),
    memoryType: optionalText(entry.memory_type, `${where}.memory_type`),
    asOf: GPU_REFERENCE_AS_OF,
    notes,
  };
}

/** Fields whose value is prose ("~1200 per GPU ...") become notes, so the text is not lost. */
function proseValueNotes(entry: Record<string, Json>, where: string): string[] {
  const notes: string[] = [];
  for (const field of ['tdp_w', 'mem_bandwidth_gbs', 'fp32_tflops', 'bf16_dense_tflops', 'vram_mib_total']) {
    const f = entry[field];
    if (f === null || f === undefined) continue;
    const value = record(f, `${where}.${field}`).value;
    if (typeof value === 'string') notes.push(`${field}: ${value} (not a single number; left empty)`);
  }
  return notes;
}

/**
 * MIG-capable GPUs the reference has no entry for, known here only by what NVIDIA's MIG tooling
 * and guide state: the PCI device id and the profiles of mig-parted's config-default.yaml
 * (MIGPARTED_CFG), the memory class, compute capability and instance count of the MIG User
 * Guide's Supported GPUs table (MIG_UG). Throughput, bandwidth and usable MiB are in neither, so
 * they stay empty: the planner never sizes a workload onto these GPUs (it keeps it for want of
 * data), while their MIG layouts are still checked.
 */
const MIG_ONLY_GPUS: readonly { key: string; architecture: string; productNames: readonly string[]; pci: string; marketingGB: number | null; computeCapability: string; note: string }[] = [
  { key: 'b300', architecture: 'Blackwell Ultra', productNames: [], pci: '0x3182', marketingGB: null, computeCapability: '10.3', note: 'MIG profiles only (mig-parted config-default.yaml, device 0x318210DE); no throughput, bandwidth or memory figure in the sources, and no nvidia-smi product name seen: resolved by PCI id' },
  { key: 'h20', architecture: 'Hopper (GH100 per MIG guide)', productNames: ['NVIDIA H20'], pci: '0x2329', marketingGB: 96, computeCapability: '9.0', note: 'MIG profiles only (mig-parted config-default.yaml puts 0x232910DE with H100-96GB and GH200); no throughput, bandwidth or usable memory figure in the sources' },
  { key: 'rtx-pro-6000-bse', architecture: 'Blackwell (GB202 per MIG guide)', productNames: ['NVIDIA RTX PRO 6000 Blackwell Server Edition'], pci: '0x2BB5', marketingGB: 96, computeCapability: '12.0', note: 'MIG profiles only (mig-parted config-default.yaml, device 0x2BB510DE; 4 instances per MIG guide); no throughput, bandwidth or usable memory figure in the sources' },
];

function migOnlySpec(gpu: (typeof MIG_ONLY_GPUS)[number]): GpuSpecRecord {
  return {
    key: gpu.key,
    vendor: 'NVIDIA',
    architecture: gpu.architecture,
    productNames: [...gpu.productNames],
    productNamesCheck: 'unverified',
    pciDeviceIds: [gpu.pci],
    vramMiB: null,
    vramMarketingGB: gpu.marketingGB === null ? null : { value: gpu.marketingGB, sources: ['MIG_UG'], check: 'seen' },
    memoryBandwidthGBps: null,
    bf16DenseTflops: null,
    fp16DenseTflops: null,
    fp32Tflops: null,
    tdpW: null,
    smCount: null,
    migSupported: true,
    computeCapability: gpu.computeCapability,
    memoryType: null,
    asOf: GPU_REFERENCE_AS_OF,
    notes: [gpu.note],
  };
}

export function buildGpuSpecs(reference: Json): GpuSpecRecord[] {
  const root = record(reference, 'gpus.json');
  return [
    ...list(root.gpus, 'gpus.json.gpus').flatMap((item, i) => {
      const entry = record(item, `gpus.json.gpus[${i}]`);
      const where = `gpus.json.gpus[${String(entry.key)}]`;
      if (entry.key === 'gh200') return GH200_VARIANTS.map((variant) => gpuSpec(entry, where, variant));
      return [gpuSpec(entry, where, undefined)];
    }),
    ...MIG_ONLY_GPUS.map(migOnlySpec),
  ];
}

export function buildGpuSourceTags(reference: Json): Record<string, string> {
  const sources = record(record(reference, 'gpus.json').sources, 'gpus.json.sources');
  return Object.fromEntries(Object.entries(sources).map(([tag, what]) => [tag, text(what, `sources.${tag}`)]));
}

// ---------------------------------------------------------------------------------------------
// MIG profiles

function migMemory(value: Json, where: string): { range: MigProfile['memoryGiB']; note: string | null } {
  if (value === null || value === undefined) return { range: null, note: null };
  if (typeof value === 'number') return { range: { min: value, max: value }, note: null };
  const raw = text(value, where);
  const match = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?\s*(?:\((.*)\))?$/.exec(raw.trim());
  if (match === null) fail(where, `unreadable GiB value "${raw}"`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  return { range: { min, max }, note: match[3] === undefined ? null : `lgip GiB ${match[3]}` };
}

/**
 * Instance memory the reference leaves null but a capture shows: `nvidia-smi` of an H100 80GB HBM3
 * with 3g + 2g + 1g + 1g instances (driver 590.48.01, 2026-07-14; the shared corpus,
 * nvidia-smi-csv/nvgpuexp-capture-linux-h100-mig-590.48.01.txt, "MIG devices" table) prints 40,448,
 * 20,096 and 9,984 MiB. 1g.20gb holds the 2 memory slices of 2g.20gb and 4g.40gb the 4 of 3g.40gb,
 * and take their memory. Without these the fallback (the name's decimal GB) pushed a 38-40 GB need
 * to 7g.
 */
const CAPTURED_MIG_MEMORY_MIB: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'H100-80GB': { '1g.20gb': 20096, '2g.20gb': 20096, '3g.40gb': 40448, '4g.40gb': 40448 },
};
const CAPTURED_MIG_SOURCE = 'CAPTURE_H100_590';

function migProfile(item: Json, where: string, table: string): MigProfile {
  const p = record(item, where);
  const name = text(p.name, `${where}.name`);
  const nominal = /^\d+g\.(\d+)gb/.exec(name);
  if (nominal === null) fail(where, `profile name "${name}" is not <C>g.<MEM>gb`);
  const captured = CAPTURED_MIG_MEMORY_MIB[table]?.[name];
  const read = migMemory(p.memory_gib_nvidia_smi_lgip, `${where}.memory_gib_nvidia_smi_lgip`);
  const memory = read.range === null && captured !== undefined ? { range: { min: captured / 1024, max: captured / 1024 }, note: 'memory from an nvidia-smi capture (CAPTURE_H100_590)' } : read;
  const notes = [memory.note, optionalText(p.note, `${where}.note`), optionalText(p.media_extensions, `${where}.media_extensions`)]
    .filter((n): n is string => n !== null);
  const profile: MigProfile = {
    name,
    giProfileId: optionalNum(p.gi_profile_id, `${where}.gi_profile_id`),
    computeSlices: num(p.compute_slices, `${where}.compute_slices`),
    memorySlices: num(p.memory_slices, `${where}.memory_slices`),
    memoryGiB: memory.range,
    memoryMiB: memory.range === null ? null : captured ?? Math.round(memory.range.min * 1024),
    nominalMemoryGB: Number(nominal[1]),
    smCount: optionalNum(p.sm_count, `${where}.sm_count`),
    maxInstances: num(p.max_instances, `${where}.max_instances`),
    placementStarts: list(p.placement_starts, `${where}.placement_starts`).map((s, i) => num(s, `${where}.placement_starts[${i}]`)),
    placementSizeSlots: num(p.placement_size_slots, `${where}.placement_size_slots`),
    mediaExtensions: name.includes('+me'),
    sources: [...texts(p.source, `${where}.source`), ...(captured !== undefined && read.range === null ? [CAPTURED_MIG_SOURCE] : [])],
  };
  if (notes.length > 0) profile.note = notes.join('; ');
  return profile;
}

/**
 * Boards the reference files under one MIG table whose per-profile SM counts are one board's.
 * H100 PCIe (and H800 PCIe) has 114 SMs (gpus.json), not the SXM's 132 the table's counts were
 * read on; the PCIe board's own per-profile counts are not in the reference, so its table claims
 * none (profile inference then rests on memory alone) rather than the SXM's.
 */
const MIG_TABLE_SPLITS: readonly { from: string; key: string; productNames: readonly string[]; pciIdsMatching: RegExp; note: string }[] = [
  {
    from: 'H100-80GB',
    key: 'H100-PCIe-80GB',
    productNames: ['NVIDIA H100 PCIe'],
    pciIdsMatching: /PCIe/,
    note: 'H100 PCIe has 114 SMs, not the 132 of the SXM board the reference read its per-profile SM counts on; those counts are not claimed here',
  },
];

function splitMigTables(tables: MigGpuTable[]): MigGpuTable[] {
  const result: MigGpuTable[] = [];
  for (const table of tables) {
    const split = MIG_TABLE_SPLITS.find((entry) => entry.from === table.key);
    if (split === undefined) {
      result.push(table);
      continue;
    }
    result.push({
      ...table,
      productNames: table.productNames.filter((name) => !split.productNames.includes(name)),
      pciDeviceIds: table.pciDeviceIds.filter((id) => !split.pciIdsMatching.test(id)),
    });
    result.push({
      ...table,
      key: split.key,
      productNames: [...split.productNames],
      pciDeviceIds: table.pciDeviceIds.filter((id) => split.pciIdsMatching.test(id)),
      profiles: table.profiles.map((profile) => ({ ...profile, smCount: null })),
      notes: [...table.notes, split.note],
    });
  }
  return result;
}

/**
 * MIG tables of the MIG_ONLY_GPUS: profile names and the named configs from mig-parted's
 * config-default.yaml (MIGPARTED_CFG), each profile placed by the reference's placement rules of
 * its family (7-slice, or the 4-slice family of A30 for RTX PRO 6000), as the reference does for
 * B200 and H200: inferred, not seen in `nvidia-smi mig -lgipp`. H20 has the profiles of H100-96GB
 * and GH200 (one device filter in config-default.yaml) without their SM counts.
 */
const MIG_ONLY_TABLES: readonly { key: string; family: 'seven_slice_family' | 'a30_family'; productNames: readonly string[]; pci: string; maxGpuInstances: number; minDriver: string; profiles: readonly { name: string; rule: string; memorySlices: number; maxInstances: number }[]; configs: Record<string, Record<string, number>>; copyOf?: string }[] = [
  {
    key: 'B300-288GB', family: 'seven_slice_family', productNames: [], pci: '0x318210DE (B300)', maxGpuInstances: 7, minDriver: 'R580 (>= 580.82.07)',
    profiles: [
      { name: '1g.34gb', rule: '1g', memorySlices: 1, maxInstances: 7 },
      { name: '1g.67gb', rule: '1g_2mem', memorySlices: 2, maxInstances: 4 },
      { name: '2g.67gb', rule: '2g', memorySlices: 2, maxInstances: 3 },
      { name: '3g.135gb', rule: '3g', memorySlices: 4, maxInstances: 2 },
      { name: '4g.135gb', rule: '4g', memorySlices: 4, maxInstances: 1 },
      { name: '7g.269gb', rule: '7g', memorySlices: 8, maxInstances: 1 },
    ],
    configs: {
      'all-1g.34gb': { '1g.34gb': 7 }, 'all-1g.67gb': { '1g.67gb': 4 }, 'all-2g.67gb': { '2g.67gb': 3 }, 'all-3g.135gb': { '3g.135gb': 2 },
      'all-4g.135gb': { '4g.135gb': 1 }, 'all-7g.269gb': { '7g.269gb': 1 }, 'all-balanced': { '1g.34gb': 2, '2g.67gb': 1, '3g.135gb': 1 },
    },
  },
  {
    key: 'RTX-PRO-6000-96GB', family: 'a30_family', productNames: ['NVIDIA RTX PRO 6000 Blackwell Server Edition'], pci: '0x2BB510DE (RTX PRO 6000 Blackwell)', maxGpuInstances: 4, minDriver: 'R575 (>= 575.51.03)',
    profiles: [
      { name: '1g.24gb', rule: '1g', memorySlices: 1, maxInstances: 4 },
      { name: '2g.48gb', rule: '2g', memorySlices: 2, maxInstances: 2 },
      { name: '4g.96gb', rule: '4g', memorySlices: 4, maxInstances: 1 },
    ],
    configs: { 'all-1g.24gb': { '1g.24gb': 4 }, 'all-2g.48gb': { '2g.48gb': 2 }, 'all-4g.96gb': { '4g.96gb': 1 }, 'all-balanced': { '1g.24gb': 2, '2g.48gb': 1 } },
  },
  { key: 'H20-96GB', family: 'seven_slice_family', productNames: ['NVIDIA H20'], pci: '0x232910DE (H20)', maxGpuInstances: 7, minDriver: 'R535 (>= 535.161.07)', profiles: [], configs: {}, copyOf: 'GH200-96GB' },
];

function migOnlyTables(reference: Json, tables: readonly MigGpuTable[]): MigGpuTable[] {
  const rules = record(record(reference, 'mig-profiles.json').placement_rules, 'mig-profiles.json.placement_rules');
  return MIG_ONLY_TABLES.map((table) => {
    const source = `inferred: profiles and configs from mig-parted config-default.yaml (device-filter ${table.pci}); placements by the ${table.family.replace(/_/g, ' ')} rules; -lgipp not observed`;
    const base = { key: table.key, productNames: [...table.productNames], pciDeviceIds: [table.pci], maxGpuInstances: table.maxGpuInstances, minDriver: table.minDriver, placementsVerified: false, placementsSource: source, notes: [] as string[] };
    if (table.copyOf !== undefined) {
      const from = tables.find((candidate) => candidate.key === table.copyOf);
      if (from === undefined) fail('MIG_ONLY_TABLES', `${table.key} copies ${table.copyOf}, which is not a table`);
      return { ...from, ...base, placementsSource: `${source}; the profiles of ${from.key} (one device filter with it), without its SM counts`, profiles: from.profiles.map((profile) => ({ ...profile, smCount: null })), migPartedConfigs: from.migPartedConfigs };
    }
    const family = record(rules[table.family], `placement_rules.${table.family}`);
    const totals = table.family === 'a30_family' ? { compute: 4, memory: 4 } : { compute: 7, memory: 8 };
    return {
      ...base,
      computeSlicesTotal: totals.compute,
      memorySlicesTotal: totals.memory,
      profiles: table.profiles.map((profile) => {
        const rule = record(family[profile.rule], `placement_rules.${table.family}.${profile.rule}`);
        return {
          name: profile.name,
          giProfileId: null,
          computeSlices: Number(/^(\d+)g/.exec(profile.name)![1]),
          memorySlices: profile.memorySlices,
          memoryGiB: null,
          memoryMiB: null,
          nominalMemoryGB: Number(/\.(\d+)gb/.exec(profile.name)![1]),
          smCount: null,
          maxInstances: profile.maxInstances,
          placementStarts: list(rule.starts, `placement_rules.${table.family}.${profile.rule}.starts`).map((start) => num(start, 'start')),
          placementSizeSlots: num(rule.size, `placement_rules.${table.family}.${profile.rule}.size`),
          mediaExtensions: false,
          sources: ['MIGPARTED_CFG'],
        };
      }),
      migPartedConfigs: table.configs,
    };
  });
}

export function buildMigTables(reference: Json): MigGpuTable[] {
  const tables = splitMigTables(readMigTables(reference));
  return [...tables, ...migOnlyTables(reference, tables)];
}

function readMigTables(reference: Json): MigGpuTable[] {
  const gpus = record(record(reference, 'mig-profiles.json').gpus, 'mig-profiles.json.gpus');
  return Object.entries(gpus).map(([key, value]) => {
    const where = `mig-profiles.json.gpus.${key}`;
    const g = record(value, where);
    const configs = record(g.mig_parted_named_configs, `${where}.mig_parted_named_configs`);
    return {
      key,
      productNames: texts(g.product_names, `${where}.product_names`).map((n) => splitNote(n).name),
      pciDeviceIds: texts(g.pci_device_ids, `${where}.pci_device_ids`),
      computeSlicesTotal: num(g.compute_slices_total, `${where}.compute_slices_total`),
      memorySlicesTotal: num(g.memory_slices_total, `${where}.memory_slices_total`),
      maxGpuInstances: num(g.max_gpu_instances, `${where}.max_gpu_instances`),
      minDriver: optionalText(g.min_driver, `${where}.min_driver`),
      placementsVerified: g.placements_verified === true,
      placementsSource: text(g.placements_source, `${where}.placements_source`),
      profiles: list(g.profiles, `${where}.profiles`).map((p, i) => migProfile(p, `${where}.profiles[${i}]`, key)),
      migPartedConfigs: Object.fromEntries(
        Object.entries(configs).map(([name, layout]) => [
          name,
          Object.fromEntries(
            Object.entries(record(layout, `${where}.configs.${name}`)).map(([profile, count]) => [
              profile,
              num(count, `${where}.configs.${name}.${profile}`),
            ]),
          ),
        ]),
      ),
      notes: g.notes === undefined ? [] : texts(g.notes, `${where}.notes`),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Instances

/**
 * Azure reports `GPUs=1` for the partial-A10 NVadsA10 v5 sizes; the VM gets a slice. The slice is
 * derived as vCPUs / 36, the vCPUs of Standard_NV36ads_A10_v5 (one whole A10) in the same catalog.
 * That gives 1/6, 1/3 and 1/2, which is what Azure's size table says (recalled, not re-read).
 */
const AZURE_PARTIAL_A10 = { wholeGpuSku: 'Standard_NV36ads_A10_v5', skus: ['Standard_NV6ads_A10_v5', 'Standard_NV12ads_A10_v5', 'Standard_NV18ads_A10_v5'] };

/**
 * GCP bills a2/a3 machine types as the VM (vCPU + memory) plus the attached GPUs. The catalog
 * holds the VM part; commitment-prices.json holds GPU-only rows keyed by accelerator type.
 * Machine family -> accelerator type, as the catalog's `modelBasis` describes each family.
 */
const GCP_FAMILY_ACCELERATOR: Readonly<Record<string, string>> = {
  'a2-highgpu': 'nvidia-tesla-a100',
  'a2-megagpu': 'nvidia-tesla-a100',
  'a2-ultragpu': 'nvidia-a100-80gb',
  'a3-highgpu': 'nvidia-h100-80gb',
  'a3-megagpu': 'nvidia-h100-mega-80gb',
  'a3-ultragpu': 'nvidia-h200-141gb',
  // a3-edgegpu: no GPU price row names its accelerator; left without a derived price.
};

interface PriceEntry {
  provider: string;
  instanceType: string | null;
  gpuAttachment: string | null;
  gpuCount: number | null;
  region: string;
  term: string;
  usdPerHour: number;
  unit: string | null;
  observedAt: string;
  confidence: string | null;
  caveat: string | null;
  source: string;
}

function priceEntries(commitments: Json): PriceEntry[] {
  return list(record(commitments, 'commitment-prices.json').entries, 'entries').map((item, i) => {
    const where = `commitment-prices.json.entries[${i}]`;
    const e = record(item, where);
    return {
      provider: text(e.provider, `${where}.provider`),
      instanceType: optionalText(e.instanceType, `${where}.instanceType`),
      gpuAttachment: optionalText(e.gpuAttachment, `${where}.gpuAttachment`),
      gpuCount: optionalNum(e.gpuCount, `${where}.gpuCount`),
      region: text(e.region, `${where}.region`),
      term: text(e.term, `${where}.term`),
      usdPerHour: num(e.usdPerHour, `${where}.usdPerHour`),
      unit: optionalText(e.unit, `${where}.unit`),
      observedAt: text(e.observedAt, `${where}.observedAt`),
      confidence: optionalText(e.confidence, `${where}.confidence`),
      caveat: optionalText(e.caveat, `${where}.caveat`),
      source: text(e.source, `${where}.source`),
    };
  });
}

function datedAt(entry: PriceEntry): string | null {
  return /^\d{4}-\d{2}-\d{2}/.exec(entry.observedAt)?.[0] ?? null;
}

/** Of several observations of one price, a dated one beats an undated snapshot; later beats earlier. */
function freshest(entries: PriceEntry[]): PriceEntry | undefined {
  return [...entries].sort((a, b) => (datedAt(b) ?? '').localeCompare(datedAt(a) ?? ''))[0];
}

/** `observedAt` texts run to a paragraph; the price's source line keeps the first clause. */
function observedLabel(entry: PriceEntry): string {
  return entry.observedAt.split(';')[0]!.trim();
}

type PriceTerm = 'onDemand' | 'spot' | 'reserved1y' | 'reserved3y' | 'savingsPlan1y' | 'savingsPlan3y';
const TERM_FIELD: Readonly<Record<string, PriceTerm>> = {
  'on-demand': 'onDemand',
  spot: 'spot',
  'reserved-1y': 'reserved1y',
  'reserved-3y': 'reserved3y',
  'committed-use-1y': 'reserved1y',
  'committed-use-3y': 'reserved3y',
  'savings-plan-1y': 'savingsPlan1y',
  'savings-plan-3y': 'savingsPlan3y',
};

const PRICE_LABEL: Readonly<Record<PriceTerm, string>> = {
  onDemand: 'on-demand',
  spot: 'spot',
  reserved1y: 'reserved-1y',
  reserved3y: 'reserved-3y',
  savingsPlan1y: 'savings-plan-1y',
  savingsPlan3y: 'savings-plan-3y',
};

class PriceSheet {
  readonly prices: InstancePrices = {
    onDemand: null,
    spot: null,
    reserved1y: null,
    reserved3y: null,
    savingsPlan1y: null,
    savingsPlan3y: null,
    sources: [],
  };

  /** `observedAt`: the day a spot price was seen, where its source dates it. */
  set(term: PriceTerm, usdPerHour: number, source: string, observedAt: string | null = null): void {
    this.prices[term] = usdPerHour;
    if (term === 'spot') {
      if (observedAt === null) delete this.prices.spotObservedAt;
      else this.prices.spotObservedAt = observedAt;
    }
    this.prices.sources = this.prices.sources.filter((s) => !s.startsWith(`${PRICE_LABEL[term]}: `));
    this.prices.sources.push(`${PRICE_LABEL[term]}: ${source}`);
  }

  has(term: PriceTerm): boolean {
    return this.prices[term] !== null;
  }
}

function gpuSpecByKey(specs: GpuSpecRecord[]): Map<string, GpuSpecRecord> {
  return new Map(specs.map((s) => [s.key, s]));
}

/** Types the provider has retired: listed on request, never proposed. Each entry names its source. */
const RETIRED_TYPES: readonly { provider: string; names: readonly string[]; retiredOn: string; source: string }[] = [
  {
    provider: 'azure',
    names: ['Standard_NC6s_v3', 'Standard_NC12s_v3', 'Standard_NC24s_v3'],
    retiredOn: '2025-09-30',
    source: 'github:MicrosoftDocs/azure-docs articles/virtual-machines/ncv3-nc6s-nc12s-nc24s-retirement.md (ms.date 03/19/2024): "On September 30, 2025, Microsoft Azure will retire the Standard_NC6s_v3, Standard_NC12s_v3 and Standard_NC24s_v3"',
  },
];

function retirementOf(provider: string, name: string, sources: string[]): { retiredOn?: string } {
  const entry = RETIRED_TYPES.find((candidate) => candidate.provider === provider && candidate.names.includes(name));
  if (entry === undefined) return {};
  sources.push(`retiredOn: ${entry.source}`);
  return { retiredOn: entry.retiredOn };
}

export function buildInstances(catalog: Json, commitments: Json, specs: GpuSpecRecord[]): { instances: InstanceRecord[]; skipped: string[] } {
  const root = record(catalog, 'gpu-instances.json');
  const entries = priceEntries(commitments);
  const specsByKey = gpuSpecByKey(specs);
  const rawInstances = list(root.instances, 'gpu-instances.json.instances').map((item, i) => record(item, `instances[${i}]`));
  const byName = new Map(rawInstances.map((inst) => [text(inst.instanceType, 'instanceType'), inst]));
  const wholeA10 = byName.get(AZURE_PARTIAL_A10.wholeGpuSku);
  const wholeA10Vcpus = wholeA10 === undefined ? null : num(wholeA10.vcpus, `${AZURE_PARTIAL_A10.wholeGpuSku}.vcpus`);

  const instances = rawInstances.map((inst): InstanceRecord => {
    const name = text(inst.instanceType, 'instanceType');
    const where = `gpu-instances.json[${name}]`;
    const provider = text(inst.provider, `${where}.provider`);
    if (provider !== 'aws' && provider !== 'azure' && provider !== 'gcp') fail(where, `unknown provider ${provider}`);
    const gpu = record(inst.gpu, `${where}.gpu`);
    const pricing = record(inst.pricing, `${where}.pricing`);
    const gpuCatalogKey = text(gpu.key, `${where}.gpu.key`);
    const gpuModelKey = INSTANCE_GPU_KEY_TO_MODEL_KEY[gpuCatalogKey];
    if (gpuModelKey === undefined) fail(where, `GPU key ${gpuCatalogKey} is not in INSTANCE_GPU_KEY_TO_MODEL_KEY (src/catalog/gpu-keys.ts)`);
    const spec = gpuModelKey === UNKNOWN_GPU_KEY ? undefined : specsByKey.get(gpuModelKey);
    if (gpuModelKey !== UNKNOWN_GPU_KEY && spec === undefined) fail(where, `GPU key ${gpuModelKey} is not in the GPU table`);
    const notes = inst.notes === undefined ? [] : texts(inst.notes, `${where}.notes`);
    const sources = [`specs: ${text(record(inst.source, `${where}.source`).specs, `${where}.source.specs`)}`];
    const vcpus = optionalNum(inst.vcpus, `${where}.vcpus`);

    // GPU count and partition
    let gpuCount = num(gpu.count, `${where}.gpu.count`);
    let gpuPartitionSize = gpu.partitionSize === undefined ? 1 : num(gpu.partitionSize, `${where}.gpu.partitionSize`);
    const partialA10 = AZURE_PARTIAL_A10.skus.includes(name);
    if (partialA10) {
      if (vcpus === null || wholeA10Vcpus === null) fail(where, 'partial-GPU SKU needs vCPUs and the whole-GPU SKU');
      gpuCount = 0;
      gpuPartitionSize = vcpus / wholeA10Vcpus;
      notes.push(
        `gpuPartitionSize derived: ${vcpus} vCPUs / ${wholeA10Vcpus} vCPUs of ${AZURE_PARTIAL_A10.wholeGpuSku} (one whole A10); Azure's size table gives the same fractions (recalled, not re-read)`,
      );
    }

    // VRAM: AWS gives MiB, Azure and GCP marketing GB; every cloud gets the GPU table's
    // driver-reported MiB where the table has the model, so one board reads the same on all three.
    const vram = gpu.vramPerGpu === null || gpu.vramPerGpu === undefined ? null : record(gpu.vramPerGpu, `${where}.gpu.vramPerGpu`);
    const vramUnit = vram === null ? null : text(vram.unit, `${where}.gpu.vramPerGpu.unit`);
    let vramPerGpuMiB: number | null = null;
    let vramPerGpuNominalGB: number | null = null;
    if (vram !== null && vramUnit === 'MiB') {
      vramPerGpuMiB = num(vram.value, `${where}.gpu.vramPerGpu.value`);
      const tableMiB = spec?.vramMiB ?? null;
      if (tableMiB !== null && tableMiB.value !== vramPerGpuMiB && Math.abs(tableMiB.value - vramPerGpuMiB) / vramPerGpuMiB < 0.05) {
        sources.push(`vramPerGpuMiB: GPU table ${spec!.key} (${tableMiB.sources.join(', ')}; ${tableMiB.check}); the provider lists ${vramPerGpuMiB} MiB`);
        vramPerGpuMiB = tableMiB.value;
      }
      if (gpuPartitionSize === 1) vramPerGpuNominalGB = spec?.vramMarketingGB?.value ?? null;
    } else {
      if (vram !== null) {
        if (!vramUnit!.startsWith('GB')) fail(where, `unknown VRAM unit ${vramUnit}`);
        vramPerGpuNominalGB = num(vram.value, `${where}.gpu.vramPerGpu.value`);
      }
      const tableMiB = spec?.vramMiB ?? null;
      const marketing = spec?.vramMarketingGB?.value ?? null;
      const consistent = vramPerGpuNominalGB === null || marketing === vramPerGpuNominalGB;
      if (!partialA10 && tableMiB !== null && consistent) {
        vramPerGpuMiB = tableMiB.value;
        sources.push(`vramPerGpuMiB: GPU table ${spec!.key} (${tableMiB.sources.join(', ')}; ${tableMiB.check})`);
      }
      const vramSource = optionalText(gpu.vramSource, `${where}.gpu.vramSource`);
      if (vramSource !== null && vramPerGpuNominalGB !== null) sources.push(`vramPerGpuNominalGB: ${vramSource}`);
    }

    const network = inst.network === null || inst.network === undefined ? null : record(inst.network, `${where}.network`);

    // Prices from the catalog entry
    const sheet = new PriceSheet();
    const onDemand = optionalNum(pricing.onDemand, `${where}.pricing.onDemand`);
    if (onDemand !== null) sheet.set('onDemand', onDemand, text(pricing.onDemandSource, `${where}.pricing.onDemandSource`));
    const spot = pricing.spotTypical === null || pricing.spotTypical === undefined ? null : record(pricing.spotTypical, `${where}.pricing.spotTypical`);
    if (spot !== null) {
      const usd = num(spot.usdPerHour ?? spot.usdPerHourMedian, `${where}.pricing.spotTypical.usdPerHour`);
      const observedAt = text(spot.observedAt, `${where}.spotTypical.observedAt`);
      sheet.set('spot', usd, `${text(spot.source, `${where}.spotTypical.source`)} (observed: ${observedAt})`, /^\d{4}-\d{2}-\d{2}/.exec(observedAt)?.[0] ?? null);
    }
    for (const [field, term] of [
      ['reserved1yr', 'reserved1y'],
      ['reserved3yr', 'reserved3y'],
      ['savingsPlan1yr', 'savingsPlan1y'],
      ['savingsPlan3yr', 'savingsPlan3y'],
      ['committedUse1yr', 'reserved1y'],
      ['committedUse3yr', 'reserved3y'],
    ] as const) {
      const value = optionalNum(pricing[field], `${where}.pricing.${field}`);
      if (value !== null) sheet.set(term, value, `gpu-instances.json pricing.${field}`);
    }

    // Prices from commitment-prices.json: per instance first ...
    const own = entries.filter((e) => e.instanceType === name && e.provider === provider);
    for (const [term, field] of Object.entries(TERM_FIELD)) {
      const best = freshest(own.filter((e) => e.term === term));
      if (best === undefined) continue;
      let usd = best.usdPerHour;
      let source = `${best.source} (observed: ${observedLabel(best)})`;
      if (best.unit !== null && best.unit.startsWith('USD per GPU-hour') && best.unit.includes('instance_share')) {
        // Published per GPU as the instance price / GPUs; multiplied back to the instance price.
        usd = round6(best.usdPerHour * gpuCount);
        source = `derived: ${best.usdPerHour} per GPU-hour x ${gpuCount} GPUs; ${source}`;
      } else if (best.unit !== null && !best.unit.startsWith('USD per instance-hour') && !best.unit.startsWith('USD per VM-hour')) {
        fail(where, `price unit not per instance: ${best.unit}`);
      }
      if (provider === 'aws' && term === 'spot' && datedAt(best) === null) {
        source += '; this snapshot predates the 2026-07-20 on-demand prices';
      }
      if (!sheet.has(field) || datedAt(best) !== null) sheet.set(field, usd, source, datedAt(best));
      if (best.caveat !== null) notes.push(`${term}: ${best.caveat}`);
    }

    // ... then GCP: VM part + GPU-only row, where the GPU row is trustworthy.
    if (provider === 'gcp') {
      const components = record(pricing.components, `${where}.pricing.components`);
      const family = name.replace(/-\d+g$/, '');
      const accelerator = GCP_FAMILY_ACCELERATOR[family];
      for (const [term, vmField] of [
        ['on-demand', 'vmExcludingGpuOnDemand'],
        ['spot', 'vmExcludingGpuSpot'],
      ] as const) {
        const field = TERM_FIELD[term]!;
        if (sheet.has(field)) continue;
        const vmPart = optionalNum(components[vmField], `${where}.pricing.components.${vmField}`);
        const gpuRow = entries.find((e) => e.provider === 'gcp' && e.gpuAttachment === accelerator && e.gpuCount === gpuCount && e.term === term && e.instanceType === null && e.unit?.startsWith('USD per hour for the GPUs only'));
        if (vmPart === null || accelerator === undefined || gpuRow === undefined) continue;
        if (gpuRow.confidence !== 'consistent-within-source') {
          notes.push(`${term}: the GPU-only price row for ${gpuCount}x ${accelerator} is flagged ${gpuRow.confidence} in the source (${gpuRow.caveat ?? 'no caveat'}); price left empty`);
          continue;
        }
        sheet.set(
          field,
          round6(vmPart + gpuRow.usdPerHour),
          `derived: VM part ${vmPart} (${text(components.source, `${where}.components.source`)}) + GPU part ${gpuRow.usdPerHour} for ${gpuCount}x ${accelerator} (${gpuRow.source})`,
          datedAt(gpuRow),
        );
      }
    }

    // The catalog's notes on missing prices, where a price is still missing after the above.
    for (const [field, term] of [
      ['onDemandNote', 'onDemand'],
      ['spotNote', 'spot'],
    ] as const) {
      const note = optionalText(pricing[field], `${where}.pricing.${field}`);
      if (note !== null && !sheet.has(term)) notes.push(note);
    }

    const networkGbps = network === null ? null : optionalNum(network.gbps, `${where}.network.gbps`);
    return {
      provider,
      name,
      region: text(inst.region, `${where}.region`),
      gpuModelKey,
      gpuModelName: text(gpu.model, `${where}.gpu.model`),
      gpuCatalogKey,
      gpuCount,
      gpuPartitionSize,
      vramPerGpuMiB,
      vramPerGpuNominalGB,
      vcpus,
      memoryGiB: optionalNum(inst.memoryGiB, `${where}.memoryGiB`),
      networkGbps,
      networkUpTo: network === null ? null : network.upTo === true,
      prices: sheet.prices,
      ...retirementOf(provider, name, sources),
      sources,
      notes,
    };
  });

  const known = new Set(instances.map((i) => `${i.provider}/${i.name}`));
  const skipped = entries
    .filter((e) => e.instanceType !== null && !known.has(`${e.provider}/${e.instanceType}`))
    .map((e) => `${e.provider} ${e.instanceType} ${e.term}: not in gpu-instances.json`);
  return { instances, skipped };
}

// ---------------------------------------------------------------------------------------------
// Rendering TypeScript

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** JSON-like TypeScript literal with bare keys where they are identifiers. */
export function toTs(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    // Short lists of plain values stay on one line: tags, ids, numbers.
    if (value.every((v) => typeof v !== 'object' || v === null)) {
      const oneLine = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
      if (indent.length + oneLine.length <= 100) return oneLine;
    }
    return `[\n${value.map((v) => `${inner}${toTs(v, inner)},`).join('\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const body = entries.map(([k, v]) => `${inner}${IDENTIFIER.test(k) ? k : JSON.stringify(k)}: ${toTs(v, inner)},`);
    return `{\n${body.join('\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

function header(lines: string[]): string {
  return [
    '// GENERATED by scripts/build-catalog-data.ts - do not edit by hand.',
    '// Change the shared source or the script, then run: npx tsx scripts/build-catalog-data.ts',
    ...lines.map((l) => `// ${l}`),
    '',
  ].join('\n');
}

export interface BuiltModules {
  gpus: string;
  migProfiles: string;
  instances: string;
  skipped: string[];
}

export function buildModules(inputs: { gpus: Json; migProfiles: Json; instances: Json; commitments: Json }): BuiltModules {
  const specs = buildGpuSpecs(inputs.gpus);
  const migTables = buildMigTables(inputs.migProfiles);
  const { instances, skipped } = buildInstances(inputs.instances, inputs.commitments, specs);
  const catalogRoot = record(inputs.instances, 'gpu-instances.json');
  const commitmentsRoot = record(inputs.commitments, 'commitment-prices.json');
  const catalogAsOf = text(catalogRoot.asOf, 'gpu-instances.json.asOf');
  const migCollected = text(record(inputs.migProfiles, 'mig-profiles.json')._collected, 'mig-profiles.json._collected');

  const gpus = [
    header([
      `Source: ../shared/${INPUT_FILES.gpus} (as of ${GPU_REFERENCE_AS_OF}: the file states no date; the shared reference set was compiled then).`,
      'Each value keeps its source tags (GPU_REFERENCE_SOURCES) and check mark: seen > derived > recalled > unverified.',
    ]),
    "import type { GpuSpecRecord } from '../types.js';",
    '',
    `export const GPU_TABLE_AS_OF = ${JSON.stringify(GPU_REFERENCE_AS_OF)};`,
    '',
    '/** What each source tag in `sources` stands for. */',
    `export const GPU_REFERENCE_SOURCES: Readonly<Record<string, string>> = ${toTs(buildGpuSourceTags(inputs.gpus))};`,
    '',
    `export const GPU_SPECS: readonly GpuSpecRecord[] = ${toTs(specs)};`,
    '',
  ].join('\n');

  const migProfiles = [
    header([
      `Source: ../shared/${INPUT_FILES.migProfiles} (collected: ${migCollected}; each profile lists its sources).`,
      'Placement rules: a GPU instance occupies `placementSizeSlots` memory slots from one of `placementStarts`.',
    ]),
    "import type { MigGpuTable } from '../types.js';",
    '',
    `export const MIG_TABLES_COLLECTED = ${JSON.stringify(migCollected)};`,
    '',
    `export const MIG_TABLES: readonly MigGpuTable[] = ${toTs(migTables)};`,
    '',
  ].join('\n');

  const instancesModule = [
    header([
      `Sources: ../shared/${INPUT_FILES.instances} (as of ${catalogAsOf}) and ../shared/${INPUT_FILES.commitments} (as of ${text(commitmentsRoot.asOf, 'commitment-prices.json.asOf')}).`,
      text(catalogRoot.asOfNote, 'gpu-instances.json.asOfNote'),
      'Prices are USD per instance-hour, Linux; each non-null price names its source in prices.sources.',
    ]),
    "import type { InstanceRecord } from '../types.js';",
    '',
    `export const BUNDLED_CATALOG_AS_OF = ${JSON.stringify(catalogAsOf)};`,
    '',
    `export const BUNDLED_INSTANCES: readonly InstanceRecord[] = ${toTs(instances)};`,
    '',
  ].join('\n');

  return { gpus, migProfiles, instances: instancesModule, skipped };
}

export function readInputs(root: string = sharedRoot): { gpus: Json; migProfiles: Json; instances: Json; commitments: Json } {
  const read = (file: string): Json => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Json;
  return {
    gpus: read(INPUT_FILES.gpus),
    migProfiles: read(INPUT_FILES.migProfiles),
    instances: read(INPUT_FILES.instances),
    commitments: read(INPUT_FILES.commitments),
  };
}

function main(): void {
  const check = process.argv.includes('--check');
  const built = buildModules(readInputs());
  let stale = 0;
  for (const key of ['gpus', 'migProfiles', 'instances'] as const) {
    const target = path.join(repoRoot, OUTPUT_FILES[key]);
    if (check) {
      let current = '';
      try {
        current = readFileSync(target, 'utf8');
      } catch {
        current = '';
      }
      if (current !== built[key]) {
        stale += 1;
        console.error(`${OUTPUT_FILES[key]} is out of date`);
      }
    } else {
      writeFileSync(target, built[key]);
      console.log(`wrote ${OUTPUT_FILES[key]}`);
    }
  }
  for (const line of built.skipped) console.log(`skipped price: ${line}`);
  if (stale > 0) process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();

/**
 * GPU model resolution: from whatever name a tool printed (nvidia-smi `product_name`/`name`,
 * DCGM `modelName`, dcgmi `Name:`, a GPU Feature Discovery label, a MIG device name) and, as a
 * second key, the PCI device id, to one row of the GPU table.
 *
 * Order: the name as printed, then the name normalised (NVIDIA prefix, hyphens for spaces, GFD's
 * `-SHARED` suffix, a trailing `MIG <profile>`), then the PCI device id. A vGPU guest name
 * (`GRID P4-1Q`) names a slice of a board, not the board, so only the PCI id can place it.
 * Anything else is `unknown`, with the reason kept for the report.
 */
import { GPU_SPECS } from './data/gpus.js';
import { UNKNOWN_GPU_KEY } from './gpu-keys.js';
import type { GpuSpecRecord } from './types.js';

export { UNKNOWN_GPU_KEY } from './gpu-keys.js';
export { GPU_REFERENCE_SOURCES, GPU_TABLE_AS_OF } from './data/gpus.js';

export type GpuMatchBasis = 'product-name' | 'pci-device-id';

/** Why a GPU has no row: no name at all, a vGPU slice without a PCI id, or a model the table lacks. */
export type GpuUnknownReason = 'no-name' | 'vgpu-guest' | 'not-in-gpu-table';

interface NameParts {
  /** The board's name with MIG and sharing suffixes removed. */
  board: string;
  migProfile: string | null;
  /** vGPU profile (`P4-1Q`, `A100-10C`) when the name is a vGPU guest's. */
  vgpuProfile: string | null;
}

export type GpuResolution =
  | ({ status: 'resolved'; spec: GpuSpecRecord; matchedBy: GpuMatchBasis } & Omit<NameParts, 'board'>)
  | ({ status: 'unknown'; reason: GpuUnknownReason } & Omit<NameParts, 'board'>);

/** `NVIDIA H100 NVL MIG 1g.12gb`, `NVIDIA-H100-NVL-MIG-1g.12gb`, `... MIG 1c.3g.71gb`, `... MIG 1g.10gb+me`. */
const MIG_SUFFIX = /^(.*?)[\s-]+MIG[\s-]+((?:\d+c\.)?\d+g\.\d+gb(?:[+-][a-z]+(?:\.[a-z]+)?)?)$/i;

/** GPU Feature Discovery appends `-SHARED` to `nvidia.com/gpu.product` when the GPU is time-sliced. */
const GFD_SHARED_SUFFIX = /-SHARED$/;

/** vGPU guests print `GRID <board>-<framebuffer GB><series>`, series A, B, C or Q. */
const VGPU_NAME = /^(?:GRID|NVIDIA)\s+([A-Za-z0-9]+-\d+[ABCQ])$/;

function splitName(raw: string): NameParts {
  let board = raw.trim().replace(GFD_SHARED_SUFFIX, '');
  let migProfile: string | null = null;
  const mig = MIG_SUFFIX.exec(board);
  if (mig !== null) {
    board = mig[1]!;
    migProfile = mig[2]!;
  }
  const vgpu = VGPU_NAME.exec(board);
  return { board, migProfile, vgpuProfile: vgpu === null ? null : vgpu[1]! };
}

/**
 * One spelling for every way tools print a name: lower case, spaces, hyphens and underscores
 * alike (GFD labels swap spaces for hyphens), no leading `NVIDIA`.
 */
export function normaliseGpuName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim()
    .replace(/^nvidia /, '');
}

/**
 * `0x20B010DE`, `20B010DE` (device id in the upper 16 bits, vendor 10DE below) or `0x20B0`.
 * Masked or virtualised ids (`000000DE`, `[REDACTED]`) give null.
 */
export function pciDeviceIdOf(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const hex = raw.trim().replace(/^0x/i, '').toUpperCase();
  let device: string;
  if (/^[0-9A-F]{8}$/.test(hex)) {
    if (hex.slice(4) !== '10DE') return null;
    device = hex.slice(0, 4);
  } else if (/^[0-9A-F]{4}$/.test(hex)) {
    device = hex;
  } else {
    return null;
  }
  return device === '0000' ? null : `0x${device}`;
}

interface GpuIndex {
  byExactName: Map<string, GpuSpecRecord>;
  byNormalisedName: Map<string, GpuSpecRecord>;
  byPciDeviceId: Map<string, GpuSpecRecord>;
  byKey: Map<string, GpuSpecRecord>;
}

function buildIndex(specs: readonly GpuSpecRecord[]): GpuIndex {
  const index: GpuIndex = { byExactName: new Map(), byNormalisedName: new Map(), byPciDeviceId: new Map(), byKey: new Map() };
  for (const spec of specs) {
    index.byKey.set(spec.key, spec);
    for (const name of spec.productNames) {
      index.byExactName.set(name, spec);
      index.byNormalisedName.set(normaliseGpuName(name), spec);
    }
    for (const id of spec.pciDeviceIds) index.byPciDeviceId.set(id, spec);
  }
  return index;
}

const index = buildIndex(GPU_SPECS);

/** Every row of the GPU table. */
export function gpuSpecs(): readonly GpuSpecRecord[] {
  return GPU_SPECS;
}

export function gpuSpecByKey(key: string): GpuSpecRecord | undefined {
  return index.byKey.get(key);
}

/** Resolution with its basis, or the reason it failed: what the report shows beside `unknown`. */
export function resolveGpu(productName: string | null | undefined, pciDeviceId?: string | null): GpuResolution {
  const parts = productName === null || productName === undefined || productName.trim() === '' ? null : splitName(productName);
  const extras = { migProfile: parts?.migProfile ?? null, vgpuProfile: parts?.vgpuProfile ?? null };

  if (parts !== null && parts.vgpuProfile === null) {
    const spec = index.byExactName.get(parts.board) ?? index.byNormalisedName.get(normaliseGpuName(parts.board));
    if (spec !== undefined) return { status: 'resolved', spec, matchedBy: 'product-name', ...extras };
  }
  const pci = pciDeviceIdOf(pciDeviceId);
  const byPci = pci === null ? undefined : index.byPciDeviceId.get(pci);
  if (byPci !== undefined) return { status: 'resolved', spec: byPci, matchedBy: 'pci-device-id', ...extras };

  const reason: GpuUnknownReason = parts === null ? 'no-name' : parts.vgpuProfile !== null ? 'vgpu-guest' : 'not-in-gpu-table';
  return { status: 'unknown', reason, ...extras };
}

export function resolveGpuModel(productName: string | null, pciDeviceId?: string | null): GpuSpecRecord | undefined {
  const resolution = resolveGpu(productName, pciDeviceId);
  return resolution.status === 'resolved' ? resolution.spec : undefined;
}

/** The GPU table key for a name (and PCI id), or `unknown`. */
export function modelKeyOf(productName: string | null, pciDeviceId?: string | null): string {
  return resolveGpuModel(productName, pciDeviceId)?.key ?? UNKNOWN_GPU_KEY;
}

/**
 * Short, recognisable names for GPUs and processes in human-readable output.
 * Full ids are long (`GPU-8f3c2a1b-6d4e-4f10-9a7b-0c1d2e3f4a5b/1`); a reader knows a
 * GPU by host, index and the first block of its UUID, the way `nvidia-smi -L` shows it.
 */
import type { GpuEntry } from '../model/index.js';
import { toDisplayText } from '../support/index.js';

export interface GpuRow {
  gpu: GpuEntry;
  /** True for a MIG device (drawn indented under its parent). */
  isMigDevice: boolean;
  /** Last MIG device under its parent (draws `└` instead of `├`). */
  isLastChild: boolean;
}

/**
 * Physical GPUs in report order, each followed by its MIG devices. A MIG device whose
 * parent is not in the report keeps its place and is still drawn as a MIG device.
 */
export function gpuRows(gpus: readonly GpuEntry[]): GpuRow[] {
  const presentIds = new Set(gpus.map((gpu) => gpu.id));
  const childrenByParent = new Map<string, GpuEntry[]>();
  for (const gpu of gpus) {
    if (gpu.parentId !== null && presentIds.has(gpu.parentId)) {
      childrenByParent.set(gpu.parentId, [...(childrenByParent.get(gpu.parentId) ?? []), gpu]);
    }
  }
  const rows: GpuRow[] = [];
  for (const gpu of gpus) {
    if (gpu.parentId !== null) {
      if (!presentIds.has(gpu.parentId)) rows.push({ gpu, isMigDevice: true, isLastChild: true });
      continue;
    }
    rows.push({ gpu, isMigDevice: false, isLastChild: false });
    const children = childrenByParent.get(gpu.id) ?? [];
    children.forEach((child, position) => {
      rows.push({ gpu: child, isMigDevice: true, isLastChild: position === children.length - 1 });
    });
  }
  return rows;
}

export interface GpuNames {
  /** Within a host: `#0 8f3c2a1b` for a GPU, `GI 1` for a MIG device. */
  short(gpu: GpuEntry): string;
  /** Across the fleet: `node-a #0 8f3c2a1b`, `node-a #0 8f3c2a1b GI 1` (no host when the report has only one). */
  full(gpu: GpuEntry): string;
  /** A finding's or recommendation's target: the full name of a GPU id, else the (sanitised) target itself. */
  target(target: string): string;
}

const UUID_PREFIX_LENGTH = 8;

function uuidPrefix(uuid: string): string {
  return uuid.replace(/^(?:GPU|MIG)-/u, '').slice(0, UUID_PREFIX_LENGTH);
}

/** `00000000:3B:00.0` -> `3B:00.0`: the all-zero PCI domain is noise on almost every machine. */
function shortPciBusId(pciBusId: string): string {
  return pciBusId.replace(/^0+:/u, '');
}

/** What follows the last `/` of a MIG device id (the GPU instance id). */
function gpuInstanceOf(gpu: GpuEntry): string | null {
  const slash = gpu.id.lastIndexOf('/');
  return slash >= 0 && slash < gpu.id.length - 1 ? gpu.id.slice(slash + 1) : null;
}

export function gpuNames(gpus: readonly GpuEntry[]): GpuNames {
  const byId = new Map(gpus.map((gpu) => [gpu.id, gpu]));
  // A UUID prefix names a GPU only if no other GPU shares it (masked UUIDs are all zeros).
  const prefixCounts = new Map<string, number>();
  for (const gpu of gpus) {
    if (gpu.parentId === null && gpu.uuid !== null) {
      const prefix = uuidPrefix(gpu.uuid);
      prefixCounts.set(prefix, (prefixCounts.get(prefix) ?? 0) + 1);
    }
  }

  const shortPhysical = (gpu: GpuEntry): string => {
    const parts: string[] = [];
    if (gpu.index !== null) parts.push(`#${gpu.index}`);
    const prefix = gpu.uuid === null ? null : uuidPrefix(gpu.uuid);
    if (prefix !== null && prefix !== '' && prefixCounts.get(prefix) === 1) parts.push(prefix);
    else if (gpu.pciBusId !== null) parts.push(shortPciBusId(gpu.pciBusId));
    return toDisplayText(parts.length > 0 ? parts.join(' ') : gpu.id);
  };

  const short = (gpu: GpuEntry): string => {
    if (gpu.parentId === null) return shortPhysical(gpu);
    const instance = gpuInstanceOf(gpu);
    return toDisplayText(instance !== null ? `GI ${instance}` : (gpu.migProfile ?? gpu.id));
  };

  const singleHost = new Set(gpus.map((gpu) => gpu.host)).size === 1;
  const full = (gpu: GpuEntry): string => {
    const parent = gpu.parentId === null ? undefined : byId.get(gpu.parentId);
    if (parent !== undefined) return `${full(parent)} ${short(gpu)}`;
    return singleHost ? short(gpu) : `${toDisplayText(gpu.host)} ${short(gpu)}`;
  };

  const target = (value: string): string => {
    const gpu = byId.get(value);
    return gpu === undefined ? toDisplayText(value) : full(gpu);
  };

  return { short, full, target };
}

/** `NVIDIA H100 80GB HBM3` -> `H100 80GB HBM3`: the vendor is the same on every row. */
export function shortModelName(model: string | null): string | null {
  return model === null ? null : toDisplayText(model).replace(/^NVIDIA\s+/u, '');
}

/**
 * A process as a reader knows it: the executable's file name, with its arguments where the
 * source printed them. `/opt/conda/bin/python3 train.py` -> `python3 train.py`;
 * `C:\Program Files\app\run.exe` (Windows prints the whole path, spaces and all) -> `run.exe`.
 */
export function processDisplayName(name: string): string {
  const clean = toDisplayText(name).trim();
  if (/^[A-Za-z]:\\/u.test(clean)) return clean.slice(clean.lastIndexOf('\\') + 1) || clean;
  return clean.replace(/^\S*\/(?=[^/\s])/u, '');
}

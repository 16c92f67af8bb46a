/**
 * Packing replicas into whole instances (docs/planner.md, "Packing"). An item is one replica on
 * whole GPUs, or one GPU of MIG slices; it holds GPUs, CPU and memory, and may sit only on the
 * types it fits. Several ways of buying are tried and the cheapest kept:
 *  - first fit decreasing, opening the cheapest type that holds the item;
 *  - every item on one type (a fleet of one 8-GPU type may cost less than eight 1-GPU ones);
 *  - as many instances of a many-GPU type as the items fill, the rest as in the first way.
 * A heuristic, not an exact bin packing: docs/planner.md says how far from optimal it can be.
 */
import type { SharingMode } from '../sharing/device-plugin.js';
import type { SupplyType } from './supply.js';

export interface Item {
  /** Unique within a packing: `<demand> #<replica>` or `<demand> GPU <n>`. */
  key: string;
  demand: string;
  gpus: number;
  cpu: number;
  memoryMiB: number;
  /** Types it fits on, with the GPUs it takes there. */
  allowed: ReadonlySet<SupplyType>;
  /** For a GPU of MIG slices: the profiles it holds, and which workload each slice is for. */
  profiles?: readonly string[];
  slices?: readonly { workload: string; profile: string }[];
  /** For the GPU a pair shares: how (its node's device plugin replicates every GPU). */
  sharing?: SharingMode;
}

export interface Bin {
  type: SupplyType;
  freeGpus: number;
  freeCpu: number;
  freeMemoryMiB: number;
  items: Item[];
}

export interface Packing {
  bins: Bin[];
  hourlyUsd: number;
}

function open(type: SupplyType): Bin {
  return {
    type,
    freeGpus: type.instance.gpuCount,
    freeCpu: type.vcpus ?? Number.POSITIVE_INFINITY,
    freeMemoryMiB: type.memoryMiB ?? Number.POSITIVE_INFINITY,
    items: [],
  };
}

function fits(bin: Bin, item: Item): boolean {
  return item.allowed.has(bin.type) && bin.freeGpus >= item.gpus && bin.freeCpu + 1e-9 >= item.cpu && bin.freeMemoryMiB + 1e-9 >= item.memoryMiB;
}

function place(bin: Bin, item: Item): void {
  bin.freeGpus -= item.gpus;
  bin.freeCpu -= item.cpu;
  bin.freeMemoryMiB -= item.memoryMiB;
  bin.items.push(item);
}

/** Largest first; ties by key, so every run packs alike. */
function decreasing(items: readonly Item[]): Item[] {
  return [...items].sort((a, b) => b.gpus - a.gpus || b.cpu - a.cpu || b.memoryMiB - a.memoryMiB || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** First fit into the bins not yet full; else a new bin of the first type of `prefer` that holds the item alone. */
function firstFit(ordered: readonly Item[], bins: Bin[], prefer: (item: Item) => SupplyType | undefined): Bin[] | undefined {
  let openBins = bins.filter((bin) => bin.freeGpus > 0);
  for (const item of ordered) {
    let target = openBins.find((bin) => fits(bin, item));
    if (target === undefined) {
      const type = prefer(item);
      if (type === undefined) return undefined;
      target = open(type);
      if (!fits(target, item)) return undefined;
      bins.push(target);
      openBins.push(target);
    }
    place(target, item);
    if (target.freeGpus === 0) openBins = openBins.filter((bin) => bin !== target);
  }
  return bins;
}

function cost(bins: readonly Bin[]): number {
  return bins.reduce((sum, bin) => sum + bin.type.hourlyUsd, 0);
}

/** The cheapest type an item fits alone (types are cheapest first). */
function cheapestHolding(types: readonly SupplyType[]): (item: Item) => SupplyType | undefined {
  return (item) => types.find((type) => item.allowed.has(type) && fits(open(type), item));
}

export function pack(items: readonly Item[], types: readonly SupplyType[]): Packing | undefined {
  if (items.length === 0) return { bins: [], hourlyUsd: 0 };
  const ordered = decreasing(items);
  const usable = types.filter((type) => items.some((item) => item.allowed.has(type)));
  const candidates: Bin[][] = [];
  const smallest = firstFit(ordered, [], cheapestHolding(usable));
  if (smallest !== undefined) candidates.push(smallest);
  const totalGpus = items.reduce((sum, item) => sum + item.gpus, 0);
  for (const type of usable) {
    if (items.every((item) => item.allowed.has(type))) {
      const one = firstFit(ordered, [], () => type);
      if (one !== undefined) candidates.push(one);
    }
    const perInstance = type.instance.gpuCount;
    if (perInstance < 2 || totalGpus < perInstance) continue;
    // As many of this type as the items fill, then the cheapest that holds what is left.
    const full = Math.floor(totalGpus / perInstance);
    const mixed = firstFit(ordered, Array.from({ length: full }, () => open(type)), cheapestHolding(usable));
    if (mixed !== undefined) candidates.push(mixed.filter((bin) => bin.items.length > 0));
  }
  let best: Bin[] | undefined;
  for (const bins of candidates) {
    if (best === undefined || cost(bins) < cost(best) - 1e-9 || (Math.abs(cost(bins) - cost(best)) <= 1e-9 && bins.length < best.length)) best = bins;
  }
  return best === undefined ? undefined : { bins: best, hourlyUsd: cost(best) };
}

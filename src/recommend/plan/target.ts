/**
 * The target fleet (docs/planner.md, "Placement"): which host groups stay as they are, which are
 * released, and where the workloads of the rest go, packed into whole instances at the least
 * cost found. Host groups are the hosts that share a workload: they are kept or rebought
 * together, since an instance is bought whole.
 *
 * 1. Each workload to move picks the GPU model whose cheapest purchase for it alone costs least.
 * 2. The workloads of one model and scope are packed together (./pack.ts): one 8-GPU instance
 *    may cost less than eight 1-GPU ones.
 * 3. Each host group, dearest first, is kept where keeping it costs no more than the instances
 *    its workloads alone fill in the packing: nothing moves for no saving.
 */
import { migTableFor, type MigProfile } from '../../catalog/index.js';
import { packProfiles } from '../sharing/mig.js';
import type { PlanDemand } from './demand.js';
import type { CurrentHost } from './hosts.js';
import { pack, type Bin, type Item, type Packing } from './pack.js';
import { fitsOf, type Fit, type Rejection, type SupplyType } from './supply.js';

export interface HostGroup {
  id: string;
  hosts: CurrentHost[];
  demands: PlanDemand[];
  /** The hosts as they are per hour; null when one is unpriced. */
  hourlyUsd: number | null;
  /** Why the group cannot be rebought, where it cannot. */
  fixed: string | null;
}

export type GroupOutcome = 'keep' | 'release' | 'move';

export interface MovingDemand {
  demand: PlanDemand;
  scope: string;
  types: readonly SupplyType[];
  fits: Fit[];
  rejected: Map<Rejection, SupplyType[]>;
  /** The GPU model picked in step 1, and the cost of buying for it alone there. */
  model: string;
  aloneHourlyUsd: number;
  /** The cheapest purchase for it alone on each model it fits. */
  alone: Map<string, Packing>;
}

export interface TargetPlan {
  outcomes: Map<string, GroupOutcome>;
  /** Packed bins by pool (scope and model), for the groups that move. */
  pools: Map<string, { model: string; scope: string; packing: Packing }>;
  moving: Map<string, MovingDemand>;
}

/** One replica on whole GPUs, or a GPU of MIG slices, as packing items for one model. */
function itemsOf(demands: readonly MovingDemand[], model: string): Item[] | undefined {
  const items: Item[] = [];
  const slices: { unit: string; profile: MigProfile; demand: MovingDemand }[] = [];
  for (const moving of demands) {
    const fits = moving.fits.filter((fit) => fit.type.instance.gpuModelKey === model);
    const whole = fits.filter((fit) => fit.slice === null);
    const sliced = fits.filter((fit) => fit.slice !== null);
    const name = moving.demand.unit.id;
    if (sliced.length > 0 && (whole.length === 0 || sliced[0]!.slice!.computeSlices < (migTableFor(model)?.computeSlicesTotal ?? 7))) {
      for (let replica = 0; replica < moving.demand.replicas; replica += 1) slices.push({ unit: `${name}\u0000${replica}`, profile: sliced[0]!.slice!, demand: moving });
      continue;
    }
    if (whole.length === 0) return undefined;
    const gpus = whole[0]!.gpus;
    const allowed = new Set(whole.filter((fit) => fit.gpus === gpus).map((fit) => fit.type));
    const sharing = moving.demand.sharing?.mode;
    for (let replica = 0; replica < moving.demand.replicas; replica += 1) {
      items.push({ key: `${name} #${replica + 1}`, demand: name, gpus, cpu: whole[0]!.cpu, memoryMiB: whole[0]!.memoryMiB, allowed, ...(sharing === undefined ? {} : { sharing }) });
    }
  }
  if (slices.length > 0) {
    const byUnit = new Map(slices.map((slice) => [slice.unit, slice]));
    for (const [index, gpu] of packProfiles(model, slices.map(({ unit, profile }) => ({ unit, profile }))).entries()) {
      const members = gpu.units.map((unit) => byUnit.get(unit)!);
      const allowed = members
        .map((member) => new Set(member.demand.fits.filter((fit) => fit.slice !== null && fit.type.instance.gpuModelKey === model).map((fit) => fit.type)))
        .reduce((common, set) => new Set([...common].filter((type) => set.has(type))));
      items.push({
        key: `${model} MIG GPU ${index + 1}: ${[...new Set(members.map((member) => member.demand.demand.unit.id))].join(', ')}`,
        demand: [...new Set(members.map((member) => member.demand.demand.unit.id))].join('\u0000'),
        gpus: 1,
        cpu: members.reduce((sum, member) => sum + (member.demand.demand.cpuPerReplica ?? 0), 0),
        memoryMiB: members.reduce((sum, member) => sum + (member.demand.demand.memoryPerReplicaMiB ?? 0), 0),
        allowed,
        profiles: gpu.profiles,
        slices: gpu.units.map((unit, position) => ({ workload: byUnit.get(unit)!.demand.demand.unit.id, profile: gpu.profiles[position]! })),
      });
    }
  }
  return items;
}

function packPool(demands: readonly MovingDemand[], model: string, types: readonly SupplyType[]): Packing | undefined {
  const items = itemsOf(demands, model);
  return items === undefined ? undefined : pack(items, types.filter((type) => type.instance.gpuModelKey === model));
}

/**
 * One replica on whole GPUs bought alone: the cheapest type of the model it fits (its requests
 * were checked with the fit), what packing one item comes to, without building the item.
 */
function cheapestFit(fits: readonly Fit[], model: string): Packing | undefined {
  let best: Fit | undefined;
  for (const fit of fits) {
    if (fit.slice !== null || fit.type.instance.gpuModelKey !== model) continue;
    if (best === undefined || fit.type.hourlyUsd < best.type.hourlyUsd) best = fit;
  }
  if (best === undefined) return undefined;
  return { bins: [{ type: best.type, freeGpus: best.type.instance.gpuCount - best.gpus, freeCpu: 0, freeMemoryMiB: 0, items: [] }], hourlyUsd: best.type.hourlyUsd };
}

/** Step 1: the cheapest model for a demand bought alone, its current model first on equal cost. */
export function movingDemand(demand: PlanDemand, scope: string, types: readonly SupplyType[]): MovingDemand | undefined {
  const { fits, rejected } = fitsOf(demand, types);
  const models = [...new Set(fits.map((fit) => fit.type.instance.gpuModelKey))];
  const alone = new Map<string, Packing>();
  const partial = { demand, scope, types, fits, rejected, model: '', aloneHourlyUsd: Number.POSITIVE_INFINITY, alone };
  for (const model of models) {
    const packing = demand.replicas === 1 && demand.slice === null ? cheapestFit(fits, model) : packPool([partial], model, types);
    if (packing !== undefined) alone.set(model, packing);
  }
  let best: [string, Packing] | undefined;
  for (const entry of alone) {
    const better = best === undefined || entry[1].hourlyUsd < best[1].hourlyUsd - 1e-9
      || (Math.abs(entry[1].hourlyUsd - best[1].hourlyUsd) <= 1e-9 && (entry[0] === demand.unit.modelKey || (best[0] !== demand.unit.modelKey && entry[0] < best[0])));
    if (better) best = entry;
  }
  if (best === undefined) return { ...partial, fits: [], model: '' };
  return { ...partial, model: best[0], aloneHourlyUsd: best[1].hourlyUsd };
}

/** Pairs that share a GPU pack only with pairs of the same mode: the node's plugin config is one for all its GPUs. */
function poolKey(moving: MovingDemand): string {
  return `${moving.scope}\u0000${moving.model}\u0000${moving.demand.sharing?.mode ?? 'exclusive'}`;
}

function packAll(moving: readonly MovingDemand[]): Map<string, { model: string; scope: string; packing: Packing }> {
  const byPool = new Map<string, MovingDemand[]>();
  // A pair is the moving demand of both its members: packed once.
  for (const demand of new Set(moving)) {
    const list = byPool.get(poolKey(demand)) ?? [];
    list.push(demand);
    byPool.set(poolKey(demand), list);
  }
  const pools = new Map<string, { model: string; scope: string; packing: Packing }>();
  for (const [key, members] of byPool) {
    const first = members[0]!;
    const packing = packPool(members, first.model, first.types);
    // Packed together they fit wherever each fits alone; should a joint packing fail, each is bought alone.
    pools.set(key, { model: first.model, scope: first.scope, packing: packing ?? combine(members.map((member) => packPool([member], member.model, member.types) ?? member.alone.get(member.model)!)) });
  }
  return pools;
}

function combine(packings: readonly Packing[]): Packing {
  return { bins: packings.flatMap((packing) => packing.bins), hourlyUsd: packings.reduce((sum, packing) => sum + packing.hourlyUsd, 0) };
}

function poolsCost(pools: ReadonlyMap<string, { packing: Packing }>): number {
  let total = 0;
  for (const pool of pools.values()) total += pool.packing.hourlyUsd;
  return total;
}

/** The packing without the items of `leaving`: bins keep their place, emptied bins go. */
function without(packing: Packing, leaving: ReadonlySet<string>): Packing {
  const bins: Bin[] = [];
  for (const bin of packing.bins) {
    const items = bin.items.filter((item) => !item.demand.split('\u0000').some((id) => leaving.has(id)));
    if (items.length === 0) continue;
    bins.push(items.length === bin.items.length ? bin : { ...bin, items });
  }
  return { bins, hourlyUsd: bins.reduce((sum, bin) => sum + bin.type.hourlyUsd, 0) };
}

/**
 * Steps 2 and 3. `moving` has every demand of every group that may move; a group of `fixed` is
 * kept, a group whose demands are all released is released.
 *
 * Keeping a group takes its items out of the pooled packing: the bins they alone filled are not
 * bought. A group is kept where that saves at least what the group costs, judged on the packing
 * as it stands (no repack per group, so a fleet of thousands of hosts is decided in one pass);
 * the pools of what moves are then packed again, and the new packing kept where it is cheaper.
 */
export function chooseTarget(groups: readonly HostGroup[], moving: ReadonlyMap<string, MovingDemand>): TargetPlan {
  const outcomes = new Map<string, GroupOutcome>();
  const candidates: HostGroup[] = [];
  for (const group of groups) {
    if (group.fixed !== null) outcomes.set(group.id, 'keep');
    else if (group.demands.every((demand) => demand.disposition.kind === 'release')) outcomes.set(group.id, 'release');
    else candidates.push(group);
  }
  const movers = (group: HostGroup): MovingDemand[] => group.demands.filter((demand) => demand.disposition.kind === 'move').map((demand) => moving.get(demand.unit.id)!);
  const pools = packAll(candidates.flatMap(movers));
  // Which candidate group each demand belongs to, and the bins each group's items sit in.
  const groupOf = new Map<string, HostGroup>();
  for (const group of candidates) for (const demand of group.demands) groupOf.set(demand.unit.id, group);
  const binsOfGroup = new Map<HostGroup, Set<Bin>>();
  for (const pool of pools.values()) {
    for (const bin of pool.packing.bins) {
      for (const item of bin.items) {
        for (const id of item.demand.split('\u0000')) {
          const group = groupOf.get(id)!;
          const set = binsOfGroup.get(group) ?? new Set<Bin>();
          set.add(bin);
          binsOfGroup.set(group, set);
        }
      }
    }
  }
  // A bin is bought while any group that moves has an item in it.
  const movingGroupsIn = new Map<Bin, number>();
  for (const set of binsOfGroup.values()) for (const bin of set) movingGroupsIn.set(bin, (movingGroupsIn.get(bin) ?? 0) + 1);
  const kept = new Set<string>();
  const dearestFirst = [...candidates].sort((a, b) => (b.hourlyUsd ?? 0) - (a.hourlyUsd ?? 0) || a.id.localeCompare(b.id));
  for (const group of dearestFirst) {
    const bins = binsOfGroup.get(group) ?? new Set<Bin>();
    let freed = 0;
    for (const bin of bins) if (movingGroupsIn.get(bin) === 1) freed += bin.type.hourlyUsd;
    if ((group.hourlyUsd ?? 0) <= freed + 1e-9) {
      outcomes.set(group.id, 'keep');
      for (const bin of bins) movingGroupsIn.set(bin, movingGroupsIn.get(bin)! - 1);
      for (const demand of group.demands) kept.add(demand.unit.id);
    } else {
      outcomes.set(group.id, 'move');
    }
  }
  const leaving = candidates.filter((group) => outcomes.get(group.id) === 'move');
  const rest = [...new Set(leaving.flatMap(movers))];
  const repacked = packAll(rest);
  const trimmed = new Map([...pools].map(([key, pool]) => [key, { ...pool, packing: without(pool.packing, kept) }] as const).filter(([, pool]) => pool.packing.bins.length > 0));
  const chosen = poolsCost(repacked) <= poolsCost(trimmed) + 1e-9 ? repacked : trimmed;
  // Instances shared by several moving groups are freed by none alone: should what is bought cost
  // more than the hosts it replaces, nothing moves.
  if (poolsCost(chosen) >= leaving.reduce((sum, group) => sum + (group.hourlyUsd ?? 0), 0) - 1e-9 && leaving.length > 0) {
    for (const group of leaving) outcomes.set(group.id, 'keep');
    return { outcomes, pools: new Map(), moving: new Map() };
  }
  return { outcomes, pools: chosen, moving: new Map(rest.flatMap((demand) => demand.demand.unit.id.split('\u0000').map((id) => [id, demand] as const))) };
}

/** Which bins each demand's items landed in. */
export function binsOfDemands(pools: TargetPlan['pools']): Map<string, Bin[]> {
  const result = new Map<string, Bin[]>();
  for (const pool of pools.values()) {
    for (const bin of pool.packing.bins) {
      for (const item of bin.items) {
        for (const demand of item.demand.split('\u0000')) {
          const list = result.get(demand) ?? [];
          if (!list.includes(bin)) list.push(bin);
          result.set(demand, list);
        }
      }
    }
  }
  return result;
}

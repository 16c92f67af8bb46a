/**
 * The fleet plan (docs/planner.md): the fleet as it runs and is paid for now, a target fleet
 * that serves every workload, each placed once, and the steps between them. Savings are the
 * difference between the two fleets and nothing else. Pure: the same report data and catalog
 * give the same plan.
 */
import { planCommitments } from './commitments.js';
import { spotPriceOf } from './spot.js';
import type { PlanInput, PlanOptions, PlanOutcome, PlanParts, TargetInstance, UnseenSaving } from './types.js';
import { type GpuEntry, type KubernetesPodEntry, type Placement, type PlanAlternative, type PlanInstance, type WorkloadEntry } from '../../model/index.js';
import { interconnectOf, migTableFor, type MigProfile } from '../../catalog/index.js';
import { demandUnitsFromGpus } from '../demand-units.js';
import { demandUnitsFromWorkloads } from '../workload-units.js';
import type { DemandUnit } from '../types.js';
import { money, round2 } from '../units.js';
import { hasSignal, planDemand, type PlanDemand } from './demand.js';
import { planFindings } from './findings.js';
import { currentHosts, type CurrentHost } from './hosts.js';
import type { Bin } from './pack.js';
import { planSteps, stepRecommendations } from './steps.js';
import { REJECTION_WORDS, supplyTypes, type Scope, type SupplyType } from './supply.js';
import { countedTypes, dollars, monthlyCents, usdPerHour } from './words.js';
import { devicePluginConfigName, SHARED_RESOURCE } from '../sharing/device-plugin.js';
import type { JointDemand } from './joint-demand.js';
import { pairForSharing, SHARING_REPLICAS, type Offer, type SharedPair } from './sharing.js';
import { binsOfDemands, chooseTarget, movingDemand, type HostGroup, type MovingDemand } from './target.js';

function unitsOf(input: PlanInput, options: PlanOptions): DemandUnit[] {
  return input.workloads.length === 0
    ? demandUnitsFromGpus(input.gpus, options.vramHeadroom)
    : demandUnitsFromWorkloads(input.workloads, input.definitions, input.gpus, options.vramHeadroom, input.serving ?? []);
}

function podsByGpu(pods: readonly KubernetesPodEntry[]): Map<string, KubernetesPodEntry[]> {
  const result = new Map<string, KubernetesPodEntry[]>();
  for (const pod of pods) {
    for (const id of pod.gpus) {
      const list = result.get(id) ?? [];
      list.push(pod);
      result.set(id, list);
    }
  }
  return result;
}

/** The host groups with those of each sharing pair's members joined into one. */
function joinGroups(groups: readonly HostGroup[], pairs: readonly SharedPair[]): HostGroup[] {
  if (pairs.length === 0) return [...groups];
  const root = new Map(groups.map((group) => [group, group]));
  const find = (group: HostGroup): HostGroup => {
    let top = group;
    while (root.get(top) !== top) top = root.get(top)!;
    return top;
  };
  const groupOfDemand = new Map(groups.flatMap((group) => group.demands.map((demand) => [demand.unit.id, group] as const)));
  for (const pair of pairs) {
    const [a, b] = pair.members.map((member) => find(groupOfDemand.get(member.unit.id)!));
    if (a !== b) root.set(b!, a!);
  }
  const members = new Map<HostGroup, HostGroup[]>();
  for (const group of groups) members.set(find(group), [...(members.get(find(group)) ?? []), group]);
  return [...members.values()].map((joined) => (joined.length === 1 ? joined[0]! : {
    id: joined.map((group) => group.id).join(', '),
    hosts: joined.flatMap((group) => group.hosts),
    demands: joined.flatMap((group) => group.demands),
    hourlyUsd: joined.every((group) => group.hourlyUsd !== null) ? joined.reduce((sum, group) => sum + group.hourlyUsd!, 0) : null,
    fixed: joined.map((group) => group.fixed).find((reason) => reason !== null) ?? null,
  }));
}

/** Host groups: hosts that share a workload, joined (union-find by host name). */
function hostGroups(hosts: readonly CurrentHost[], demands: readonly PlanDemand[]): HostGroup[] {
  const parent = new Map(hosts.map((host) => [host.host, host.host]));
  const find = (name: string): string => {
    let root = name;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(name, root);
    return root;
  };
  for (const demand of demands) {
    const [first, ...rest] = demand.hosts.filter((host) => parent.has(host));
    for (const other of rest) parent.set(find(other), find(first!));
  }
  const byRoot = new Map<string, { hosts: CurrentHost[]; demands: PlanDemand[] }>();
  for (const host of hosts) {
    const root = find(host.host);
    const group = byRoot.get(root) ?? { hosts: [], demands: [] };
    group.hosts.push(host);
    byRoot.set(root, group);
  }
  for (const demand of demands) {
    const host = demand.hosts.find((name) => parent.has(name));
    if (host !== undefined) byRoot.get(find(host))!.demands.push(demand);
  }
  return [...byRoot.values()].map(({ hosts: members, demands: held }) => {
    const priced = members.every((host) => host.hourlyUsd !== null);
    return {
      id: members.map((host) => host.host).join(', '),
      hosts: members,
      demands: held,
      hourlyUsd: priced ? members.reduce((sum, host) => sum + host.hourlyUsd!, 0) : null,
      fixed: fixedReason(members, held),
    };
  });
}

function fixedReason(hosts: readonly CurrentHost[], demands: readonly PlanDemand[]): string | null {
  const unpriced = hosts.find((host) => host.hourlyUsd === null);
  if (unpriced !== undefined) return `${unpriced.host}'s instance type is ${unpriced.instance === null ? 'unknown' : `${unpriced.instance.name}, without a price at this pricing model`}: name it (--instance-type, or hosts: in gpu-audit.yaml)`;
  const partial = hosts.find((host) => !host.fullyObserved);
  if (partial !== undefined) {
    return `${partial.host} is a ${partial.instance!.name} of ${partial.instance!.gpuCount} GPUs and the telemetry showed ${partial.observedGpus}: the instance is bought whole, and releasing it needs the others audited`;
  }
  const staying = demands.find((demand) => demand.disposition.kind === 'keep' || demand.disposition.kind === 'feed');
  if (staying !== undefined && staying.disposition.kind !== 'move' && staying.disposition.kind !== 'release') return `${staying.unit.label} stays: ${staying.disposition.reason}`;
  return null;
}

function scopeOf(host: CurrentHost | undefined, options: PlanOptions): Scope {
  return {
    providers: options.providers !== undefined && options.providers.length > 0 ? options.providers : host?.instance === undefined || host.instance === null ? undefined : [host.instance.provider],
    region: options.region ?? host?.instance?.region,
  };
}

const scopeKey = (scope: Scope): string => `${scope.providers?.join('+') ?? '*'}/${scope.region ?? '*'}`;

function rowKey(row: Omit<PlanInstance, 'count' | 'hosts' | 'observedGpus' | 'monthlyUsd'>): string {
  return [row.provider, row.region, row.instanceType, row.pricing, row.basis, row.hourlyUsd].join('\u0000');
}

/** Instances of one type, term and basis in one row. */
/** Instances of one type, term and basis in one row; `monthlyCents` per instance, null where unpriced. */
export function rowsOf(instances: readonly { row: Omit<PlanInstance, 'count' | 'hosts' | 'observedGpus' | 'monthlyUsd'>; host: string; observedGpus: number; monthlyCents: number | null }[]): PlanInstance[] {
  const rows = new Map<string, PlanInstance & { cents: number | null }>();
  for (const { row, host, observedGpus, monthlyCents } of instances) {
    const key = rowKey(row);
    const existing = rows.get(key);
    if (existing === undefined) rows.set(key, { ...row, count: 1, hosts: [host], observedGpus, monthlyUsd: null, cents: monthlyCents });
    else {
      existing.count += 1;
      existing.hosts.push(host);
      existing.observedGpus += observedGpus;
      existing.cents = existing.cents === null || monthlyCents === null ? null : existing.cents + monthlyCents;
    }
  }
  return [...rows.values()].map(({ cents, ...row }) => ({ ...row, monthlyUsd: cents === null ? null : dollars(cents) }));
}

function instanceFacts(type: SupplyType['instance'], hourlyUsd: number | null, pricing: string, basis: PlanInstance['basis']): Omit<PlanInstance, 'count' | 'hosts' | 'observedGpus' | 'monthlyUsd'> {
  return {
    provider: type.provider,
    region: type.region,
    instanceType: type.name,
    gpusPerInstance: type.gpuCount,
    gpuModelKey: type.gpuModelKey,
    gpuMemoryMiB: type.vramPerGpuMiB,
    vcpus: type.vcpus,
    memoryMiB: type.memoryGiB === null ? null : type.memoryGiB * 1024,
    interconnect: interconnectOf(type).kind,
    pricing,
    hourlyUsd,
    basis,
  };
}

function currentRows(hosts: readonly CurrentHost[], pricing: string): PlanInstance[] {
  return rowsOf(hosts.map((host) => ({
    row: host.instance === null
      ? { provider: null, region: null, instanceType: null, gpusPerInstance: host.observedGpus, gpuModelKey: host.modelKey, gpuMemoryMiB: null, vcpus: null, memoryMiB: null, interconnect: 'none' as const, pricing, hourlyUsd: null, basis: host.basis ?? 'inferred' }
      : instanceFacts(host.instance, host.hourlyUsd, pricing, host.basis ?? 'inferred'),
    host: host.host,
    observedGpus: host.observedGpus,
    monthlyCents: host.hourlyUsd === null ? null : monthlyCents(host.hourlyUsd),
  })));
}

export function targetRows(instances: readonly TargetInstance[], unpricedKept: readonly CurrentHost[], pricing: string): PlanInstance[] {
  return rowsOf([
    ...instances.map((instance) => ({
      row: instanceFacts(instance.type, instance.commitment?.hourlyUsd ?? instance.spot?.hourlyUsd ?? instance.hourlyUsd, instance.commitment?.term ?? (instance.spot === undefined ? pricing : 'spot'), instance.basis),
      host: instance.name,
      observedGpus: instance.observedGpus,
      monthlyCents: instanceMonthlyCents(instance),
    })),
    ...currentRows(unpricedKept, pricing).flatMap((row) => row.hosts.map((host) => ({ row: { ...row, basis: 'kept' as const }, host, observedGpus: row.observedGpus, monthlyCents: null }))),
  ]);
}

/** What a target instance costs a month: committed, all month at R; on spot, the expected cost for the hours it runs. */
export function instanceMonthlyCents(instance: TargetInstance): number {
  if (instance.commitment !== undefined) return monthlyCents(instance.commitment.hourlyUsd);
  return instance.spot === undefined ? monthlyCents(instance.hourlyUsd) : monthlyCents(instance.spot.hourlyUsd, instance.spot.runShare);
}

function fleetOf(instances: PlanInstance[], monthlyUsd: number): PlanOutcome['plan']['current'] {
  return {
    instances,
    instanceCount: instances.reduce((sum, row) => sum + row.count, 0),
    gpus: instances.reduce((sum, row) => sum + row.count * row.gpusPerInstance, 0),
    monthlyUsd,
  };
}

function sumMonthly(rows: readonly PlanInstance[]): number {
  return dollars(rows.reduce((sum, row) => sum + Math.round((row.monthlyUsd ?? 0) * 100), 0));
}

/** The reason a demand stays where it is although it could move: what was tried, and why nothing was better. */
function keptReason(moving: MovingDemand | undefined, group: HostGroup): string {
  if (moving === undefined) return 'kept as it is';
  const tried = moving.types.length;
  const failures = [...moving.rejected.entries()].map(([reason, types]) => `${types.length} ${REJECTION_WORDS[reason]}`);
  const cheapest = moving.alone.get(moving.model);
  const option = cheapest === undefined
    ? 'no type in scope holds it'
    : `the cheapest purchase for it alone, ${describeBins(cheapest.bins)} at ${usdPerHour(cheapest.hourlyUsd)}, saves nothing against keeping ${group.id} (${usdPerHour(group.hourlyUsd ?? 0)})`;
  return `kept: ${option}; ${tried} instance types tried in ${moving.scope}${failures.length > 0 ? ` (${failures.join(', ')})` : ''}`;
}

export function describeBins(bins: readonly { type: SupplyType }[]): string {
  return countedTypes(bins.map((bin) => bin.type.instance.name));
}

function gpusPerReplicaOf(definitions: PlanInput['definitions']): (workload: string) => number | undefined {
  const byName = new Map(definitions.map((definition) => [definition.name, definition.model?.gpusPerReplica]));
  return (workload) => byName.get(workload) ?? undefined;
}

/** The last sample of any GPU: what dated prices are aged against. */
function windowEndOf(gpus: readonly GpuEntry[]): string | null {
  let end = Number.NEGATIVE_INFINITY;
  for (const gpu of gpus) if (gpu.lastSeen !== null) end = Math.max(end, Date.parse(gpu.lastSeen));
  return Number.isFinite(end) ? new Date(end).toISOString() : null;
}

/** Of a workload's GPUs (MIG instances where it runs in them), those not idle the whole window. */
function usedGpusOf(gpus: readonly GpuEntry[], workloads: ReadonlyMap<string, WorkloadEntry>): (workload: string) => number | undefined {
  const byId = new Map(gpus.map((gpu) => [gpu.id, gpu]));
  return (workload) => {
    const held = workloads.get(workload)?.gpus.map((id) => byId.get(id)).filter((gpu): gpu is GpuEntry => gpu !== undefined);
    const inMig = held?.some((gpu) => gpu.parentId !== null) === true;
    const devices = held?.filter((gpu) => (gpu.parentId !== null) === inMig && gpu.migMode !== 'enabled');
    if (devices === undefined || devices.length === 0 || devices.some((gpu) => gpu.idleFraction === null)) return undefined;
    return devices.filter((gpu) => gpu.idleFraction! < 1).length;
  };
}

export function planFleet(input: PlanInput, options: PlanOptions): PlanOutcome {
  const units = unitsOf(input, options);
  const hosts = currentHosts(input.gpus, options.catalog, options.pricing, options.region);
  const hostOfGpu = new Map(input.gpus.map((gpu: GpuEntry) => [gpu.id, gpu.host]));
  const workloads = new Map<string, WorkloadEntry>(input.workloads.map((workload) => [workload.name, workload]));
  const context = {
    basis: options.basis,
    idleThresholdPct: options.idleThresholdPct,
    workloads,
    podsByGpu: podsByGpu(input.kubernetes?.pods ?? []),
    gpusPerReplicaOf: gpusPerReplicaOf(input.definitions),
    usedGpusOf: usedGpusOf(input.gpus, workloads),
  };
  const demands = units.map((unit) => planDemand(unit, [...new Set(unit.gpuIds.map((id) => hostOfGpu.get(id)).filter((host): host is string => host !== undefined))], context));
  const hostByName = new Map(hosts.map((host) => [host.host, host]));
  const seriesById = new Map(input.gpus.map((gpu) => [gpu.id, gpu.computeSeries ?? null]));

  // Supply per scope, searched once per scope.
  const supplyByScope = new Map<string, SupplyType[]>();
  const typesIn = (scope: Scope): SupplyType[] => {
    const key = scopeKey(scope);
    let types = supplyByScope.get(key);
    if (types === undefined) {
      types = supplyTypes(options.catalog, options.pricing, scope);
      supplyByScope.set(key, types);
    }
    return types;
  };

  const groups = hostGroups(hosts, demands);
  const unseen = unseenSavings(groups, hostByName, options, typesIn);
  const moving = new Map<string, MovingDemand>();
  for (const group of groups) {
    if (group.fixed !== null) continue;
    for (const demand of group.demands) {
      if (demand.disposition.kind !== 'move') continue;
      const scope = scopeOf(hostByName.get(demand.hosts[0] ?? ''), options);
      const found = movingDemand(demand, scopeKey(scope), typesIn(scope));
      if (found !== undefined) moving.set(demand.unit.id, found);
      if (found === undefined || found.model === '') group.fixed = `${demand.unit.label} fits no instance type in ${scopeKey(scope)}`;
    }
  }
  // Pairs that share a GPU move as one, with their host groups joined: bought and kept together.
  const sharing = pairForSharing({
    moving,
    seriesOf: (demand) => seriesById.get(demand.unit.gpuIds[0] ?? '') ?? null,
    typesOf: (found) => found.types,
    timeSliceMaxOverlapShare: options.timeSliceMaxOverlapShare,
    allowCrossTenantSharing: options.allowCrossTenantSharing,
    idleThresholdPct: options.idleThresholdPct,
  });
  const pooled = new Map(moving);
  for (const pair of sharing.pairs) for (const member of pair.members) pooled.set(member.unit.id, pair.moving);
  const planGroups = joinGroups(groups, sharing.pairs);
  const target = chooseTarget(planGroups, pooled);
  const binsOf = binsOfDemands(target.pools);

  // Target instances: kept hosts as they are, and the bins of the pools.
  const instances: TargetInstance[] = [];
  const unpricedKept: CurrentHost[] = [];
  const counters = new Map<string, number>();
  for (const group of planGroups) {
    if (target.outcomes.get(group.id) !== 'keep') continue;
    for (const host of group.hosts) {
      if (host.instance === null || host.hourlyUsd === null) unpricedKept.push(host);
      else instances.push({ name: host.host, type: host.instance, hourlyUsd: host.hourlyUsd, basis: 'kept', observedGpus: host.observedGpus, demands: group.demands.filter((demand) => demand.hosts.includes(host.host)), host });
    }
  }
  const demandById = new Map(demands.map((demand) => [demand.unit.id, demand]));
  for (const pool of [...target.pools.values()].sort((a, b) => a.model.localeCompare(b.model) || a.scope.localeCompare(b.scope))) {
    for (const bin of pool.packing.bins) {
      const number = (counters.get(bin.type.instance.name) ?? 0) + 1;
      counters.set(bin.type.instance.name, number);
      const held = [...new Set(bin.items.flatMap((item) => item.demand.split('\u0000')))].map((id) => demandById.get(id)!);
      instances.push({ name: `${bin.type.instance.name} #${number}`, type: bin.type.instance, hourlyUsd: bin.type.hourlyUsd, basis: 'planned', observedGpus: 0, demands: held, bin });
    }
  }
  if (options.pricing === 'on-demand') for (const instance of instances) instance.spot = spotPriceOf(instance, options);
  const commitments = planCommitments(instances, options);

  const groupOf = new Map(planGroups.flatMap((group) => group.demands.map((demand) => [demand, group] as const)));
  const nameOfBin = new Map(instances.flatMap((instance) => (instance.bin === undefined ? [] : [[instance.bin, instance.name] as const])));
  const placements = demands.map((demand) => placementOf(demand, groupOf.get(demand)!, target, moving, binsOf, nameOfBin));
  const alternatives = [...groupedAlternatives([...demands.flatMap((demand) => alternativesOf(demand, moving.get(demand.unit.id))), ...sharing.alternatives]), ...commitments.alternatives];
  const current = currentRows(hosts, options.pricing);
  const targetFleet = targetRows(instances, unpricedKept, options.pricing);
  const parts: PlanParts = { demands, groups: planGroups, target, instances, hosts, unseen, options, commitments: commitments.decisions, windowEnd: windowEndOf(input.gpus) };
  const steps = planSteps(parts, workloads);
  const currentMonthly = sumMonthly(current);
  const targetMonthly = sumMonthly(targetFleet);
  const plan = {
    basis: options.basis,
    current: fleetOf(current, currentMonthly),
    target: fleetOf(targetFleet, targetMonthly),
    monthlySavingsUsd: dollars(Math.round(currentMonthly * 100) - Math.round(targetMonthly * 100)),
    placements,
    steps,
    alternatives,
    notes: planNotes(hosts, options),
  };
  return { plan, findings: [...planFindings(parts, (workload) => workloads.get(workload)?.sidecars), ...sharing.findings], recommendations: stepRecommendations(steps) };
}

/**
 * For each group kept only because its hosts have GPUs the telemetry did not show: what buying
 * each of its workloads alone would save against the whole hosts, were those GPUs free. Never
 * counted in the plan; the partly-observed-host finding states it.
 */
function unseenSavings(groups: readonly HostGroup[], hostByName: ReadonlyMap<string, CurrentHost>, options: PlanOptions, typesIn: (scope: Scope) => SupplyType[]): Map<string, UnseenSaving> {
  const result = new Map<string, UnseenSaving>();
  for (const group of groups) {
    if (group.hourlyUsd === null || group.hosts.every((host) => host.fullyObserved)) continue;
    if (group.demands.length === 0 || group.demands.some((demand) => demand.disposition.kind !== 'move' && demand.disposition.kind !== 'release')) continue;
    const bins: Bin[] = [];
    let hourly = 0;
    for (const demand of group.demands) {
      if (demand.disposition.kind === 'release') continue;
      const scope = scopeOf(hostByName.get(demand.hosts[0] ?? ''), options);
      const found = movingDemand(demand, scopeKey(scope), typesIn(scope));
      const packing = found?.alone.get(found.model);
      if (packing === undefined) {
        hourly = Number.POSITIVE_INFINITY;
        break;
      }
      bins.push(...packing.bins);
      hourly += packing.hourlyUsd;
    }
    const cents = monthlyCents(group.hourlyUsd) - monthlyCents(hourly);
    if (!Number.isFinite(hourly) || cents <= 0) continue;
    result.set(group.id, { workloads: group.demands.map((demand) => demand.unit.id), to: bins.length === 0 ? 'nothing' : describeBins(bins), monthlySavingsUsd: dollars(cents) });
  }
  return result;
}

/** The share of a GPU a MIG slice is: its compute slices over the GPU's. */
function sliceShare(modelKey: string, slice: MigProfile): number {
  return slice.computeSlices / (migTableFor(modelKey)?.computeSlicesTotal ?? 7);
}

function placementOf(demand: PlanDemand, group: HostGroup, target: ReturnType<typeof chooseTarget>, considered: ReadonlyMap<string, MovingDemand>, binsOf: ReadonlyMap<string, Bin[]>, nameOfBin: ReadonlyMap<Bin, string>): Placement {
  const id = demand.unit.id;
  const outcome = target.outcomes.get(group.id)!;
  // A workload in MIG slices keeps the instances it used (a repartition step gives back the rest).
  const sliceGpus = demand.slice === null ? null : sliceShare(demand.unit.modelKey, demand.slice);
  const here = {
    instanceType: demand.unit.instanceType,
    host: demand.hosts.join(', ') || null,
    replicas: sliceGpus === null ? demand.currentReplicas : demand.replicas,
    gpusPerReplica: sliceGpus === null ? demand.unit.gpuCount / demand.currentReplicas : round2(sliceGpus),
    gpus: sliceGpus === null ? demand.unit.gpuCount : round2(sliceGpus * demand.replicas),
    migProfile: demand.slice?.name ?? null,
  };
  if (demand.disposition.kind === 'release' && outcome !== 'keep') {
    return { workload: id, action: 'release', instanceType: null, host: null, replicas: 0, gpusPerReplica: 0, gpus: 0, migProfile: null, reason: demand.disposition.reason };
  }
  if (outcome === 'keep' || outcome === 'release') {
    const action = demand.disposition.kind === 'feed' ? 'feed' : demand.disposition.kind === 'keep' ? 'not-enough-data' : 'keep';
    const reason = demand.disposition.kind === 'keep' || demand.disposition.kind === 'feed' || demand.disposition.kind === 'release'
      ? demand.disposition.reason
      : group.fixed ?? keptReason(considered.get(id), group);
    return { workload: id, action, ...here, reason };
  }
  const bins = binsOf.get(id) ?? [];
  const names = bins.map((bin) => nameOfBin.get(bin)!);
  const moving = target.moving.get(id)!;
  const item = bins[0]?.items.find((entry) => entry.demand.split('\u0000').includes(id));
  const fit = moving.fits.find((candidate) => candidate.type === bins[0]?.type && (item === undefined || item.gpus === candidate.gpus || candidate.slice !== null));
  const shared = moving.demand.sharing;
  const perReplica = fit?.slice != null
    ? round2(sliceShare(fit.type.instance.gpuModelKey, fit.slice))
    : shared !== undefined ? round2(1 / SHARING_REPLICAS) : (fit?.gpus ?? demand.gpusPerReplica);
  return {
    workload: id,
    action: 'move',
    instanceType: bins[0]?.type.instance.name ?? null,
    host: names.join(', '),
    replicas: demand.replicas,
    gpusPerReplica: perReplica,
    gpus: round2(perReplica * demand.replicas),
    migProfile: fit?.slice?.name ?? null,
    ...(shared === undefined ? {} : {
      sharing: {
        mode: shared.mode,
        with: shared.members.filter((member) => member.unit.id !== id).map((member) => member.unit.id),
        replicas: SHARING_REPLICAS,
        nodeConfig: devicePluginConfigName(shared.mode, SHARING_REPLICAS),
        resource: SHARED_RESOURCE,
      },
    }),
    reason: moveReason(demand, moving, bins),
  };
}

/** `joint p95 41% of one GPU, over it in 0.0% of 1-minute buckets`. */
export function sharingWords(joint: JointDemand): string {
  return `joint p95 ${joint.p95Pct.toFixed(0)}% of one GPU, over it in ${(joint.overShare * 100).toFixed(1)}% of ${joint.bucketSeconds / 60}-minute buckets`;
}

/** `peak 41.2 requests/s at 9.8 per GPU within the 800 ms p95 SLO (knee)`. */
function servingWords(demand: PlanDemand): string {
  const measured = demand.unit.serving!.measured!;
  return `peak ${round2(measured.peakPerSecond)} requests/s at ${round2(measured.capacityPerGpu!)} per GPU within the ${demand.unit.serving!.latencySloMs} ms p95 SLO, ${measured.capacityBasis}`;
}

function moveReason(demand: PlanDemand, moving: MovingDemand, bins: readonly Bin[]): string {
  const need = demand.need!;
  const vram = `${Math.round(demand.vramPerReplicaMiB! / 1024)} GiB per replica (${demand.unit.vram.basis})`;
  const compute = need.basis === 'measured'
    ? `compute at p95 ${demand.unit.compute.p95Pct}% of a ${demand.unit.modelKey} (${demand.unit.compute.basis})`
    : need.basis === 'declared'
      ? `the compute of the ${demand.unit.modelKey} its throughput was declared on`
      : need.basis === 'serving'
        ? `${hasSignal(demand.unit) ? `compute at p95 ${demand.unit.compute.p95Pct}% of a ${demand.unit.modelKey} (${demand.unit.compute.basis})` : `the compute of the ${demand.unit.modelKey}`} per replica at its servers' measured capacity (${servingWords(demand)})`
        : `up to the whole current ${demand.slice === null ? 'GPU' : `${demand.slice.name} slice`} (no compute signal said less)`;
  const unused = demand.unusedGpus > 0
    ? ` (${demand.unusedGpus} of its ${demand.unit.gpuCount} ${demand.slice === null ? 'GPUs' : 'MIG instances'} never ran: not carried over)`
    : '';
  const shared = moving.demand.sharing;
  const sharing = shared === undefined ? '' : `; shares one GPU with ${shared.members.filter((member) => member !== demand).map((member) => member.unit.label).join(', ')} by ${shared.mode} (${sharingWords(shared.joint)})`;
  return `needs ${vram} and ${compute}, ${demand.replicas} replica${demand.replicas === 1 ? '' : 's'}${unused}${sharing}; ${describeBins(bins)} holds it${bins.length > 0 && bins[0]!.items.length > 1 ? ' with other workloads' : ''} at the least cost found in ${moving.scope}`;
}

/** One alternative per option, price and reason, naming every workload it was considered for, in first-seen order. */
function groupedAlternatives(offers: readonly Offer[]): PlanAlternative[] {
  const grouped = new Map<string, PlanAlternative>();
  for (const offer of offers) {
    const key = [offer.option, offer.monthlyUsd, offer.reason].join('\u0000');
    const existing = grouped.get(key);
    if (existing === undefined) grouped.set(key, { workloads: [offer.workload], option: offer.option, monthlyUsd: offer.monthlyUsd, reason: offer.reason });
    else existing.workloads.push(offer.workload);
  }
  return [...grouped.values()];
}

/** Purchases on other GPU models, and cheaper types ruled out, listed per workload: each sort's cheapest. */
const ALTERNATIVES_SHOWN = 2;

/**
 * Per workload: the cheapest purchases on other GPU models, and for each reason a type was ruled
 * out, the cheapest such type that costs less than the one chosen. Outside the total.
 */
function alternativesOf(demand: PlanDemand, moving: MovingDemand | undefined): Offer[] {
  if (moving === undefined) return [];
  const chosen = moving.alone.get(moving.model);
  const others = [...moving.alone.entries()]
    .filter(([model]) => model !== moving.model)
    .sort((a, b) => a[1].hourlyUsd - b[1].hourlyUsd)
    .slice(0, ALTERNATIVES_SHOWN)
    .map(([model, packing]) => ({
      workload: demand.unit.id,
      option: `${describeBins(packing.bins)} (${model})`,
      monthlyUsd: dollars(monthlyCents(packing.hourlyUsd)),
      reason: chosen === undefined ? 'not chosen' : `costs ${money(dollars(monthlyCents(packing.hourlyUsd) - monthlyCents(chosen.hourlyUsd)))}/month more than ${describeBins(chosen.bins)} for it alone`,
    }));
  const ceiling = chosen?.hourlyUsd ?? Number.POSITIVE_INFINITY;
  // The cheapest type each reason ruled out, where it is cheaper than the choice: why not that one.
  const ruledOut = [...moving.rejected.entries()]
    .flatMap(([reason, types]) => types.filter((type) => type.hourlyUsd < ceiling - 1e-9).slice(0, 1).map((type) => ({ reason, type })))
    .sort((a, b) => a.type.hourlyUsd - b.type.hourlyUsd || a.type.instance.name.localeCompare(b.type.instance.name))
    .slice(0, ALTERNATIVES_SHOWN)
    .map(({ reason, type }) => ({
      workload: demand.unit.id,
      option: `1 x ${type.instance.name} (${type.instance.gpuModelKey})`,
      monthlyUsd: dollars(monthlyCents(type.hourlyUsd)),
      reason: `ruled out: ${REJECTION_WORDS[reason]}`,
    }));
  return [...others, ...ruledOut];
}

function planNotes(hosts: readonly CurrentHost[], options: PlanOptions): string[] {
  const notes = [
    `Basis: ${options.basis} demand${options.basis === 'observed' ? ' (the telemetry; gpu-audit.yaml declarations that disagree by more than 2x are findings)' : ' (gpu-audit.yaml declared peak and throughput, where declared)'}.`,
    'Instances are bought whole: a host is released only when every workload on it moves or is released, and only when the telemetry showed all the GPUs of its known type (an inferred type is sized on the GPUs shown).',
    'Commitments are decided per instance type against what the plan would otherwise pay for each instance (on-demand all month, or spot\'s expected cost for the hours it runs): reserved instances in whole instances, savings plans in $/h; where no commitment price is known, the break-even discount is listed under alternatives.',
  ];
  const inferred = hosts.filter((host) => host.basis === 'inferred' && host.instance !== null && host.instance.gpuCount > host.observedGpus);
  if (inferred.length > 0) {
    notes.push(`Inferred types holding more GPUs than were seen, priced whole: ${inferred.map((host) => `${host.host} as ${host.instance!.name} (${host.observedGpus} of ${host.instance!.gpuCount} GPUs)`).join('; ')}. Name the real type with --instance-type or hosts: in gpu-audit.yaml.`);
  }
  return notes;
}

/**
 * Grouping units to share one GPU (time-slicing, MPS): first-fit decreasing by required VRAM
 * over units on the same GPU model, under a strategy's admission rule. Tenant isolation is
 * decided here once for both strategies: units of different known tenants never share unless
 * the config allows it; an unknown tenant is not a different tenant, but the risk says so.
 */
import type { DemandUnit } from '../types.js';

export interface ShareGroup {
  modelKey: string;
  members: DemandUnit[];
}

export type Admission = (members: readonly DemandUnit[], candidate: DemandUnit) => boolean;

/**
 * Whether a group can take no further unit of the pool whatever it is (e.g. its members alone
 * exceed a limit no unit can bring them back under). Such groups are set aside so that later
 * units are not tested against them: it must only say true where the admission would refuse
 * every unit of the pool, so the groups come out as without it.
 */
export type Closed = (members: readonly DemandUnit[]) => boolean;

export function tenantsConflict(members: readonly DemandUnit[], candidate: DemandUnit): boolean {
  if (candidate.tenant === null) return false;
  return members.some((member) => member.tenant !== null && member.tenant !== candidate.tenant);
}

/** Units that can be considered for sharing a whole GPU: priced, sized, busy at some point, not MIG. */
export function shareable(unit: DemandUnit): boolean {
  return unit.migProfile === null && unit.gpuCount === 1 && unit.hourlyUsdPerGpu !== null && unit.vram.requiredMiB !== null && unit.compute.busyFraction !== 0;
}

export function groupUnits(units: readonly DemandUnit[], admit: Admission, allowCrossTenant: boolean, closed: Closed = () => false): ShareGroup[] {
  const ordered = [...units].sort((a, b) => (b.vram.requiredMiB ?? 0) - (a.vram.requiredMiB ?? 0) || a.id.localeCompare(b.id));
  const groups: ShareGroup[] = [];
  // Groups of other GPU models never take a unit, nor do closed groups: each unit is tried
  // against its model's open groups only, in creation order, which is the order a scan of all
  // groups would meet them in.
  const openByModel = new Map<string, ShareGroup[]>();
  for (const unit of ordered) {
    let open = openByModel.get(unit.modelKey);
    if (open === undefined) {
      open = [];
      openByModel.set(unit.modelKey, open);
    }
    const position = open.findIndex((candidate) => (allowCrossTenant || !tenantsConflict(candidate.members, unit)) && admit(candidate.members, unit));
    const group = open[position];
    if (group === undefined) {
      const created = { modelKey: unit.modelKey, members: [unit] };
      groups.push(created);
      if (!closed(created.members)) open.push(created);
    } else {
      group.members.push(unit);
      if (closed(group.members)) open.splice(position, 1);
    }
  }
  return groups.filter((group) => group.members.length > 1);
}

/**
 * Pairs of units the tenant rule kept apart although the strategy's rule would have admitted
 * them, in input order (left before right). Only units of one GPU model with two different
 * known tenants can be such a pair, so each unit is paired with the later units of its model.
 */
export function tenantBlockedPairs(units: readonly DemandUnit[], admit: Admission): [DemandUnit, DemandUnit][] {
  const byModel = new Map<string, DemandUnit[]>();
  for (const unit of units) {
    if (unit.tenant === null) continue;
    const sameModel = byModel.get(unit.modelKey);
    if (sameModel === undefined) byModel.set(unit.modelKey, [unit]);
    else sameModel.push(unit);
  }
  const seenOfModel = new Map<string, number>();
  const pairs: [DemandUnit, DemandUnit][] = [];
  for (const left of units) {
    if (left.tenant === null) continue;
    const position = seenOfModel.get(left.modelKey) ?? 0;
    seenOfModel.set(left.modelKey, position + 1);
    const sameModel = byModel.get(left.modelKey)!;
    for (let next = position + 1; next < sameModel.length; next += 1) {
      const right = sameModel[next]!;
      if (left.tenant !== right.tenant && admit([left], right)) pairs.push([left, right]);
    }
  }
  return pairs;
}

export function tenantsOf(members: readonly DemandUnit[]): string {
  const tenants = [...new Set(members.map((member) => member.tenant ?? 'unknown'))];
  return tenants.join(', ');
}

export const ISOLATION_RISK = 'no memory or fault isolation: one client running out of memory or crashing the GPU context hurts the others';
export const UNKNOWN_TENANT_RISK = 'the tenants of these workloads are unknown: declare `tenant` in gpu-audit.yaml; workloads of different tenants must not share this way (use MIG)';

/** Preallocating servers take a fraction of the memory they see: that fraction must be set anew. */
export function preallocationRisk(members: readonly DemandUnit[]): string[] {
  return members.some((unit) => unit.vram.basis === 'upper-bound' || unit.vram.preallocating === true)
    ? ['preallocating servers (vLLM, TGI) size their memory as a fraction of the GPU they see: set it (e.g. --gpu-memory-utilization) for the share each gets, or they fail to start']
    : [];
}

/** Members on different hosts: sharing one GPU moves some of them. */
export function hostsRisk(members: readonly DemandUnit[]): string[] {
  const hosts = [...new Set(members.map((unit) => unit.host).filter((host) => host !== null))];
  return hosts.length > 1 ? [`the workloads run on ${hosts.length} hosts (${hosts.join(', ')}) now: all but one move`] : [];
}

/**
 * MPS co-location: units whose summed VRAM fits one GPU of their model and whose summed p95
 * compute stays at or below `mpsComputeLimitPct` of it share that GPU through CUDA MPS; the
 * other GPUs are freed.
 *
 * Needs: vram.requiredMiB, compute.p95Pct (a real compute figure: a processes-only basis says
 * nothing about how much of the GPU a client uses), memoryTotalMiB, tenant, hourlyUsdPerGpu.
 *
 * The NVIDIA device plugin's MPS sharing splits memory and threads evenly between replicas, so
 * every client must also fit total / replicas. The per-client limits are given for hosts
 * outside Kubernetes (nvidia-cuda-mps-control) as well.
 */
import { HOURS_PER_MONTH } from '../../model/index.js';
import { stringify } from 'yaml';
import type { Recommendation } from '../../model/index.js';
import { gpuName } from '../candidates.js';
import { confidenceOf, weaknessesOf } from '../confidence.js';
import { type DemandUnit, type RecommendOptions, type StrategyResult } from '../types.js';
import { money, round2 } from '../units.js';
import { groupUnits, hostsRisk, ISOLATION_RISK, preallocationRisk, shareable, tenantBlockedPairs, tenantsOf, UNKNOWN_TENANT_RISK, type Admission, type Closed } from './grouping.js';

function admission(limitPct: number): Admission {
  // Loops rather than a joined array: first-fit asks this of every open group for every unit.
  return (members, candidate) => {
    const total = candidate.memoryTotalMiB;
    if (total === null) return false;
    const perReplica = Math.floor(total / (members.length + 1));
    if ((candidate.vram.requiredMiB ?? Infinity) > perReplica) return false;
    // Summed in the order of the members, then the candidate: the same float whatever the check order.
    let compute = 0;
    for (const member of members) {
      if ((member.vram.requiredMiB ?? Infinity) > perReplica) return false;
      compute += member.compute.p95Pct ?? Infinity;
    }
    compute += candidate.compute.p95Pct ?? Infinity;
    return compute <= limitPct;
  };
}

/**
 * A group whose summed p95 compute is over the limit takes no further client: compute figures
 * are never negative, so adding one cannot bring the sum back under (checked on the pool, as
 * the closed-group rule of groupUnits requires).
 */
function closedGroups(pool: readonly DemandUnit[], limitPct: number): Closed {
  if (!pool.every((unit) => unit.compute.p95Pct !== null && unit.compute.p95Pct >= 0)) return () => false;
  return (members) => members.reduce((sum, unit) => sum + unit.compute.p95Pct!, 0) > limitPct;
}

function eligible(unit: DemandUnit): boolean {
  return shareable(unit) && unit.compute.p95Pct !== null && (unit.compute.basis === 'sm-active' || unit.compute.basis === 'gr-engine-active' || unit.compute.basis === 'utilization');
}

/** Device plugin `sharing.mps` config and each client's limits, as YAML documents. */
export function mpsConfig(members: readonly DemandUnit[], totalMiB: number): string {
  const replicas = members.length;
  const threadPct = Math.floor(100 / replicas);
  const plugin = { version: 'v1', sharing: { mps: { resources: [{ name: 'nvidia.com/gpu', replicas }] } } };
  const clients = {
    clients: members.map((unit) => ({
      workload: unit.id,
      env: {
        CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: String(threadPct),
        CUDA_MPS_PINNED_DEVICE_MEM_LIMIT: `0=${Math.min(Math.floor(totalMiB / replicas), Math.max(unit.vram.requiredMiB ?? 0, unit.vram.peakMiB ?? 0))}M`,
      },
    })),
  };
  return [
    '# NVIDIA k8s-device-plugin config: one GPU advertised as N MPS replicas (memory and threads split evenly)',
    stringify(plugin).trimEnd(),
    '---',
    '# Per-client limits for MPS outside Kubernetes (environment of each client process)',
    stringify(clients).trimEnd(),
    '',
  ].join('\n');
}

export function mps(units: readonly DemandUnit[], options: RecommendOptions): StrategyResult {
  const result: StrategyResult = { recommendations: [], notEnoughData: [] };
  const candidates = units.filter(shareable);
  for (const unit of candidates.filter((candidate) => !eligible(candidate))) {
    result.notEnoughData.push({ strategy: 'mps', targets: [unit.id], reason: `no compute figure to bound an MPS client (basis ${unit.compute.basis})` });
  }
  const admit = admission(options.mpsComputeLimitPct);
  const pool = candidates.filter(eligible);
  if (!options.allowCrossTenantSharing) {
    for (const [left, right] of tenantBlockedPairs(pool, admit)) {
      result.notEnoughData.push({
        strategy: 'mps',
        targets: [left.id, right.id],
        declined: true,
        reason: `tenants ${left.tenant} and ${right.tenant} differ: MPS gives no memory or fault isolation, so they are not co-located (MIG would isolate them)`,
      });
    }
  }
  for (const group of groupUnits(pool, admit, options.allowCrossTenantSharing, closedGroups(pool, options.mpsComputeLimitPct))) {
    result.recommendations.push(recommendationFor(group.members, options));
  }
  return result;
}

function recommendationFor(members: readonly DemandUnit[], options: RecommendOptions): Recommendation {
  const first = members[0]!;
  const totalMiB = first.memoryTotalMiB!;
  const perGpu = first.hourlyUsdPerGpu!;
  const freed = members.length - 1;
  const vramSum = members.reduce((sum, unit) => sum + unit.vram.requiredMiB!, 0);
  const computeSum = members.reduce((sum, unit) => sum + unit.compute.p95Pct!, 0);
  const reasons = weaknessesOf(members, options, { vram: true, compute: true });
  const unknownTenant = members.some((unit) => unit.tenant === null);
  return {
    id: `mps:${members.map((unit) => unit.id).join('+')}`,
    kind: 'mps',
    targets: members.map((unit) => unit.id),
    current: `${members.length} x ${gpuName(first.modelKey)}, one workload each (${money(perGpu * members.length)}/h)`,
    proposed: `1 x ${gpuName(first.modelKey)} shared through MPS by ${members.length} clients (${money(perGpu)}/h)`,
    monthlySavingsUsd: round2(freed * perGpu * HOURS_PER_MONTH),
    confidence: confidenceOf(reasons),
    confidenceReasons: reasons,
    risks: [
      ISOLATION_RISK,
      'clients contend for SMs when their bursts coincide: latency of each rises under joint load',
      ...preallocationRisk(members),
      ...hostsRisk(members),
      ...(unknownTenant ? [UNKNOWN_TENANT_RISK] : [`tenants: ${tenantsOf(members)}`]),
    ],
    rationale: `Together they need ${Math.round(vramSum / 1024)} GiB of ${Math.round(totalMiB / 1024)} GiB and at p95 ${round2(computeSum)}% of one GPU (limit ${options.mpsComputeLimitPct}%): one GPU serves both, ${freed} GPU${freed === 1 ? ' is' : 's are'} freed.`,
    evidence: {
      clients: members.length,
      requiredVramMiBSum: vramSum,
      gpuVramMiB: totalMiB,
      vramPerReplicaMiB: Math.floor(totalMiB / members.length),
      computeP95PctSum: round2(computeSum),
      computeLimitPct: options.mpsComputeLimitPct,
      computeBasis: first.compute.basis,
      gpusFreed: freed,
      tenants: tenantsOf(members),
    },
    config: { format: 'yaml', text: mpsConfig(members, totalMiB) },
  };
}

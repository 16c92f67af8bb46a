/**
 * Findings the plan raises, each with its figures (docs/planner.md, "Findings"):
 * - declared-vs-observed: gpu-audit.yaml's declared peak and throughput need more than twice,
 *   or less than half, the GPUs the observed p95 amounts to; the plan keeps one basis;
 * - cpu-bound-pipeline: a GPU waits on its CPU pipeline (the plan feeds it, never shrinks it);
 * - sidecar-overhead: sidecars take a large share of the workload's cost;
 * - partly-observed-host: a host's type holds more GPUs than the telemetry showed;
 * - not-enough-data: a workload the plan keeps for want of data, and why;
 * - spot-blocked: checkpointed jobs kept off spot by a service (or an undeclared job) beside them;
 * - no-checkpoint-on-spot-candidate: training that cannot use spot without checkpoints.
 */
import type { Finding } from '../../model/index.js';
import { checkpointFindings } from '../purchase.js';
import { money, round2 } from '../units.js';
import { DEFAULT_POOL_HEADROOM } from '../pool.js';
import { autoscaleGaps } from './autoscale.js';
import { SIDECAR_OVERHEAD_STEP_PCT } from './steps.js';
import { inUse, type PlanDemand } from './demand.js';
import { spotBlockers, spotPriceOf } from './spot.js';
import type { PlanParts, UnseenSaving } from './types.js';
import { dollars, monthlyCents } from './words.js';

/** Declared and observed demand this many times apart (either way) are a finding. */
export const DECLARED_OBSERVED_RATIO = 2;

function declaredVsObserved(parts: PlanParts): Finding[] {
  const findings: Finding[] = [];
  for (const demand of parts.demands) {
    const declared = demand.declared;
    // The servers' measured peak and capacity are the better evidence: the GPUs' p95 only where they are missing.
    const measured = demand.measured;
    const observed = measured?.needGpus ?? demand.observedNeedGpus;
    if (declared === null || observed === null) continue;
    const ratio = observed <= 0 ? Number.POSITIVE_INFINITY : Math.max(declared.needGpus / observed, observed / declared.needGpus);
    if (ratio <= DECLARED_OBSERVED_RATIO) continue;
    const unit = demand.unit;
    const serving = unit.serving!;
    const seen = measured === null
      ? `the ${unit.gpuCount} GPU${unit.gpuCount === 1 ? '' : 's'} ran at ${unit.compute.meanPct?.toFixed(1) ?? '?'}% mean and ${unit.compute.p95Pct?.toFixed(1) ?? '?'}% p95 (${round2(observed)} GPUs at p95)`
      : `its servers measured a peak of ${round2(serving.measured!.peakPerSecond)} requests/s at ${round2(serving.measured!.capacityPerGpu!)} per GPU within the SLO (${round2(observed)} GPUs at peak)`;
    const basis = parts.options.basis === 'declared' ? 'declared' : measured === null ? 'observed' : 'measured';
    findings.push({
      id: `declared-vs-observed:${unit.id}`,
      code: 'declared-vs-observed',
      severity: 'warning',
      target: unit.id,
      message: `The declared peak (${serving.peakDemandPerSecond} ${serving.unit ?? 'requests/s'} at ${serving.perGpuThroughputPerSecond} per GPU) needs ${declared.replicas} GPU${declared.replicas === 1 ? '' : 's'} with headroom, while ${seen}: the plan uses the ${basis} demand.`,
      evidence: {
        declaredGpus: round2(declared.needGpus),
        declaredReplicas: declared.replicas,
        ...(measured === null
          ? { observedGpusAtP95: round2(observed), meanPct: unit.compute.meanPct, p95Pct: unit.compute.p95Pct, computeBasis: unit.compute.basis }
          : { measuredGpusAtPeak: round2(observed), measuredReplicas: measured.replicas, measuredPeakRequestsPerSecond: round2(serving.measured!.peakPerSecond), measuredCapacityPerGpu: round2(serving.measured!.capacityPerGpu!) }),
        planBasis: parts.options.basis,
      },
    });
  }
  return findings;
}

/** A pool with more replicas than its measured peak needs at its measured capacity, with headroom. */
function overprovisionedPools(parts: PlanParts): Finding[] {
  return parts.demands.flatMap((demand) => {
    const measured = demand.measured;
    const pool = demand.unit.serving?.measured;
    if (measured === null || pool == null || demand.currentReplicas <= measured.replicas) return [];
    const unit = demand.unit;
    return [{
      id: `overprovisioned-pool:${unit.id}`,
      code: 'overprovisioned-pool' as const,
      severity: 'warning' as const,
      target: unit.id,
      message: `${unit.label} runs ${demand.currentReplicas} replicas; its measured peak of ${round2(pool.peakPerSecond)} requests/s needs ${measured.replicas} at ${round2(pool.capacityPerGpu!)} requests/s per GPU within the ${unit.serving!.latencySloMs} ms SLO, with ${Math.round(DEFAULT_POOL_HEADROOM * 100)}% headroom (capacity ${pool.capacityBasis}).`,
      evidence: {
        currentReplicas: demand.currentReplicas,
        neededReplicas: measured.replicas,
        gpusPerReplica: demand.gpusPerReplica,
        peakRequestsPerSecond: round2(pool.peakPerSecond),
        capacityRequestsPerSecondPerGpu: round2(pool.capacityPerGpu!),
        capacityBasis: pool.capacityBasis,
        headroom: DEFAULT_POOL_HEADROOM,
      },
    }];
  });
}

function pipelineFindings(parts: PlanParts): Finding[] {
  return parts.demands.flatMap((demand) => {
    if (demand.disposition.kind !== 'feed') return [];
    const feed = demand.disposition;
    return [{
      id: `cpu-bound-pipeline:${demand.unit.id}`,
      code: 'cpu-bound-pipeline' as const,
      severity: 'warning' as const,
      target: demand.unit.id,
      message: `${demand.unit.label} waits on its CPU input pipeline (${feed.reason.replace(/^input-bound: /u, '')}); feed it${feed.coresNeeded === null ? '' : ` with about ${feed.coresNeeded} cores`} before resizing its GPU.`,
      evidence: {
        gpuBusyPct: feed.figures?.gpuBusyPct ?? null,
        hostCpuBusyFraction: feed.figures?.hostCpuBusyFraction ?? null,
        hostCores: feed.figures?.hostCores ?? null,
        containerThrottledFraction: feed.figures?.containerThrottledFraction ?? null,
        coresUsed: feed.coresUsed === null ? null : round2(feed.coresUsed),
        coresNeeded: feed.coresNeeded,
      },
    }];
  });
}

function sidecarFindings(parts: PlanParts, overheadOf: (workload: string) => { overheadPct: number | null; cpuCores: number | null; memoryMiB: number | null } | undefined): Finding[] {
  return parts.demands.flatMap((demand) => {
    const sidecars = overheadOf(demand.unit.id);
    if (sidecars?.overheadPct == null || sidecars.overheadPct < SIDECAR_OVERHEAD_STEP_PCT) return [];
    return [{
      id: `sidecar-overhead:${demand.unit.id}`,
      code: 'sidecar-overhead' as const,
      severity: 'info' as const,
      target: demand.unit.id,
      message: `Sidecars of ${demand.unit.label} cost ${sidecars.overheadPct.toFixed(0)}% of the workload (${sidecars.cpuCores ?? '?'} cores, ${sidecars.memoryMiB ?? '?'} MiB requested).`,
      evidence: { overheadPct: round2(sidecars.overheadPct), cpuCores: sidecars.cpuCores, memoryMiB: sidecars.memoryMiB },
    }];
  });
}

function hostFindings(parts: PlanParts): Finding[] {
  return parts.hosts.filter((host) => !host.fullyObserved && host.instance !== null).map((host) => ({
    id: `partly-observed-host:${host.host}`,
    code: 'partly-observed-host' as const,
    severity: 'info' as const,
    target: host.host,
    message: partlyObservedMessage(host, unseenOf(parts, host.host)),
    evidence: {
      instanceType: host.instance!.name,
      instanceTypeBasis: host.basis,
      gpusPerInstance: host.instance!.gpuCount,
      observedGpus: host.observedGpus,
      monthlySavingsIfUnseenFreeUsd: unseenOf(parts, host.host)?.monthlySavingsUsd ?? null,
    },
  }));
}

function unseenOf(parts: PlanParts, host: string): UnseenSaving | undefined {
  const group = parts.groups.find((candidate) => candidate.hosts.some((member) => member.host === host));
  return group === undefined ? undefined : parts.unseen.get(group.id);
}

function partlyObservedMessage(host: PlanParts['hosts'][number], unseen: UnseenSaving | undefined): string {
  const unseenGpus = host.instance!.gpuCount - host.observedGpus;
  const head = `${host.host} is a ${host.instance!.name} (${host.basis}) of ${host.instance!.gpuCount} GPUs; the telemetry showed ${host.observedGpus}. It is bought whole, so the plan keeps it`;
  if (unseen === undefined) return `${head}: audit the other ${unseenGpus} GPUs to plan for the whole instance.`;
  return `${head}. Were its ${unseenGpus} unseen GPUs free, moving ${unseen.workloads.join(', ')} to ${unseen.to} and releasing it would save ${money(unseen.monthlySavingsUsd)}/month (not counted): audit them, or name the real instance type.`;
}

function notEnoughData(parts: PlanParts): Finding[] {
  return parts.demands.flatMap((demand) => {
    if (demand.disposition.kind !== 'keep') return [];
    return [{
      id: `not-enough-data:${demand.unit.id}`,
      code: 'not-enough-data' as const,
      severity: 'info' as const,
      target: demand.unit.id,
      message: `Kept as it is: ${demand.disposition.reason.replace(/^not enough data: /u, '')}.`,
      evidence: { placement: 'not-enough-data' },
    }];
  });
}

/** Checkpointed jobs kept off spot by what runs beside them, and what spot would save them. */
function spotBlocked(parts: PlanParts): Finding[] {
  return parts.instances.flatMap((instance) => {
    const blockers = spotBlockers(instance);
    if (blockers.length === 0) return [];
    const ready = inUse(instance.demands).filter((demand) => !blockers.includes(demand));
    const alone = spotPriceOf({ ...instance, demands: ready }, parts.options);
    if (alone === undefined) return [];
    const saving = dollars(monthlyCents(instance.hourlyUsd) - monthlyCents(alone.hourlyUsd, alone.runShare));
    const why = (demand: PlanDemand): string => `${demand.unit.label} (${demand.unit.kind}${demand.unit.kind === 'training' || demand.unit.kind === 'batch' ? ', no checkpoint declared' : ', must run at any hour'})`;
    return [{
      id: `spot-blocked:${instance.name}`,
      code: 'spot-blocked' as const,
      severity: 'info' as const,
      target: instance.name,
      message: `${ready.map((demand) => demand.unit.label).join(', ')} could take ${instance.name} on spot while ${ready.length === 1 ? 'it runs' : 'they run'}, but ${blockers.map(why).join(', ')} run${blockers.length === 1 ? 's' : ''} beside: on an instance of their own, spot would save up to ${money(saving)}/month on this one (not counted).`,
      evidence: { instanceType: instance.type.name, blockers: blockers.map((demand) => demand.unit.id).join(', '), spotReady: ready.map((demand) => demand.unit.id).join(', '), upToMonthlyUsd: saving },
    }];
  });
}

export function planFindings(parts: PlanParts, overheadOf: (workload: string) => { overheadPct: number | null; cpuCores: number | null; memoryMiB: number | null } | undefined): Finding[] {
  return [
    ...declaredVsObserved(parts),
    ...overprovisionedPools(parts),
    ...autoscaleGaps(parts),
    ...pipelineFindings(parts),
    ...sidecarFindings(parts, overheadOf),
    ...hostFindings(parts),
    ...notEnoughData(parts),
    ...spotBlocked(parts),
    ...checkpointFindings(parts.demands.map((demand) => demand.unit)),
  ];
}

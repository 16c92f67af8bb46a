/**
 * What each workload needs of the target fleet (docs/planner.md, "Demand"), each figure with its
 * basis: replicas of some GPUs each; the VRAM and compute one replica needs; the CPU and memory
 * its pods request; whether a replica split over several GPUs needs NVLink. And what the plan
 * must do with it before any sizing: release it (idle the whole window), feed it (its GPU waits
 * on its CPU pipeline: a smaller GPU would not help) or keep it (too little data to judge).
 */
import { gpuSpecByKey, migProfileFor, migTableFor, type MigProfile } from '../../catalog/index.js';
import type { KubernetesPodEntry, PipelineFigures, WorkloadEntry } from '../../model/index.js';
import { ceilTolerant, DEFAULT_POOL_HEADROOM } from '../pool.js';
import type { SharingMode } from '../sharing/device-plugin.js';
import type { JointDemand } from './joint-demand.js';
import type { DemandUnit } from '../types.js';

export type PlanBasis = 'observed' | 'declared';

/** Compute one replica needs, in absolute terms a candidate GPU is compared with. */
export interface ComputeNeed {
  /** BF16 dense TFLOPS; null when not a constraint (memory-bound) or unknown for the GPU. */
  tflops: number | null;
  bandwidthGBps: number | null;
  /** measured: p95 of the compute signal; upper-bound: the whole current GPU (or slice), no signal said less; declared: the GPU the declared throughput was measured on; serving: the GPU the servers' capacity was measured on. */
  basis: 'measured' | 'upper-bound' | 'declared' | 'serving';
}

export type Disposition =
  | { kind: 'move' }
  | { kind: 'release'; reason: string }
  | { kind: 'keep'; reason: string }
  | { kind: 'feed'; reason: string; coresUsed: number | null; coresNeeded: number | null; figures: PipelineFigures | null };

export interface PlanDemand {
  unit: DemandUnit;
  hosts: string[];
  disposition: Disposition;
  /** Replicas the target serves, by the plan's basis. */
  replicas: number;
  currentReplicas: number;
  /** Whole GPUs one replica needs: a job's, those it ran on. */
  gpusPerReplica: number;
  /** GPUs (or MIG instances) it holds that never ran in the window: not carried over. */
  unusedGpus: number;
  /** fixed: a job keeps its GPUs per replica (data parallel, a notebook); split: a model may be split over more or fewer GPUs (tensor parallel). */
  shape: 'fixed' | 'split';
  /** VRAM one GPU of a fixed replica needs, and one replica needs in all. */
  vramPerGpuMiB: number | null;
  vramPerReplicaMiB: number | null;
  need: ComputeNeed | null;
  /** A replica over several GPUs of a training job needs NVLink, as any tensor-parallel split does. */
  nvlinkWhenSplit: boolean;
  /** CPU and memory one replica's pods request; null where no pod is known. */
  cpuPerReplica: number | null;
  memoryPerReplicaMiB: number | null;
  /** The MIG slice it runs in now. */
  slice: MigProfile | null;
  declared: { replicas: number; needGpus: number } | null;
  /** Replicas and GPUs the servers' measured peak needs at their measured capacity; null where either is unknown. */
  measured: { replicas: number; needGpus: number } | null;
  /** GPUs of its current model the observed p95 amounts to. */
  observedNeedGpus: number | null;
  /** Set on the demand of a pair that shares one GPU (./sharing.ts): how, and who. */
  sharing?: { mode: SharingMode; members: readonly [PlanDemand, PlanDemand]; joint: JointDemand };
}

export interface DemandContext {
  basis: PlanBasis;
  /** Idle threshold of the report: a unit never above it in the window is idle. */
  idleThresholdPct: number;
  workloads: ReadonlyMap<string, WorkloadEntry>;
  /** Pods of the report's Kubernetes section, by GPU id they hold. */
  podsByGpu: ReadonlyMap<string, readonly KubernetesPodEntry[]>;
  /** gpu-audit.yaml's tensor-parallel width of a workload's model (`model.gpusPerReplica`). */
  gpusPerReplicaOf: (workload: string) => number | undefined;
  /** GPUs (or MIG instances) of a workload that ran at all in the window; undefined where not known. */
  usedGpusOf: (workload: string) => number | undefined;
}

/** The GPU-bound threshold of the pipeline verdict: a fed GPU should reach it (analysis/cpu-pipeline/verdict.ts). */
const FED_GPU_PCT = 80;

function capacity(modelKey: string): { tflops: number | null; bandwidthGBps: number | null } | undefined {
  const spec = gpuSpecByKey(modelKey);
  if (spec === undefined) return undefined;
  return { tflops: spec.bf16DenseTflops?.value ?? null, bandwidthGBps: spec.memoryBandwidthGBps?.value ?? null };
}

/** The share of a whole GPU's compute and memory bandwidth that a MIG slice has. */
function sliceShare(modelKey: string, slice: MigProfile): { compute: number; memory: number } {
  const table = migTableFor(modelKey);
  const computeTotal = table?.computeSlicesTotal ?? 7;
  const memoryTotal = table?.memorySlicesTotal ?? 8;
  return { compute: slice.computeSlices / computeTotal, memory: slice.memorySlices / memoryTotal };
}

export function hasSignal(unit: DemandUnit): boolean {
  return (unit.compute.basis === 'sm-active' || unit.compute.basis === 'gr-engine-active' || unit.compute.basis === 'utilization') && unit.compute.p95Pct !== null;
}

/** Compute of one replica: p95 of the signal x the current GPU (or slice) x its GPUs; the whole of them where no signal said less. */
function computeNeed(unit: DemandUnit, gpusPerReplica: number, slice: MigProfile | null, declared: 'declared' | 'serving' | null): ComputeNeed | null {
  const whole = capacity(unit.modelKey);
  if (whole === undefined || (whole.tflops === null && whole.bandwidthGBps === null)) return null;
  const share = slice === null ? { compute: 1, memory: 1 } : sliceShare(unit.modelKey, slice);
  // A replica at its measured serving capacity uses what the compute signal's p95 says, where there is one.
  const measured = declared !== 'declared' && hasSignal(unit);
  const used = measured ? unit.compute.p95Pct! / 100 : 1;
  const scale = (value: number | null, part: number): number | null => (value === null ? null : value * part * used * gpusPerReplica);
  return {
    tflops: unit.compute.bound === 'memory' ? null : scale(whole.tflops, share.compute),
    bandwidthGBps: unit.compute.bound === 'compute' ? null : scale(whole.bandwidthGBps, share.memory),
    basis: declared ?? (measured ? 'measured' : 'upper-bound'),
  };
}

/** Pods holding any of the unit's GPUs, once each. */
function podsOf(unit: DemandUnit, workload: WorkloadEntry | undefined, context: DemandContext): KubernetesPodEntry[] {
  const ids = new Set([...(workload?.gpus ?? []), ...unit.gpuIds]);
  const pods = new Map<string, KubernetesPodEntry>();
  for (const id of ids) for (const pod of context.podsByGpu.get(id) ?? []) pods.set(`${pod.namespace}/${pod.name}`, pod);
  return [...pods.values()];
}

/** What the pods request in all (every container that runs beside the GPU work); null when a pod requests nothing of it. */
function requested(pods: readonly KubernetesPodEntry[], field: 'cpuRequestCores' | 'memoryRequestMiB'): number | null {
  if (pods.length === 0) return null;
  let total = 0;
  for (const pod of pods) for (const container of pod.containers) total += container[field] ?? 0;
  return total > 0 ? total : null;
}

/** Cores a starved pipeline needs to bring its GPU to the GPU-bound threshold, at the CPU per unit of GPU work observed. */
function feedFigures(figures: PipelineFigures | null): { coresUsed: number | null; coresNeeded: number | null } {
  if (figures === null || figures.gpuBusyPct === null || figures.gpuBusyPct <= 0) return { coresUsed: null, coresNeeded: null };
  const coresUsed = figures.containerCoresUsed ?? (figures.hostCpuBusyFraction !== null && figures.hostCores !== null ? figures.hostCpuBusyFraction * figures.hostCores : null);
  if (coresUsed === null) return { coresUsed: null, coresNeeded: null };
  return { coresUsed, coresNeeded: Math.ceil((coresUsed * FED_GPU_PCT) / figures.gpuBusyPct) };
}

function disposition(unit: DemandUnit, workload: WorkloadEntry | undefined, need: ComputeNeed | null): Disposition {
  if (unit.window.hours <= 0) return { kind: 'keep', reason: 'not enough data: snapshots without duration say nothing of use over time' };
  if (unit.hourlyUsdPerGpu === null) return { kind: 'keep', reason: 'not enough data: the host\'s instance type is unknown or has no price at this pricing model' };
  if (unit.compute.busyFraction === 0 && unit.window.hours > 0) {
    return { kind: 'release', reason: `idle the whole ${unit.window.hours.toFixed(1)} h window: it needs no GPU` };
  }
  if (workload?.cpuPipeline.verdict === 'input-bound') {
    const figures = workload.cpuPipeline.figures ?? null;
    const feed = feedFigures(figures);
    return { kind: 'feed', reason: `input-bound: ${workload.cpuPipeline.evidence.join('; ')}; a smaller GPU would wait the same`, figures, ...feed };
  }
  if (unit.vram.requiredMiB === null) return { kind: 'keep', reason: 'not enough data: no memory readings, so the VRAM it needs is unknown' };
  if (need === null) return { kind: 'keep', reason: `not enough data: the GPU table has no throughput figures for ${unit.modelKey}` };
  return { kind: 'move' };
}

export function planDemand(unit: DemandUnit, hosts: readonly string[], context: DemandContext): PlanDemand {
  const workload = context.workloads.get(unit.id);
  const slice = unit.migProfile === null ? null : (migProfileFor(unit.modelKey, unit.migProfile) ?? null);
  const declaredWidth = context.gpusPerReplicaOf(unit.id);
  const split = unit.kind === 'inference';
  // A service is a replica per GPU unless its model is declared split wider; a job holds all its GPUs as one.
  // A GPU (or MIG instance) the workload holds and never ran on in the window is not carried over:
  // a job's replica is as wide as the GPUs it ran on, a service has a replica per width it ran on.
  const used = Math.max(1, Math.min(unit.gpuCount, context.usedGpusOf(unit.id) ?? unit.gpuCount));
  const gpusPerReplica = slice !== null ? 1 : split ? Math.min(unit.gpuCount, declaredWidth ?? 1) : used;
  // A workload in MIG slices holds one replica per instance.
  const currentReplicas = slice !== null ? unit.gpuCount : split ? Math.max(1, Math.floor(unit.gpuCount / gpusPerReplica)) : 1;
  const observedReplicas = slice !== null ? used : split ? Math.max(1, Math.ceil(used / gpusPerReplica - 1e-9)) : 1;
  const serving = unit.serving;
  const declaredReplicas = serving?.perGpuThroughputPerSecond != null && serving.peakDemandPerSecond != null
    ? ceilTolerant((serving.peakDemandPerSecond / serving.perGpuThroughputPerSecond / gpusPerReplica) * (1 + DEFAULT_POOL_HEADROOM))
    : null;
  const declared = declaredReplicas === null ? null : { replicas: declaredReplicas, needGpus: serving!.peakDemandPerSecond! / serving!.perGpuThroughputPerSecond! };
  // A lower bound (the window never came near the SLO) sizes nothing: the GPUs may serve far more.
  const capacity = serving?.measured?.capacityBasis === 'knee' || serving?.measured?.capacityBasis === 'approached' ? serving.measured.capacityPerGpu : null;
  const measured = capacity === null || capacity <= 0 || serving?.measured == null
    ? null
    : { replicas: Math.max(1, ceilTolerant((serving.measured.peakPerSecond / capacity / gpusPerReplica) * (1 + DEFAULT_POOL_HEADROOM))), needGpus: serving.measured.peakPerSecond / capacity };
  const useDeclared = context.basis === 'declared' && declared !== null;
  // The servers' own figures beat the GPU's utilisation: they say what a GPU serves within the SLO.
  const useMeasured = !useDeclared && measured !== null;
  const need = computeNeed(unit, gpusPerReplica, slice, useDeclared ? 'declared' : useMeasured ? 'serving' : null);
  const pods = podsOf(unit, workload, context);
  const cpu = requested(pods, 'cpuRequestCores');
  const memory = requested(pods, 'memoryRequestMiB');
  // Never more than the GPU (or MIG slice) it runs on now: that memory holds it, headroom or not.
  const onNow = unit.memoryTotalMiB;
  const vramPerGpu = unit.vram.requiredMiB === null ? null : onNow === null ? unit.vram.requiredMiB : Math.min(unit.vram.requiredMiB, onNow);
  return {
    unit,
    hosts: [...hosts],
    unusedGpus: unit.gpuCount - used,
    disposition: disposition(unit, workload, need),
    replicas: useDeclared ? declared.replicas : useMeasured ? measured.replicas : observedReplicas,
    currentReplicas,
    gpusPerReplica,
    shape: split ? 'split' : 'fixed',
    vramPerGpuMiB: vramPerGpu,
    vramPerReplicaMiB: vramPerGpu === null ? null : vramPerGpu * gpusPerReplica,
    need,
    nvlinkWhenSplit: split || unit.kind === 'training',
    cpuPerReplica: cpu === null ? null : cpu / currentReplicas,
    memoryPerReplicaMiB: memory === null ? null : memory / currentReplicas,
    slice,
    declared,
    measured,
    observedNeedGpus: hasSignal(unit) ? (unit.compute.p95Pct! / 100) * (slice === null ? unit.gpuCount : sliceShare(unit.modelKey, slice).compute) : null,
  };
}

/** The demands that use what they hold: one idle the whole window needs no GPU and decides nothing. */
export function inUse(demands: readonly PlanDemand[]): PlanDemand[] {
  return demands.filter((demand) => demand.disposition.kind !== 'release');
}

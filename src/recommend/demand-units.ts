/**
 * Demand units from the report's GPUs: the fallback used until workload profiles are in the
 * report. One unit per physical GPU without MIG; one per MIG device of a MIG-enabled GPU (those
 * only feed the MIG repacker). What the GPU entry cannot say stays unknown: tenant, checkpoints,
 * serving facts. The workload kind is read from process names and marked as such in evidence.
 */
import { detectPreallocation } from '../analysis/index.js';
import type { GpuEntry, PercentStats, VramProfile } from '../model/index.js';
import type { DemandUnit, WorkloadKind } from './types.js';

/** Process name patterns -> workload kind; first match wins. Heuristic, so evidence says `kindSource: process-name`. */
const KIND_BY_PROCESS: readonly [RegExp, WorkloadKind][] = [
  [/ipykernel|jupyter/i, 'interactive'],
  [/vllm|tritonserver|text-generation|sglang|torchserve|ray.serve|api_server|trtllm/i, 'inference'],
  [/train|torchrun|deepspeed|accelerate launch|fine.?tune/i, 'training'],
  [/batch|embed|eval|pytest/i, 'batch'],
];

export function kindFromProcesses(names: readonly string[]): WorkloadKind {
  for (const [pattern, kind] of KIND_BY_PROCESS) if (names.some((name) => pattern.test(name))) return kind;
  return 'unknown';
}

/** Servers that reserve most of the GPU at start (vLLM, TGI, Triton, SGLang, JAX): the analysis layer's list. */
export function preallocates(names: readonly string[]): boolean {
  return detectPreallocation(names).preallocating;
}

/**
 * DESIGN.md section 5: required = peak x (1 + headroom). For a preallocating server the peak is
 * the allocation it was given, which already holds its cache room: the peak itself is required
 * (never less: sizing below it risks OOM at start), and the basis says `upper-bound`.
 */
export function vramProfileOf(peakMiB: number | null, p95MiB: number | null, upperBound: boolean, headroom: number): VramProfile {
  if (peakMiB === null) return { peakMiB: null, p95MiB, requiredMiB: null, basis: 'unknown' };
  return {
    peakMiB,
    p95MiB,
    requiredMiB: Math.ceil(upperBound ? peakMiB : peakMiB * (1 + headroom)),
    basis: upperBound ? 'upper-bound' : 'measured',
  };
}

function computeStats(gpu: GpuEntry): PercentStats | null {
  switch (gpu.computeBasis) {
    case 'sm-active':
      return gpu.smActive;
    case 'gr-engine-active':
      return gpu.grEngineActive;
    case 'utilization':
      return gpu.utilization;
    default:
      return null;
  }
}

function unitOf(gpu: GpuEntry, exclusiveId: string, headroom: number, label: string): DemandUnit {
  const processNames = gpu.processes.map((process) => process.name);
  const stats = computeStats(gpu);
  return {
    id: gpu.id,
    label,
    gpuIds: [exclusiveId],
    gpuCount: 1,
    host: gpu.host,
    modelKey: gpu.modelKey,
    memoryTotalMiB: gpu.memoryTotalMiB,
    migProfile: gpu.migProfile,
    instanceType: gpu.instanceType,
    instanceTypeBasis: gpu.instanceTypeBasis,
    hourlyUsdPerGpu: gpu.hourlyCostUsd,
    vram: vramProfileOf(gpu.memoryUsedMiB?.max ?? null, gpu.memoryUsedMiB?.p95 ?? null, preallocates(processNames), headroom),
    compute: {
      basis: gpu.computeBasis,
      meanPct: stats?.mean ?? null,
      p95Pct: stats?.p95 ?? null,
      busyFraction: gpu.idleFraction === null ? null : 1 - gpu.idleFraction,
      bound: 'unknown',
    },
    hourOfWeekPct: gpu.hourOfWeekComputePct ?? null,
    tenant: null,
    kind: kindFromProcesses(processNames),
    checkpoint: null,
    serving: null,
    window: { hours: gpu.gpuHours, samples: gpu.samples },
    processNames,
  };
}

function gpuLabel(gpu: GpuEntry): string {
  const index = gpu.index === null ? '' : ` #${gpu.index}`;
  return `${gpu.host}${index}`;
}

/** The fallback units of a report's GPUs, in report order. */
export function demandUnitsFromGpus(gpus: readonly GpuEntry[], headroom: number): DemandUnit[] {
  const byId = new Map(gpus.map((gpu) => [gpu.id, gpu]));
  const units: DemandUnit[] = [];
  for (const gpu of gpus) {
    if (gpu.parentId === null && gpu.migMode !== 'enabled') units.push(unitOf(gpu, gpu.id, headroom, gpuLabel(gpu)));
    if (gpu.parentId !== null) {
      const parent = byId.get(gpu.parentId);
      const unit = unitOf(gpu, gpu.parentId, headroom, `${parent === undefined ? gpu.host : gpuLabel(parent)} ${gpu.migProfile ?? 'MIG'} (${gpu.id.split('/').at(-1) ?? ''})`);
      // A MIG device has no price of its own; its parent carries the GPU's price.
      units.push({ ...unit, modelKey: parent?.modelKey ?? unit.modelKey, hourlyUsdPerGpu: parent?.hourlyCostUsd ?? null });
    }
  }
  return units;
}

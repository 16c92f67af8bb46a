/**
 * Demand units from workload profiles (report.workloads) and the config facts the profile does
 * not carry (SLO, throughput, peak demand, checkpoints). A workload that shares a device with
 * another (sharedGpus) cannot be moved alone, so its GPUs fall back to per-GPU units, as do GPUs
 * no workload holds. The `unassigned` workload is never a unit of its own.
 */
import { UNASSIGNED, type WorkloadDefinition } from '../analysis/index.js';
import type { GpuEntry, ServingEntry, WorkloadEntry } from '../model/index.js';
import { demandUnitsFromGpus } from './demand-units.js';
import type { DemandUnit, MeasuredServing, ServingFacts, WorkloadKind } from './types.js';

const KINDS: readonly WorkloadKind[] = ['training', 'inference', 'batch', 'interactive'];

/** The pool its inference servers measured, where they measured a peak. */
function measuredServing(workload: WorkloadEntry, servers: readonly ServingEntry[]): MeasuredServing | null {
  const pool = workload.serving;
  if (pool === undefined || pool.peakRequestsPerSecond === null) return null;
  const own = servers.filter((entry) => entry.workload === workload.name);
  const first = own[0];
  return {
    peakPerSecond: pool.peakRequestsPerSecond,
    capacityPerGpu: pool.capacity?.requestsPerSecondPerGpu ?? null,
    capacityBasis: pool.capacity?.basis ?? null,
    capacityConfidence: pool.capacity?.confidence ?? null,
    p95AtCapacityMs: pool.capacity?.p95Ms ?? null,
    note: pool.capacityNote,
    server: first?.server ?? 'vllm',
    namespace: first?.namespace ?? null,
    model: first?.model ?? null,
  };
}

function servingFacts(definition: WorkloadDefinition | undefined, workload: WorkloadEntry, servers: readonly ServingEntry[]): ServingFacts | null {
  const measured = measuredServing(workload, servers);
  if (definition === undefined && measured === null) return null;
  const { throughputPerGpu, peakDemand, slo, coldStartSeconds, autoscaling } = definition ?? {};
  if (throughputPerGpu === undefined && peakDemand === undefined && slo === undefined && measured === null && autoscaling === undefined) return null;
  // Throughput and demand are only comparable in the same unit (requests/s or tokens/s).
  const comparable = throughputPerGpu !== undefined && peakDemand !== undefined && throughputPerGpu.unit === peakDemand.unit;
  return {
    unit: comparable ? throughputPerGpu.unit : null,
    perGpuThroughputPerSecond: comparable ? throughputPerGpu.value : null,
    peakDemandPerSecond: comparable ? peakDemand.value : null,
    latencySloMs: slo?.p95Ms ?? null,
    coldStartSeconds: coldStartSeconds ?? null,
    rampPerMinute: workload.serving?.rampRequestsPerSecondPerMinute ?? null,
    measured,
    autoscaling: autoscaling ?? null,
  };
}

/**
 * Never below the measured peak (OOM risk), except for a preallocating server: its peak is the
 * allocation it was told to take, and the estimate or declaration is the need (the risks then
 * say to lower the allocation).
 */
function sizingFloorMiB(workload: WorkloadEntry): number | null {
  const { requiredMiB, peakMiB } = workload.vram;
  if (requiredMiB === null) return null;
  // Whole MiB, rounded up: a need is never understated.
  if (peakMiB === null || workload.vram.preallocating === true || workload.vram.basis === 'upper-bound') return Math.ceil(requiredMiB);
  return Math.ceil(Math.max(requiredMiB, peakMiB));
}

function unitOf(workload: WorkloadEntry, devices: GpuEntry[], physical: GpuEntry[], definition: WorkloadDefinition | undefined, servers: readonly ServingEntry[]): DemandUnit {
  const first = physical[0]!;
  const onMig = devices.every((device) => device.parentId !== null);
  const gpuHours = devices.reduce((sum, device) => sum + device.gpuHours, 0);
  return {
    id: workload.name,
    label: workload.name,
    gpuIds: [...new Set(physical.map((gpu) => gpu.id))],
    gpuCount: devices.length,
    host: first.host,
    modelKey: first.modelKey,
    memoryTotalMiB: onMig ? devices[0]!.memoryTotalMiB : first.memoryTotalMiB,
    migProfile: onMig ? devices[0]!.migProfile : null,
    instanceType: first.instanceType,
    instanceTypeBasis: first.instanceTypeBasis,
    hourlyUsdPerGpu: first.hourlyCostUsd,
    vram: { ...workload.vram, requiredMiB: sizingFloorMiB(workload) },
    compute: { basis: workload.compute.basis, meanPct: workload.compute.mean, p95Pct: workload.compute.p95, busyFraction: workload.compute.busyFraction, bound: 'unknown' },
    hourOfWeekPct: workload.compute.hourOfWeekPct ?? null,
    tenant: workload.tenant ?? null,
    kind: (KINDS as readonly string[]).includes(workload.kind) ? (workload.kind as WorkloadKind) : 'unknown',
    checkpoint: definition?.checkpoint === undefined ? null : { intervalSeconds: definition.checkpoint.intervalMinutes * 60, restoreSeconds: definition.checkpoint.restoreMinutes * 60 },
    serving: servingFacts(definition, workload, servers),
    window: { hours: devices.length === 0 ? 0 : gpuHours / devices.length, samples: Math.min(...devices.map((device) => device.samples)) },
    processNames: [...new Set(devices.flatMap((device) => device.processes.map((process) => process.name)))],
  };
}

export function demandUnitsFromWorkloads(
  workloads: readonly WorkloadEntry[],
  definitions: readonly WorkloadDefinition[],
  gpus: readonly GpuEntry[],
  headroom: number,
  servers: readonly ServingEntry[] = [],
): DemandUnit[] {
  const byId = new Map(gpus.map((gpu) => [gpu.id, gpu]));
  const covered = new Set<string>();
  const units: DemandUnit[] = [];
  for (const workload of workloads) {
    if (workload.name === UNASSIGNED || (workload.sharedGpus?.length ?? 0) > 0) continue;
    const devices = workload.gpus.map((id) => byId.get(id)).filter((gpu): gpu is GpuEntry => gpu !== undefined);
    const physical = devices.map((device) => (device.parentId === null ? device : byId.get(device.parentId))).filter((gpu): gpu is GpuEntry => gpu !== undefined);
    if (devices.length === 0 || physical.length === 0) continue;
    units.push(unitOf(workload, devices, physical, definitions.find((definition) => definition.name === workload.name), servers));
    for (const device of devices) covered.add(device.id);
  }
  // Per-GPU units for what no movable workload holds (a MIG device is covered on its own).
  const rest = demandUnitsFromGpus(gpus, headroom).filter((unit) => !covered.has(unit.id));
  return [...units, ...rest];
}

/**
 * Per-workload profiles (issue "Per-model profiling", items 1-3 and 6): devices matched to the
 * configured workloads (./match.ts), then for each workload its VRAM (./vram.ts), compute
 * (./compute.ts) and cost and waste (./waste.ts). Pure: priced GPU entries and plain workload
 * definitions in, report entries out.
 *
 * Every configured workload is listed, also one that matched nothing (no GPUs, null figures),
 * so a typo in a match rule shows. What matches no workload is the `unassigned` workload
 * (kind `unknown`), listed last and only when something fell to it.
 */
import { HOURS_PER_MONTH } from '../../model/index.js';
import type { GpuEntry, WorkloadEntry } from '../../model/index.js';
import { workloadCompute } from './compute.js';
import { deviceHourlyCosts } from './device-cost.js';
import { assignDevices, UNASSIGNED } from './match.js';
import { DEFAULT_VRAM_HEADROOM_PCT, type WorkloadAnalysisOptions, type WorkloadDefinition } from './types.js';
import type { PodOnDevice } from '../../model/index.js';
import { workloadVram, type WorkloadDeviceSlice } from './vram.js';
import { workloadWaste } from './waste.js';
import { workloadCpuPipeline, workloadSidecarFigures, type PipelineInputs } from '../cpu-pipeline/workload.js';

export const UNASSIGNED_KIND = 'unknown';

/** Without CPU and pod figures (options.pipeline) neither verdict nor sidecars can be judged. */
const NO_CPU_METRICS = 'no CPU metrics in the inputs';

const monthly = (hourly: number | null): number | null => (hourly === null ? null : hourly * HOURS_PER_MONTH);

function entryOf(
  name: string,
  definition: WorkloadDefinition | undefined,
  slices: readonly WorkloadDeviceSlice[],
  hourlyCostOf: (deviceId: string) => number | null,
  headroomPct: number,
  pipeline: { inputs: PipelineInputs | undefined; podsByDevice: ReadonlyMap<string, readonly PodOnDevice[]> | undefined },
): WorkloadEntry {
  const weighted = slices.map(({ assignment, claim }) => ({
    device: assignment.device,
    weight: (assignment.device.gpuHours > 0 ? assignment.device.gpuHours : 1) * claim.share,
  }));
  const compute = workloadCompute(weighted);
  const vram = workloadVram(definition, slices, headroomPct);
  const waste = workloadWaste(slices, vram, hourlyCostOf);
  const pipelineFacts = {
    devices: slices.map(({ assignment }) => assignment.device),
    pods: slices.flatMap(({ assignment }) => pipeline.podsByDevice?.get(assignment.device.id) ?? []),
    processes: slices.flatMap(({ assignment, claim }) => claim.processes.map((process) => ({ host: assignment.device.host, pid: process.pid, name: process.name }))),
    compute: { mean: compute.mean, basis: compute.basis },
    hourlyUsd: waste.hourlyUsd,
  };
  const wasteHourlyUsd = waste.idleHourlyUsd === null || waste.vramOverprovisionHourlyUsd === null ? null : waste.idleHourlyUsd + waste.vramOverprovisionHourlyUsd;
  return {
    name,
    kind: definition?.kind ?? UNASSIGNED_KIND,
    version: definition?.version ?? null,
    tenant: definition?.tenant ?? null,
    gpus: slices.map(({ assignment }) => assignment.device.id),
    sharedGpus: slices.filter(({ assignment }) => assignment.claims.length > 1).map(({ assignment }) => assignment.device.id),
    gpuHours: slices.reduce((total, { assignment, claim }) => total + assignment.device.gpuHours * claim.share, 0),
    vram,
    compute: {
      basis: compute.basis,
      mean: compute.mean,
      p95: compute.p95,
      busyFraction: compute.busyFraction,
      idleFraction: compute.idleFraction,
      signals: compute.signals,
      hourOfWeekPct: compute.hourOfWeekPct,
    },
    cpuPipeline: pipeline.inputs === undefined ? { verdict: 'unknown', evidence: [NO_CPU_METRICS] } : workloadCpuPipeline(pipelineFacts, pipeline.inputs),
    sidecars: pipeline.inputs === undefined ? { cpuCores: null, memoryMiB: null, overheadPct: null } : workloadSidecarFigures(pipelineFacts, pipeline.inputs),
    cost: {
      hourlyUsd: waste.hourlyUsd,
      wasteHourlyUsd,
      monthlyUsd: monthly(waste.hourlyUsd),
      monthlyWasteUsd: monthly(wasteHourlyUsd),
      wasteBreakdown: { idleMonthlyUsd: monthly(waste.idleHourlyUsd), vramOverprovisionMonthlyUsd: monthly(waste.vramOverprovisionHourlyUsd) },
    },
  };
}

export function profileWorkloads(
  gpus: readonly GpuEntry[],
  definitions: readonly WorkloadDefinition[],
  options: Partial<WorkloadAnalysisOptions> = {},
): WorkloadEntry[] {
  const headroomPct = options.vramHeadroomPct ?? DEFAULT_VRAM_HEADROOM_PCT;
  const assignments = assignDevices(gpus, definitions, options.podsByDevice);
  const costs = deviceHourlyCosts(gpus);
  const hourlyCostOf = (deviceId: string): number | null => costs.get(deviceId) ?? null;
  const slicesOf = (name: string): WorkloadDeviceSlice[] =>
    assignments.flatMap((assignment) => assignment.claims.filter((claim) => claim.workload === name).map((claim) => ({ assignment, claim })));

  const pipeline = { inputs: options.pipeline, podsByDevice: options.podsByDevice };
  const entries = definitions.map((definition) => entryOf(definition.name, definition, slicesOf(definition.name), hourlyCostOf, headroomPct, pipeline));
  const unassigned = slicesOf(UNASSIGNED);
  if (unassigned.length > 0) entries.push(entryOf(UNASSIGNED, undefined, unassigned, hourlyCostOf, headroomPct, pipeline));
  return entries;
}

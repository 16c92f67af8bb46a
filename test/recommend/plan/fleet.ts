/**
 * Hand-built fleets for the planner: report GPU entries, workload profiles and pods with every
 * field named, and a catalog of instance types whose prices the tests work with by hand.
 */
import type { WorkloadDefinition } from '../../../src/analysis/index.js';
import type { InstanceCatalog, InstanceType } from '../../../src/model/catalog.js';
import type { GpuEntry, KubernetesPodEntry, WorkloadEntry } from '../../../src/model/report.js';
import { DEFAULT_RECOMMEND_SETTINGS, planFleet, type PlanInput, type PlanOptions, type PlanOutcome } from '../../../src/recommend/index.js';

export const GIB = 1024;

/** Driver-reported memory of the GPU models used here (the GPU table's figures). */
const MEMORY_MIB: Readonly<Record<string, number>> = {
  'h200-sxm-141gb': 143771,
  'h100-sxm-80gb': 81559,
  'a100-sxm4-80gb': 81920,
  l40s: 46068,
  l4: 23034,
  a10g: 23028,
};

export interface BoardFacts {
  modelKey?: string;
  instanceType?: string;
  basis?: GpuEntry['instanceTypeBasis'];
  /** USD per GPU-hour, as the report priced it. */
  hourlyUsd?: number;
  peakGiB?: number;
  /** utilization.gpu mean and p95, percent. */
  meanPct?: number;
  p95Pct?: number;
  idleFraction?: number;
  process?: string;
  /** Compute percent minute by minute from SERIES_START: GpuEntry.computeSeries. */
  minutes?: readonly number[];
}

export const SERIES_START = '2026-11-23T00:00:00.000Z';

/** One physical GPU of a host over a week, on the utilization basis. */
export function board(host: string, index: number, facts: BoardFacts = {}): GpuEntry {
  const modelKey = facts.modelKey ?? 'h100-sxm-80gb';
  const memoryTotalMiB = MEMORY_MIB[modelKey]!;
  const peakMiB = (facts.peakGiB ?? 40) * GIB;
  const id = `${host}/gpu${index}`;
  return {
    id,
    host,
    index,
    uuid: id,
    pciBusId: null,
    model: modelKey,
    modelKey,
    memoryTotalMiB,
    migMode: 'disabled',
    parentId: null,
    migProfile: null,
    instanceType: facts.instanceType ?? null,
    instanceTypeBasis: facts.instanceType === undefined ? null : (facts.basis ?? 'label'),
    utilization: { mean: facts.meanPct ?? 20, p50: facts.meanPct ?? 20, p95: facts.p95Pct ?? 40, max: 100 },
    smActive: null,
    tensorActive: null,
    grEngineActive: null,
    computeBasis: 'utilization',
    memoryUsedMiB: { mean: peakMiB, p95: peakMiB, max: peakMiB },
    vramHeadroomMiB: memoryTotalMiB - peakMiB,
    vramHeadroomPct: ((memoryTotalMiB - peakMiB) / memoryTotalMiB) * 100,
    idleFraction: facts.idleFraction ?? 0.2,
    idleHours: 168 * (facts.idleFraction ?? 0.2),
    gpuHours: 168,
    samples: 2016,
    firstSeen: '2026-11-23T00:00:00.000Z',
    lastSeen: '2026-11-29T23:55:00.000Z',
    processes: [{ pid: 1000 + index, name: facts.process ?? 'python3 serve.py', type: 'C', maxMemoryMiB: peakMiB, samples: 2016 }],
    hourlyCostUsd: facts.hourlyUsd ?? null,
    timeline: null,
    ...(facts.minutes === undefined ? {} : { computeSeries: { start: SERIES_START, bucketSeconds: 60, meanPct: [...facts.minutes] } }),
    hourOfWeekComputePct: null,
  };
}

/** `hours` hours of minutes: `busyPct` in the minutes of each hour the predicate picks, else 0. */
export function hourly(hours: number, busy: (minute: number) => boolean, busyPct: number): number[] {
  return Array.from({ length: hours * 60 }, (_, minute) => (busy(minute % 60) ? busyPct : 0));
}

/** A MIG device of a board in MIG mode: no utilization of its own, busy while a process runs. */
export function migDevice(parent: GpuEntry, gpuInstance: number, profile: string, memoryTotalMiB: number, facts: { peakGiB?: number; idleFraction?: number } = {}): GpuEntry {
  const peakMiB = (facts.peakGiB ?? 10) * GIB;
  return {
    ...parent,
    id: `${parent.id}/${gpuInstance}`,
    memoryTotalMiB,
    migMode: null,
    parentId: parent.id,
    migProfile: profile,
    instanceType: null,
    instanceTypeBasis: null,
    utilization: null,
    computeBasis: 'processes',
    memoryUsedMiB: { mean: peakMiB, p95: peakMiB, max: peakMiB },
    vramHeadroomMiB: memoryTotalMiB - peakMiB,
    vramHeadroomPct: ((memoryTotalMiB - peakMiB) / memoryTotalMiB) * 100,
    idleFraction: facts.idleFraction ?? 0.5,
    idleHours: 168 * (facts.idleFraction ?? 0.5),
    hourlyCostUsd: null,
  };
}

/** A board in MIG mode: its figures come from its instances. */
export function migBoard(host: string, index: number, facts: BoardFacts = {}): GpuEntry {
  return { ...board(host, index, facts), migMode: 'enabled', utilization: null, computeBasis: 'processes' };
}

export interface WorkloadFacts {
  kind?: string;
  tenant?: string;
  /** VRAM one GPU needs, GiB; required = need x 1.15 unless `requiredGiB` says. */
  peakGiB?: number;
  requiredGiB?: number;
  vramBasis?: WorkloadEntry['vram']['basis'];
  meanPct?: number;
  p95Pct?: number;
  busyFraction?: number;
  cpuPipeline?: WorkloadEntry['cpuPipeline'];
  sidecars?: Partial<WorkloadEntry['sidecars']>;
}

/** The profile of a workload on the given boards. */
export function workload(name: string, boards: readonly GpuEntry[], facts: WorkloadFacts = {}): WorkloadEntry {
  const peakMiB = (facts.peakGiB ?? 40) * GIB;
  const requiredMiB = facts.requiredGiB === undefined ? Math.ceil(peakMiB * 1.15) : facts.requiredGiB * GIB;
  const hourly = boards.reduce((sum, gpu) => sum + (gpu.hourlyCostUsd ?? 0), 0);
  return {
    name,
    kind: facts.kind ?? 'inference',
    version: null,
    tenant: facts.tenant ?? null,
    gpus: boards.map((gpu) => gpu.id),
    gpuHours: 168 * boards.length,
    vram: { peakMiB, p95MiB: peakMiB, requiredMiB, basis: facts.vramBasis ?? 'measured' },
    compute: { basis: 'utilization', mean: facts.meanPct ?? 20, p95: facts.p95Pct ?? 40, busyFraction: facts.busyFraction ?? 0.8, hourOfWeekPct: null },
    cpuPipeline: facts.cpuPipeline ?? { verdict: 'gpu-bound', evidence: [] },
    sidecars: { cpuCores: null, memoryMiB: null, overheadPct: null, ...facts.sidecars },
    cost: { hourlyUsd: hourly, wasteHourlyUsd: 0 },
  };
}

export function definition(name: string, facts: Partial<WorkloadDefinition> = {}): WorkloadDefinition {
  return { name, kind: 'inference', match: {}, ...facts } as WorkloadDefinition;
}

/** A Running pod holding the given boards, its one GPU container requesting `cpu` cores and `memoryGiB`. */
export function pod(name: string, boards: readonly GpuEntry[], cpu: number, memoryGiB: number): KubernetesPodEntry {
  return {
    namespace: 'default',
    name,
    phase: 'Running',
    node: boards[0]!.host,
    workloadKind: 'Deployment',
    workloadName: name,
    labels: {},
    gpuResources: { 'nvidia.com/gpu': boards.length },
    gpusRequested: boards.length,
    gpus: boards.map((gpu) => gpu.id),
    gpuMatch: 'dcgm-labels',
    containers: [{ name: 'server', role: 'gpu', gpus: boards.length, cpuRequestCores: cpu, cpuLimitCores: null, memoryRequestMiB: memoryGiB * GIB, memoryLimitMiB: null }],
    sidecars: { containers: [], cpuRequestCores: 0, cpuLimitCores: null, memoryRequestMiB: 0, memoryLimitMiB: null, cpuPctOfPod: null, memoryPctOfPod: null, cpuPctOfNode: null, memoryPctOfNode: null },
  };
}

export function instanceType(name: string, gpuModelKey: string, gpuCount: number, onDemand: number, more: { vcpus?: number; memoryGiB?: number; spot?: number; spotObservedAt?: string; reserved1y?: number; savingsPlan1y?: number } = {}): InstanceType {
  return {
    provider: 'aws',
    name,
    region: 'us-east-1',
    gpuModelKey,
    gpuModelName: gpuModelKey,
    gpuCount,
    gpuPartitionSize: 1,
    vramPerGpuMiB: MEMORY_MIB[gpuModelKey] ?? null,
    vcpus: more.vcpus ?? 16 * gpuCount,
    memoryGiB: more.memoryGiB ?? 128 * gpuCount,
    networkGbps: null,
    prices: { onDemand, spot: more.spot ?? null, reserved1y: more.reserved1y ?? null, reserved3y: null, savingsPlan1y: more.savingsPlan1y ?? null, savingsPlan3y: null, ...(more.spotObservedAt === undefined ? {} : { spotObservedAt: more.spotObservedAt }), sources: ['test'] },
    sources: ['test'],
  };
}

export function catalogOf(types: readonly InstanceType[]): InstanceCatalog {
  return { name: 'hand-worked', asOf: '2026-11-29', origin: 'bundled', ageDays: null, instances: [...types] };
}

export function planOf(input: Partial<PlanInput> & Pick<PlanInput, 'gpus'>, catalog: InstanceCatalog, options: Partial<PlanOptions> = {}): PlanOutcome {
  return planFleet(
    { workloads: [], definitions: [], ...input },
    { ...DEFAULT_RECOMMEND_SETTINGS, catalog, pricing: 'on-demand', basis: 'observed', ...options },
  );
}

/**
 * Supply the plan can buy: instance types, whole, in scope (the providers and region asked for,
 * else the current host's), priced at the planning term, each with its GPU model's memory and
 * throughput and its vCPUs and memory. And, for one demand, which of them can hold a replica of
 * it and how (docs/planner.md, "Supply" and "Constraints"), or why not: the reasons are kept, so
 * that a workload left where it is can say what was tried.
 */
import { gpuSpecByKey, holdsTensorParallel, instancePrice, migTableFor, type MigProfile } from '../../catalog/index.js';
import type { InstanceCatalog, InstanceType, PricingModel } from '../../model/index.js';
import { profileMemoryMiB, smallestProfile } from '../sharing/mig.js';
import type { PlanDemand } from './demand.js';

export interface SupplyType {
  instance: InstanceType;
  hourlyUsd: number;
  /** Usable memory of one GPU, as the driver reports it (the GPU table's), MiB. */
  gpuMemoryMiB: number;
  tflops: number | null;
  bandwidthGBps: number | null;
  /** null where the catalog does not say: a pod request cannot be checked against it. */
  vcpus: number | null;
  memoryMiB: number | null;
}

export interface Scope {
  providers?: readonly InstanceType['provider'][];
  region?: string;
}

export function supplyTypes(catalog: InstanceCatalog, pricing: PricingModel, scope: Scope): SupplyType[] {
  const types: SupplyType[] = [];
  for (const instance of catalog.instances) {
    if (instance.gpuCount <= 0) continue; // fractional GPUs share a board: no replica of its own
    if (instance.retiredOn !== undefined) continue; // cannot be bought: a host of it is priced, never proposed
    // A GPU the GPU table does not know (AMD, a model newer than the table) has no figures to size against.
    if (instance.gpuModelKey === 'unknown' || gpuSpecByKey(instance.gpuModelKey) === undefined) continue;
    if (scope.providers !== undefined && !scope.providers.includes(instance.provider)) continue;
    if (scope.region !== undefined && instance.region.toLowerCase() !== scope.region.toLowerCase()) continue;
    const hourlyUsd = instancePrice(instance, pricing);
    const spec = gpuSpecByKey(instance.gpuModelKey)!;
    const gpuMemoryMiB = spec.vramMiB?.value ?? instance.vramPerGpuMiB;
    if (hourlyUsd === null || gpuMemoryMiB === null || gpuMemoryMiB === undefined) continue;
    types.push({
      instance,
      hourlyUsd,
      gpuMemoryMiB,
      tflops: spec.bf16DenseTflops?.value ?? null,
      bandwidthGBps: spec.memoryBandwidthGBps?.value ?? null,
      vcpus: instance.vcpus,
      memoryMiB: instance.memoryGiB === null ? null : instance.memoryGiB * 1024,
    });
  }
  // Cheapest first, then fewer GPUs, then by name and region: the same answer on every run.
  return types.sort((a, b) => a.hourlyUsd - b.hourlyUsd || a.instance.gpuCount - b.instance.gpuCount || a.instance.name.localeCompare(b.instance.name) || a.instance.region.localeCompare(b.instance.region));
}

/** How one replica of a demand would sit on a type: whole GPUs, or a MIG slice of one. */
export interface Fit {
  type: SupplyType;
  /** Whole GPUs of the type per replica (0 for a slice). */
  gpus: number;
  slice: MigProfile | null;
  cpu: number;
  memoryMiB: number;
}

export type Rejection = 'vram' | 'compute' | 'nvlink' | 'too-few-gpus' | 'cpu' | 'memory' | 'requests-unknown';

export const REJECTION_WORDS: Readonly<Record<Rejection, string>> = {
  vram: 'too little VRAM',
  compute: 'too little compute for the need',
  nvlink: 'no NVLink for the split',
  'too-few-gpus': 'too few GPUs for one replica',
  cpu: 'too few vCPUs for the pods\' requests',
  memory: 'too little memory for the pods\' requests',
  'requests-unknown': 'vCPUs or memory unknown: the pods\' requests cannot be checked',
};

const TENSOR_PARALLEL_DEGREES = [1, 2, 4, 8] as const;

function covers(type: SupplyType, gpus: number, need: PlanDemand['need']): boolean {
  if (need === null) return false;
  if (need.tflops !== null && (type.tflops === null || type.tflops * gpus < need.tflops - 1e-9)) return false;
  if (need.bandwidthGBps !== null && (type.bandwidthGBps === null || type.bandwidthGBps * gpus < need.bandwidthGBps - 1e-9)) return false;
  return true;
}

function requestsFit(demand: PlanDemand, type: SupplyType): Rejection | undefined {
  const cpu = demand.cpuPerReplica;
  const memory = demand.memoryPerReplicaMiB;
  if ((cpu !== null && type.vcpus === null) || (memory !== null && type.memoryMiB === null)) return 'requests-unknown';
  if (cpu !== null && cpu > type.vcpus! + 1e-9) return 'cpu';
  if (memory !== null && memory > type.memoryMiB! + 1e-9) return 'memory';
  return undefined;
}

/** Whole GPUs of `type` per replica, or why none. */
function wholeFit(demand: PlanDemand, type: SupplyType): { gpus: number } | Rejection {
  const perGpu = demand.vramPerGpuMiB!;
  const total = demand.vramPerReplicaMiB!;
  const degrees = demand.shape === 'fixed' ? [demand.gpusPerReplica] : TENSOR_PARALLEL_DEGREES.filter((degree) => degree >= 1);
  let rejection: Rejection = 'vram';
  for (const gpus of degrees) {
    const vramOk = demand.shape === 'fixed' ? type.gpuMemoryMiB >= perGpu : type.gpuMemoryMiB * gpus >= total;
    if (!vramOk) continue;
    if (gpus > type.instance.gpuCount) {
      // A smaller split that held the memory keeps its reason: that is what ruled the type out.
      if (rejection === 'vram') rejection = 'too-few-gpus';
      break;
    }
    if (!covers(type, gpus, demand.need)) {
      rejection = 'compute';
      continue;
    }
    if (gpus > 1 && demand.nvlinkWhenSplit && !holdsTensorParallel(type.instance, gpus)) {
      rejection = 'nvlink';
      continue;
    }
    return { gpus };
  }
  return rejection;
}

/** The smallest MIG slice of the type's GPU covering one replica, for a demand that runs in a slice now. */
function sliceFit(demand: PlanDemand, type: SupplyType): MigProfile | undefined {
  const table = migTableFor(type.instance.gpuModelKey);
  if (demand.slice === null || table === undefined || demand.need === null) return undefined;
  const need = demand.need;
  const computeSlices = need.tflops === null || type.tflops === null ? 1 : Math.ceil((need.tflops / type.tflops) * table.computeSlicesTotal - 1e-9);
  const memorySlices = need.bandwidthGBps === null || type.bandwidthGBps === null ? 0 : Math.ceil((need.bandwidthGBps / type.bandwidthGBps) * table.memorySlicesTotal - 1e-9);
  if ((need.tflops !== null && type.tflops === null) || (need.bandwidthGBps !== null && type.bandwidthGBps === null)) return undefined;
  const profile = smallestProfile(type.instance.gpuModelKey, demand.vramPerReplicaMiB!, Math.max(1, computeSlices));
  if (profile === undefined) return undefined;
  if (profile.memorySlices < memorySlices) {
    return table.profiles
      .filter((candidate) => !candidate.mediaExtensions && candidate.computeSlices >= computeSlices && candidate.memorySlices >= memorySlices && profileMemoryMiB(candidate) >= demand.vramPerReplicaMiB!)
      .sort((a, b) => a.computeSlices - b.computeSlices || a.memorySlices - b.memorySlices)[0];
  }
  return profile;
}

/** Every way the demand fits a type, and for the others why not (the first reason that ruled it out). */
export function fitsOf(demand: PlanDemand, types: readonly SupplyType[]): { fits: Fit[]; rejected: Map<Rejection, SupplyType[]> } {
  const fits: Fit[] = [];
  const rejected = new Map<Rejection, SupplyType[]>();
  const reject = (reason: Rejection, type: SupplyType): void => {
    const list = rejected.get(reason) ?? [];
    list.push(type);
    rejected.set(reason, list);
  };
  for (const type of types) {
    const requests = requestsFit(demand, type);
    if (requests !== undefined) {
      reject(requests, type);
      continue;
    }
    const cpu = demand.cpuPerReplica ?? 0;
    const memoryMiB = demand.memoryPerReplicaMiB ?? 0;
    const slice = sliceFit(demand, type);
    if (slice !== undefined) fits.push({ type, gpus: 0, slice, cpu, memoryMiB });
    const whole = wholeFit(demand, type);
    if (typeof whole === 'string') {
      if (slice === undefined) reject(whole, type);
      continue;
    }
    fits.push({ type, gpus: whole.gpus, slice: null, cpu, memoryMiB });
  }
  return { fits, rejected };
}

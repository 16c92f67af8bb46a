/**
 * What a workload's sidecars cost (definitions in src/render/definitions.ts, "Sidecar
 * overhead"). For each of the workload's GPU pods, with its node:
 *
 *   node share   = max(sidecar CPU requests / node allocatable cores,
 *                      sidecar memory requests / node allocatable memory)
 *   hourly cost  = node share x node hourly price (the node instance's price)
 *   monthly cost = hourly cost x 730
 *
 * The larger of the two shares, because the scheduler cannot give the part of the node the
 * sidecars hold to another pod, whichever resource runs out first. The workload figures add
 * the pods up; overheadPct is the sidecars' hourly cost as a share of the workload's GPU
 * hourly cost.
 */
import { HOURS_PER_MONTH } from '../../model/index.js';
import type { SidecarOverhead } from '../../model/index.js';

export interface PodSidecars {
  overhead: SidecarOverhead;
  /** Hourly price of the pod's node instance, USD; undefined when not priced. */
  nodeHourlyUsd?: number;
  /** Cores the sidecar containers used (cAdvisor), where measured. */
  cpuUsedCores?: number;
}

export interface WorkloadSidecars {
  cpuCores: number | null;
  memoryMiB: number | null;
  overheadPct: number | null;
  monthlyCostUsd: number | null;
  cpuUsedCores: number | null;
}

export const NO_SIDECARS: WorkloadSidecars = { cpuCores: null, memoryMiB: null, overheadPct: null, monthlyCostUsd: null, cpuUsedCores: null };

/** Sidecar share of the node (the larger of CPU and memory), 0-1; undefined when the node is unknown. */
export function sidecarNodeShare(overhead: SidecarOverhead): number | undefined {
  const shares = [overhead.cpuPctOfNode, overhead.memoryPctOfNode].filter((share): share is number => share !== null);
  return shares.length === 0 ? undefined : Math.max(...shares) / 100;
}

/** Hourly USD of one pod's sidecars; undefined when its node or the node's price is unknown. */
export function sidecarHourlyUsd(pod: PodSidecars): number | undefined {
  const share = sidecarNodeShare(pod.overhead);
  return share === undefined || pod.nodeHourlyUsd === undefined ? undefined : share * pod.nodeHourlyUsd;
}

/**
 * The workload's sidecar figures over its pods. Cost is null unless every pod's is known
 * (a partial sum would understate it); overheadPct also needs the workload's GPU hourly cost.
 */
export function workloadSidecars(pods: readonly PodSidecars[], workloadHourlyUsd: number | null): WorkloadSidecars {
  if (pods.length === 0) return NO_SIDECARS;
  const hourly = pods.map(sidecarHourlyUsd);
  const known = hourly.every((value) => value !== undefined);
  const hourlyUsd = known ? (hourly as number[]).reduce((total, value) => total + value, 0) : null;
  const used = pods.map((pod) => pod.cpuUsedCores);
  return {
    cpuCores: pods.reduce((total, pod) => total + pod.overhead.cpuRequestCores, 0),
    memoryMiB: pods.reduce((total, pod) => total + pod.overhead.memoryRequestMiB, 0),
    overheadPct: hourlyUsd === null || workloadHourlyUsd === null || workloadHourlyUsd <= 0 ? null : (hourlyUsd / workloadHourlyUsd) * 100,
    monthlyCostUsd: hourlyUsd === null ? null : hourlyUsd * HOURS_PER_MONTH,
    cpuUsedCores: used.every((value) => value !== undefined) ? (used as number[]).reduce((total, value) => total + value, 0) : null,
  };
}

/**
 * The CPU pipeline verdict and sidecar figures of one workload, from the figures of its
 * devices, hosts and pods. Pure: the maps come from ./inputs.ts.
 *
 * The workload's hosts are its devices' hosts; its containers are those seen on its devices
 * (dcgm-exporter pod labels). Host CPU is the busiest of its hosts (one starved host starves
 * its GPUs); throttling is the largest share among its GPU containers.
 */
import type { GpuEntry } from '../../model/report.js';
import type { PodOnDevice } from '../workloads/types.js';
import type { ContainerCpuFigures, HostCpuFigures } from './cpu-usage.js';
import { NO_SIDECARS, workloadSidecars, type PodSidecars, type WorkloadSidecars } from './sidecars.js';
import { pipelineVerdict, type PipelineJudgement } from './verdict.js';

export interface PipelineInputs {
  /** Host CPU figures by host name. */
  hostCpu?: ReadonlyMap<string, HostCpuFigures>;
  /** Container CPU figures by containerKey(namespace, pod, container). */
  containerCpu?: ReadonlyMap<string, ContainerCpuFigures>;
  /** Sidecar facts of GPU pods by podKey(namespace, pod). */
  podSidecars?: ReadonlyMap<string, PodSidecars>;
  /** The report's idle threshold, percent (default 5). */
  idleThresholdPct?: number;
}

export const DEFAULT_IDLE_THRESHOLD_PCT = 5;
export const podKey = (namespace: string, pod: string): string => `${namespace}/${pod}`;
export const containerKey = (namespace: string, pod: string, container: string): string => `${namespace}/${pod}/${container}`;

export interface WorkloadPipelineFacts {
  devices: readonly Pick<GpuEntry, 'id' | 'host'>[];
  /** Containers seen on the workload's devices. */
  pods: readonly PodOnDevice[];
  compute: { mean: number | null; basis: GpuEntry['computeBasis'] };
  hourlyUsd: number | null;
}

function busiestHost(hosts: Iterable<string>, figures: ReadonlyMap<string, HostCpuFigures> | undefined): HostCpuFigures | undefined {
  let busiest: HostCpuFigures | undefined;
  for (const host of hosts) {
    const candidate = figures?.get(host);
    if (candidate !== undefined && (busiest === undefined || candidate.busyFraction > busiest.busyFraction)) busiest = candidate;
  }
  return busiest;
}

export function workloadCpuPipeline(facts: WorkloadPipelineFacts, inputs: PipelineInputs): PipelineJudgement {
  const host = busiestHost(new Set(facts.devices.map((device) => device.host)), inputs.hostCpu);
  const containers = facts.pods
    .filter((pod) => pod.container !== undefined)
    .map((pod) => inputs.containerCpu?.get(containerKey(pod.namespace, pod.pod, pod.container!)))
    .filter((figures): figures is ContainerCpuFigures => figures !== undefined);
  const throttled = containers.map((figures) => figures.throttledFraction).filter((value): value is number => value !== undefined);
  const used = containers.map((figures) => figures.coresUsed).filter((value): value is number => value !== undefined);
  return pipelineVerdict({
    gpuBusyPct: facts.compute.mean,
    gpuComputeBasis: facts.compute.basis,
    idleThresholdPct: inputs.idleThresholdPct ?? DEFAULT_IDLE_THRESHOLD_PCT,
    ...(host === undefined ? {} : { hostCpuBusyFraction: host.busyFraction, hostCores: host.cores }),
    ...(throttled.length === 0 ? {} : { containerThrottledFraction: Math.max(...throttled) }),
    ...(used.length === 0 ? {} : { containerCoresUsed: used.reduce((total, value) => total + value, 0) }),
  });
}

export function workloadSidecarFigures(facts: WorkloadPipelineFacts, inputs: PipelineInputs): WorkloadSidecars {
  const keys = new Set(facts.pods.map((pod) => podKey(pod.namespace, pod.pod)));
  const pods = [...keys].map((key) => inputs.podSidecars?.get(key)).filter((pod): pod is PodSidecars => pod !== undefined);
  return pods.length === 0 ? NO_SIDECARS : workloadSidecars(pods, facts.hourlyUsd);
}

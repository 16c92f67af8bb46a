/**
 * The CPU pipeline verdict and sidecar figures of one workload, from the figures of its
 * devices, hosts and pods. Pure: the maps come from ./inputs.ts.
 *
 * The workload's hosts are its devices' hosts; its containers are those seen on its devices
 * (dcgm-exporter pod labels). Host CPU is the busiest of its hosts (one starved host starves
 * its GPUs); throttling is the largest share among its GPU containers. PCIe receive is that of
 * the device nearest its threshold (verdict.ts); the CPU of its GPU process trees (collect
 * bundle processes.csv) is named as evidence.
 */
import type { GpuEntry } from '../../model/index.js';
import { DEFAULT_IDLE_THRESHOLD_PCT, type PodOnDevice } from '../../model/index.js';
import type { ContainerCpuFigures, HostCpuFigures } from './cpu-usage.js';
import type { ProcessTreeCpuFigures } from './process-cpu.js';
import { NO_SIDECARS, workloadSidecars, type PodSidecars, type WorkloadSidecars } from './sidecars.js';
import { pcieRxHighMiBps, pipelineVerdict, type PcieRxFigure, type PipelineJudgement, type ProcessTreeFigure } from './verdict.js';

export interface PipelineInputs {
  /** Host CPU figures by host name. */
  hostCpu?: ReadonlyMap<string, HostCpuFigures>;
  /** Container CPU figures by containerKey(namespace, pod, container). */
  containerCpu?: ReadonlyMap<string, ContainerCpuFigures>;
  /** Sidecar facts of GPU pods by podKey(namespace, pod). */
  podSidecars?: ReadonlyMap<string, PodSidecars>;
  /** The report's idle threshold, percent (default 5). */
  idleThresholdPct?: number;
  /** CPU of GPU process trees by processTreeKey(GPU host, GPU process pid). */
  processTrees?: ReadonlyMap<string, ProcessTreeCpuFigures>;
}

export const podKey = (namespace: string, pod: string): string => `${namespace}/${pod}`;
export const containerKey = (namespace: string, pod: string, container: string): string => `${namespace}/${pod}/${container}`;
export const processTreeKey = (host: string, pid: number): string => `${host}\u0000${pid}`;

export interface WorkloadPipelineFacts {
  devices: readonly Pick<GpuEntry, 'id' | 'host' | 'pcieRxMiBps' | 'pcieLink'>[];
  /** The workload's GPU processes (on a shared GPU, only its own). */
  processes?: readonly { host: string; pid: number; name: string }[];
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

/**
 * The device whose mean PCIe receive is the largest share of its threshold: the one most
 * likely waiting on copies (PCIe traffic is the board's, so a shared GPU's counts whole).
 */
function pcieRxNearestThreshold(devices: WorkloadPipelineFacts['devices']): PcieRxFigure | undefined {
  let nearest: { figure: PcieRxFigure; share: number } | undefined;
  for (const device of devices) {
    if (device.pcieRxMiBps == null) continue;
    const link = device.pcieLink ?? undefined;
    const figure: PcieRxFigure = { gpu: device.id, meanMiBps: device.pcieRxMiBps.mean, ...(link === undefined ? {} : { link }) };
    const share = figure.meanMiBps / pcieRxHighMiBps(link);
    if (nearest === undefined || share > nearest.share) nearest = { figure, share };
  }
  return nearest?.figure;
}

/** CPU of the workload's GPU process trees, each once (a process on two GPUs is one tree). */
function processTreesOf(facts: WorkloadPipelineFacts, trees: PipelineInputs['processTrees']): ProcessTreeFigure[] {
  const found = new Map<string, ProcessTreeFigure>();
  for (const process of facts.processes ?? []) {
    const key = processTreeKey(process.host, process.pid);
    const tree = trees?.get(key);
    if (tree === undefined || found.has(key)) continue;
    found.set(key, { pid: process.pid, name: process.name || tree.comm || `pid ${process.pid}`, descendants: tree.descendants, coresUsed: tree.coresUsed });
  }
  return [...found.values()];
}

export function workloadCpuPipeline(facts: WorkloadPipelineFacts, inputs: PipelineInputs): PipelineJudgement {
  const host = busiestHost(new Set(facts.devices.map((device) => device.host)), inputs.hostCpu);
  const containers = facts.pods
    .filter((pod) => pod.container !== undefined)
    .map((pod) => inputs.containerCpu?.get(containerKey(pod.namespace, pod.pod, pod.container!)))
    .filter((figures): figures is ContainerCpuFigures => figures !== undefined);
  const throttled = containers.map((figures) => figures.throttledFraction).filter((value): value is number => value !== undefined);
  const used = containers.map((figures) => figures.coresUsed).filter((value): value is number => value !== undefined);
  const pcieRx = pcieRxNearestThreshold(facts.devices);
  const processTrees = processTreesOf(facts, inputs.processTrees);
  return pipelineVerdict({
    gpuBusyPct: facts.compute.mean,
    gpuComputeBasis: facts.compute.basis,
    idleThresholdPct: inputs.idleThresholdPct ?? DEFAULT_IDLE_THRESHOLD_PCT,
    ...(host === undefined ? {} : { hostCpuBusyFraction: host.busyFraction, hostCores: host.cores }),
    ...(throttled.length === 0 ? {} : { containerThrottledFraction: Math.max(...throttled) }),
    ...(used.length === 0 ? {} : { containerCoresUsed: used.reduce((total, value) => total + value, 0) }),
    ...(pcieRx === undefined ? {} : { pcieRx }),
    ...(processTrees.length === 0 ? {} : { processTrees }),
  });
}

export function workloadSidecarFigures(facts: WorkloadPipelineFacts, inputs: PipelineInputs): WorkloadSidecars {
  const keys = new Set(facts.pods.map((pod) => podKey(pod.namespace, pod.pod)));
  const pods = [...keys].map((key) => inputs.podSidecars?.get(key)).filter((pod): pod is PodSidecars => pod !== undefined);
  return pods.length === 0 ? NO_SIDECARS : workloadSidecars(pods, facts.hourlyUsd);
}

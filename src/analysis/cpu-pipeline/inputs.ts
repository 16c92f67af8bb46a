/**
 * The lookup maps the workload pipeline figures read (./workload.ts), built once per audit
 * from the analyzer's CPU figures, the Kubernetes inventory and the priced GPUs.
 *
 * A node's hourly price is the sum of its GPUs' prices per GPU-hour (each the instance price
 * divided by the instance's GPUs), so it is the instance price when every GPU of the node was
 * observed and priced; a node with an unpriced GPU has no price.
 */
import type { GpuEntry } from '../../model/index.js';
import type { KubernetesInventory, NodeInfo } from '../../model/index.js';
import { deviceCount } from '../../model/index.js';
import { nodeNameMatcher, sidecarOverhead } from '../kubernetes.js';
import type { ContainerCpuFigures, HostCpuFigures } from './cpu-usage.js';
import type { ProcessTreeCpuFigures } from './process-cpu.js';
import type { PodSidecars } from './sidecars.js';
import { containerKey, podKey, processTreeKey, type PipelineInputs } from './workload.js';

export interface PipelineSources {
  cpu?: { hosts: readonly HostCpuFigures[]; containers: readonly ContainerCpuFigures[] };
  /** CPU of GPU process trees (collect bundle processes.csv). */
  processCpu?: readonly ProcessTreeCpuFigures[];
  inventory?: KubernetesInventory;
  /** Kubernetes node of each GPU host. */
  nodeOfHost?: ReadonlyMap<string, NodeInfo>;
  gpus: readonly GpuEntry[];
  idleThresholdPct: number;
}

/** Hourly price of each host's GPUs together; hosts with an unpriced GPU are absent. */
export function hostHourlyUsd(gpus: readonly GpuEntry[]): Map<string, number> {
  const totals = new Map<string, number | null>();
  for (const gpu of gpus) {
    if (gpu.parentId !== null) continue;
    const total = totals.get(gpu.host);
    totals.set(gpu.host, total === null || gpu.hourlyCostUsd === null ? null : (total ?? 0) + gpu.hourlyCostUsd);
  }
  return new Map([...totals].filter((entry): entry is [string, number] => entry[1] !== null));
}

/**
 * Host CPU figures under the GPU hosts' names: node_exporter's `instance` may be a fully
 * qualified name where the GPU data has the short one, so names match as Kubernetes nodes do
 * (same name, else the one with the same short name, any case).
 */
export function hostCpuByGpuHost(hosts: readonly HostCpuFigures[], gpus: readonly GpuEntry[]): Map<string, HostCpuFigures> {
  const byName = new Map(hosts.map((figures) => [figures.host, figures]));
  const hostNamed = nodeNameMatcher(byName.keys());
  const result = new Map<string, HostCpuFigures>();
  for (const host of new Set(gpus.map((gpu) => gpu.host))) {
    const name = hostNamed(host);
    if (name !== undefined) result.set(host, byName.get(name)!);
  }
  return result;
}

/** Process trees by processTreeKey(GPU host, GPU pid), their host matched to the GPU hosts as for host CPU. */
export function processTreesByGpuHost(trees: readonly ProcessTreeCpuFigures[], gpus: readonly GpuEntry[]): Map<string, ProcessTreeCpuFigures> {
  const treesByHost = new Map<string, ProcessTreeCpuFigures[]>();
  for (const tree of trees) {
    const onHost = treesByHost.get(tree.host);
    if (onHost === undefined) treesByHost.set(tree.host, [tree]);
    else onHost.push(tree);
  }
  const hostNamed = nodeNameMatcher(treesByHost.keys());
  const result = new Map<string, ProcessTreeCpuFigures>();
  for (const gpuHost of new Set(gpus.map((gpu) => gpu.host))) {
    const name = hostNamed(gpuHost);
    if (name === undefined) continue;
    for (const tree of treesByHost.get(name)!) result.set(processTreeKey(gpuHost, tree.gpuPid), tree);
  }
  return result;
}

export function pipelineInputs(sources: PipelineSources): PipelineInputs {
  const containerCpu = new Map((sources.cpu?.containers ?? []).map((figures) => [containerKey(figures.namespace, figures.pod, figures.container), figures]));
  const hostOfNode = new Map([...(sources.nodeOfHost ?? [])].map(([host, node]) => [node.name, host]));
  const nodes = new Map((sources.inventory?.nodes ?? []).map((node) => [node.name, node]));
  const prices = hostHourlyUsd(sources.gpus);

  const podSidecars = new Map<string, PodSidecars>();
  for (const pod of sources.inventory?.pods ?? []) {
    if (deviceCount(pod.gpuResources) === 0) continue;
    const node = pod.nodeName === undefined ? undefined : nodes.get(pod.nodeName);
    const overhead = sidecarOverhead(pod, node);
    const host = pod.nodeName === undefined ? undefined : hostOfNode.get(pod.nodeName);
    const nodeHourlyUsd = host === undefined ? undefined : prices.get(host);
    const used = overhead.containers.map((name) => containerCpu.get(containerKey(pod.namespace, pod.name, name))?.coresUsed);
    podSidecars.set(podKey(pod.namespace, pod.name), {
      overhead,
      ...(nodeHourlyUsd === undefined ? {} : { nodeHourlyUsd }),
      ...(used.length > 0 && used.every((value) => value !== undefined) ? { cpuUsedCores: (used as number[]).reduce((a, b) => a + b, 0) } : {}),
    });
  }
  return {
    hostCpu: hostCpuByGpuHost(sources.cpu?.hosts ?? [], sources.gpus),
    containerCpu,
    podSidecars,
    idleThresholdPct: sources.idleThresholdPct,
    ...(sources.processCpu === undefined ? {} : { processTrees: processTreesByGpuHost(sources.processCpu, sources.gpus) }),
  };
}

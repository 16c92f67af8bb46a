/**
 * Pods and nodes from kube-state-metrics series in the same Prometheus: what a Prometheus-only
 * user has in place of `--k8s`. Read over the whole window (`max_over_time`, so a pod that ran
 * and ended is there) into the inventory `--k8s` files give (model/kubernetes.ts):
 *
 *   kube_pod_info{namespace, pod, node}                 pod -> node
 *   kube_pod_status_phase{phase} (last value 1)         its phase at the end of the window
 *   kube_pod_owner{owner_kind, owner_name}              its owner; a ReplicaSet lifted to its
 *   kube_replicaset_owner{replicaset, owner_*}          Deployment where that series says so
 *   kube_pod_container_resource_requests / _limits      per container and resource (cpu in
 *     {container, resource, unit}                       cores, memory in bytes, GPUs in devices)
 *   kube_node_status_allocatable / _capacity{resource}  node CPU, memory and GPU resources
 *   kube_pod_labels{label_*}                            pod labels, under kube-state-metrics'
 *                                                       names less `label_` (`app`, `pod_template_hash`:
 *                                                       `-`, `.` and `/` came back as `_`, which
 *                                                       cannot be undone), where its allowlist exports them
 *   kube_node_labels{label_*}                           instance type and GPU feature discovery
 *                                                       labels, likewise
 *
 * kube-state-metrics writes a resource name with `.`, `/` and `-` as `_` (`nvidia_com_gpu`,
 * `nvidia_com_mig_1g_10gb`): the NVIDIA names are read back by pattern. Init containers have
 * their own metric family (not read): their GPU requests are not counted.
 */
import type { ContainerInfo, KubernetesSourceRead, NodeInfo, PodInfo } from '../../../model/index.js';
import type { Labels, PrometheusClient } from './client.js';
import { type AuditWindow, promSpan, type RangeRule } from './window.js';

const MIB = 1024 * 1024;

/** `nvidia_com_gpu` -> `nvidia.com/gpu`, `nvidia_com_mig_1g_10gb` -> `nvidia.com/mig-1g.10gb`, `nvidia_com_gpu_shared` -> `nvidia.com/gpu.shared`; undefined for others. */
export function gpuResourceName(resource: string): string | undefined {
  const mig = /^nvidia_com_mig_(\d+g)_(\d+gb)$/u.exec(resource);
  if (mig !== null) return `nvidia.com/mig-${mig[1]}.${mig[2]}`;
  if (resource === 'nvidia_com_gpu') return 'nvidia.com/gpu';
  if (resource === 'nvidia_com_gpu_shared') return 'nvidia.com/gpu.shared';
  return undefined;
}

interface Series {
  labels: Labels;
  value: number;
}

const key = (namespace: string, pod: string): string => `${namespace}/${pod}`;

function emptyContainer(name: string): ContainerInfo & { gpuResources: Record<string, number> } {
  return { name, kind: 'app', gpuResources: {}, cpuCores: { request: undefined, limit: undefined }, memoryMiB: { request: undefined, limit: undefined } };
}

function podsOf(info: readonly Series[], phases: readonly Series[], owners: readonly Series[], replicaSets: readonly Series[], requests: readonly Series[], limits: readonly Series[], podLabels: readonly Series[]): PodInfo[] {
  const labelsOfPod = new Map(podLabels.map(({ labels }) => [
    key(labels.namespace ?? '', labels.pod ?? ''),
    Object.fromEntries(Object.entries(labels).filter(([name, value]) => name.startsWith('label_') && value !== '').map(([name, value]) => [name.slice('label_'.length), value])),
  ]));
  const deploymentOf = new Map(replicaSets.filter((series) => series.labels.owner_kind === 'Deployment').map((series) => [key(series.labels.namespace ?? '', series.labels.replicaset ?? ''), series.labels.owner_name ?? '']));
  const phaseOf = new Map(phases.filter((series) => series.value > 0).map((series) => [key(series.labels.namespace ?? '', series.labels.pod ?? ''), series.labels.phase ?? 'Unknown']));
  const ownerOf = new Map(owners.map((series) => [key(series.labels.namespace ?? '', series.labels.pod ?? ''), series.labels]));
  const containersOf = new Map<string, Map<string, ReturnType<typeof emptyContainer>>>();
  const record = (series: Series, field: 'request' | 'limit'): void => {
    const { namespace = '', pod = '', container = '', resource = '' } = series.labels;
    if (container === '') return;
    const containers = containersOf.get(key(namespace, pod)) ?? new Map<string, ReturnType<typeof emptyContainer>>();
    containersOf.set(key(namespace, pod), containers);
    const entry = containers.get(container) ?? emptyContainer(container);
    containers.set(container, entry);
    const gpu = gpuResourceName(resource);
    if (resource === 'cpu') entry.cpuCores = { ...entry.cpuCores, [field]: series.value };
    else if (resource === 'memory') entry.memoryMiB = { ...entry.memoryMiB, [field]: series.value / MIB };
    else if (gpu !== undefined && field === 'request') entry.gpuResources[gpu] = series.value;
    else if (gpu !== undefined && entry.gpuResources[gpu] === undefined) entry.gpuResources[gpu] = series.value;
  };
  for (const series of requests) record(series, 'request');
  for (const series of limits) record(series, 'limit');
  return info.map(({ labels }) => {
    const namespace = labels.namespace ?? '';
    const name = labels.pod ?? '';
    const owner = ownerOf.get(key(namespace, name));
    const ownerName = owner?.owner_name;
    const lifted = owner?.owner_kind === 'ReplicaSet' && ownerName !== undefined ? deploymentOf.get(key(namespace, ownerName)) : undefined;
    const containers = [...(containersOf.get(key(namespace, name))?.values() ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const gpuResources: Record<string, number> = {};
    for (const container of containers) for (const [resource, count] of Object.entries(container.gpuResources)) gpuResources[resource] = (gpuResources[resource] ?? 0) + count;
    return {
      namespace,
      name,
      phase: phaseOf.get(key(namespace, name)) ?? 'Unknown',
      nodeName: labels.node === undefined || labels.node === '' ? undefined : labels.node,
      owner: lifted !== undefined ? { kind: 'Deployment', name: lifted } : owner?.owner_kind === undefined || ownerName === undefined || owner.owner_kind === '<none>' ? undefined : { kind: owner.owner_kind, name: ownerName },
      labels: labelsOfPod.get(key(namespace, name)) ?? {},
      containers,
      gpuResources,
    };
  }).sort((a, b) => (key(a.namespace, a.name) < key(b.namespace, b.name) ? -1 : 1));
}

/** kube_node_labels' `label_node_kubernetes_io_instance_type` and the GFD labels, under their Kubernetes names. */
const NODE_LABELS: Readonly<Record<string, string>> = {
  label_node_kubernetes_io_instance_type: 'node.kubernetes.io/instance-type',
  label_beta_kubernetes_io_instance_type: 'beta.kubernetes.io/instance-type',
  label_nvidia_com_gpu_product: 'nvidia.com/gpu.product',
  label_nvidia_com_gpu_count: 'nvidia.com/gpu.count',
  label_nvidia_com_gpu_memory: 'nvidia.com/gpu.memory',
  label_nvidia_com_mig_strategy: 'nvidia.com/mig.strategy',
};

function nodesOf(info: readonly Series[], labelSeries: readonly Series[], allocatable: readonly Series[], capacity: readonly Series[]): NodeInfo[] {
  const labelsOf = new Map<string, Record<string, string>>();
  for (const { labels } of labelSeries) {
    const named: Record<string, string> = {};
    for (const [from, to] of Object.entries(NODE_LABELS)) if (labels[from] !== undefined && labels[from] !== '') named[to] = labels[from];
    labelsOf.set(labels.node ?? '', named);
  }
  const resources = (series: readonly Series[], node: string): Map<string, number> => new Map(series.filter((entry) => entry.labels.node === node).map((entry) => [entry.labels.resource ?? '', entry.value]));
  const gpus = (values: Map<string, number>): Record<string, number> => Object.fromEntries([...values].flatMap(([resource, value]) => {
    const name = gpuResourceName(resource);
    return name === undefined ? [] : [[name, value]];
  }));
  return info.map(({ labels }) => {
    const name = labels.node ?? '';
    const nodeLabels = labelsOf.get(name) ?? {};
    const allocatableOf = resources(allocatable, name);
    const number = (text: string | undefined): number | undefined => (text === undefined || !Number.isFinite(Number(text)) ? undefined : Number(text));
    const memory = allocatableOf.get('memory');
    return {
      name,
      labels: nodeLabels,
      instanceType: nodeLabels['node.kubernetes.io/instance-type'] ?? nodeLabels['beta.kubernetes.io/instance-type'],
      gpuProduct: nodeLabels['nvidia.com/gpu.product'],
      gpuCount: number(nodeLabels['nvidia.com/gpu.count']),
      gpuMemoryMiB: number(nodeLabels['nvidia.com/gpu.memory']),
      migStrategy: nodeLabels['nvidia.com/mig.strategy'],
      gpuCapacity: gpus(resources(capacity, name)),
      gpuAllocatable: gpus(allocatableOf),
      cpuAllocatableCores: allocatableOf.get('cpu'),
      memoryAllocatableMiB: memory === undefined ? undefined : memory / MIB,
    };
  }).sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The inventory kube-state-metrics gives over the window; undefined where it exports no kube_pod_info there. */
export async function fetchKubeStateMetrics(client: PrometheusClient, window: AuditWindow, rule: RangeRule, matchers: readonly string[]): Promise<Omit<KubernetesSourceRead, 'ref'> | undefined> {
  const names = new Set(await client.labelValues('__name__', '{__name__=~"kube_pod_info|kube_node_info"}', window.startMs, window.endMs));
  if (!names.has('kube_pod_info')) return undefined;
  const range = promSpan((window.endMs - window.startMs) / 1000, rule);
  const where = matchers.length === 0 ? '' : `{${matchers.join(',')}}`;
  const over = (name: string, fn = 'max_over_time'): Promise<Series[]> => client.instant(`${fn}(${name}${where}[${range}])`, window.endMs, window.startMs)
    .then((samples) => samples.filter((sample) => Number.isFinite(sample.value)));
  const [info, phases, owners, replicaSets, requests, limits, podLabels, nodeInfo, nodeLabels, allocatable, capacity] = await Promise.all([
    over('kube_pod_info'), over('kube_pod_status_phase', 'last_over_time'), over('kube_pod_owner'), over('kube_replicaset_owner'),
    over('kube_pod_container_resource_requests'), over('kube_pod_container_resource_limits'), over('kube_pod_labels'),
    names.has('kube_node_info') ? over('kube_node_info') : Promise.resolve([]), over('kube_node_labels'),
    over('kube_node_status_allocatable'), over('kube_node_status_capacity'),
  ]);
  const pods = podsOf(info, phases, owners, replicaSets, requests, limits, podLabels);
  const nodes = nodesOf(nodeInfo, nodeLabels, allocatable, capacity);
  return { pods, nodes, records: pods.length + nodes.length, warnings: [] };
}

/**
 * Kubernetes attribution, pure: which pod holds which GPU, which GPU pods hold GPUs they do
 * not use (`allocated-unused`), and what a GPU pod's sidecars take (DESIGN.md section 4).
 *
 * Nodes are GPU hosts: dcgm-exporter's `Hostname` is the node name, and an nvidia-smi file's
 * host is its file name (or --host). A node matches a host of the same name, else the one host
 * whose short name (up to the first dot) is the node's, ignoring case.
 *
 * A pod's GPUs are found, best first:
 *  - `dcgm-labels`: the report GPUs whose dcgm-exporter series carried the pod's
 *    namespace/pod labels (the exporter's kubelet pod-resources mapping);
 *  - `node`: every GPU of the pod's node, when the pod is the only GPU pod there and requests
 *    (`nvidia.com/gpu`) at least as many GPUs as the node has.
 * Otherwise the pod's GPUs are unknown; if every GPU of its node was idle, it still holds idle
 * GPUs, so `allocated-unused` is raised with basis `node-idle`.
 *
 * The pod list is a snapshot: a pod matched through its node is taken to have held the GPUs
 * for the whole telemetry window. Label matches need no such assumption.
 */
import type {
  Finding,
  GpuEntry,
  KubernetesContainerEntry,
  KubernetesNodeEntry,
  KubernetesPodEntry,
  KubernetesSection,
  PodGpuMatch,
  SidecarOverhead,
} from '../model/index.js';
import type { ContainerInfo, KubernetesInventory, NodeInfo, PodInfo, PodOnDevice } from '../model/index.js';
import { deviceCount } from '../model/index.js';
import { modelKeyOf } from '../catalog/index.js';
import type { PodAssignmentRecord } from './pod-assignments.js';

/**
 * A GPU pod whose GPUs were idle (compute below the idle threshold) at least 99 % of at least an
 * hour of observation; an error from a day on. 99 % rather than 100 %: a health check or a
 * warm-up kernel should not hide a GPU that is otherwise never used.
 */
export const ALLOCATED_UNUSED_RULE = {
  code: 'allocated-unused',
  severity: 'warning',
  errorSeverity: 'error',
  minIdleFraction: 0.99,
  minObservedHours: 1,
  errorObservedHours: 24,
} as const;

/** Phases in which a pod holds (Running) or is being given (Pending on a node) its GPUs. */
const ALLOCATING_PHASES: readonly string[] = ['Running', 'Pending'];
const WHOLE_GPU_RESOURCE = 'nvidia.com/gpu';
/** Pods named in one note before `...`. */
const MAX_PODS_NAMED = 5;

export interface KubernetesAttributionInput {
  inventory: KubernetesInventory;
  /** The report's GPUs, priced. */
  gpus: readonly GpuEntry[];
  /** FleetProfile.podAssignments: containers seen on each GPU, by GpuEntry id. */
  podAssignments: ReadonlyMap<string, readonly PodAssignmentRecord[]>;
  idleThresholdPct: number;
}

export interface KubernetesAttribution {
  section: KubernetesSection;
  findings: Finding[];
  /** Facts for the Kubernetes sources' warnings: pods left out and why. */
  notes: string[];
}

const shortName = (name: string): string => name.split('.')[0]!.toLowerCase();

/**
 * Finds, for a name, the candidate of the same name, else the only candidate with the same
 * short name (any case). Indexed once: a cluster's pods are each matched against its hosts.
 */
export function nodeNameMatcher(candidates: Iterable<string>): (name: string) => string | undefined {
  const exact = new Set<string>();
  /** Short name -> its candidate, or null when several candidates share it. */
  const byShortName = new Map<string, string | null>();
  for (const candidate of candidates) {
    if (exact.has(candidate)) continue;
    exact.add(candidate);
    const short = shortName(candidate);
    byShortName.set(short, byShortName.has(short) ? null : candidate);
  }
  return (name) => (exact.has(name) ? name : (byShortName.get(shortName(name)) ?? undefined));
}

/** The node of each host (see nodeNameMatcher); hosts without a node are absent. */
export function nodesByHost(nodes: readonly NodeInfo[], hosts: Iterable<string>): Map<string, NodeInfo> {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const nodeNamed = nodeNameMatcher(byName.keys());
  const matched = new Map<string, NodeInfo>();
  for (const host of hosts) {
    const name = nodeNamed(host);
    if (name !== undefined) matched.set(host, byName.get(name)!);
  }
  return matched;
}

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);
const percentOf = (part: number, whole: number | undefined): number | null => (whole === undefined || whole <= 0 ? null : (part / whole) * 100);

/** Containers that run for the pod's life: app containers and native sidecars (plain init containers finish first). */
function runningContainers(pod: PodInfo): ContainerInfo[] {
  return pod.containers.filter((container) => container.kind !== 'init');
}

function isSidecar(container: ContainerInfo): boolean {
  return container.kind !== 'init' && deviceCount(container.gpuResources) === 0;
}

/** Sum of limits, or null when any container has none (one unbounded container makes the total unbounded). */
function limitTotal(limits: readonly (number | undefined)[]): number | null {
  return limits.some((limit) => limit === undefined) ? null : sum(limits as number[]);
}

/**
 * What a GPU pod's sidecars request, and their share of the pod's requests and of the node's
 * allocatable CPU and memory. For the workload profile's `sidecars` figures.
 */
export function sidecarOverhead(pod: PodInfo, node: NodeInfo | undefined): SidecarOverhead {
  const sidecars = pod.containers.filter(isSidecar);
  const running = runningContainers(pod);
  const cpu = sum(sidecars.map((container) => container.cpuCores.request ?? 0));
  const memory = sum(sidecars.map((container) => container.memoryMiB.request ?? 0));
  return {
    containers: sidecars.map((container) => container.name),
    cpuRequestCores: cpu,
    cpuLimitCores: limitTotal(sidecars.map((container) => container.cpuCores.limit)),
    memoryRequestMiB: memory,
    memoryLimitMiB: limitTotal(sidecars.map((container) => container.memoryMiB.limit)),
    cpuPctOfPod: percentOf(cpu, sum(running.map((container) => container.cpuCores.request ?? 0))),
    memoryPctOfPod: percentOf(memory, sum(running.map((container) => container.memoryMiB.request ?? 0))),
    cpuPctOfNode: percentOf(cpu, node?.cpuAllocatableCores),
    memoryPctOfNode: percentOf(memory, node?.memoryAllocatableMiB),
  };
}

function containerEntry(container: ContainerInfo): KubernetesContainerEntry {
  const gpus = deviceCount(container.gpuResources);
  return {
    name: container.name,
    role: gpus > 0 ? 'gpu' : 'sidecar',
    gpus,
    cpuRequestCores: container.cpuCores.request ?? null,
    cpuLimitCores: container.cpuCores.limit ?? null,
    memoryRequestMiB: container.memoryMiB.request ?? null,
    memoryLimitMiB: container.memoryMiB.limit ?? null,
  };
}

/** GPUs a node has, by its own account (capacity, then the GFD count), else as many as the telemetry shows. */
function nodeGpuCount(node: NodeInfo | undefined, telemetryCount: number): number {
  return node?.gpuCapacity[WHOLE_GPU_RESOURCE] ?? node?.gpuCount ?? telemetryCount;
}

interface PodMatch {
  gpus: GpuEntry[];
  basis: PodGpuMatch | null;
}

const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** Everything the join needs about the report's GPUs, indexed once. */
interface GpuIndex {
  /** GPUs (MIG devices included) whose series carried each pod's labels, in report order. */
  byPod: Map<string, GpuEntry[]>;
  /** Physical GPUs of each host, in report order. */
  physicalByHost: Map<string, GpuEntry[]>;
  hostOfNode: Map<string, string>;
  nodeOfHost: Map<string, NodeInfo>;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const values = map.get(key);
  if (values === undefined) map.set(key, [value]);
  else values.push(value);
}

function indexGpus(input: KubernetesAttributionInput): GpuIndex {
  const byPod = new Map<string, GpuEntry[]>();
  const physicalByHost = new Map<string, GpuEntry[]>();
  for (const gpu of input.gpus) {
    const pods = new Set((input.podAssignments.get(gpu.id) ?? []).map((record) => podKey(record.namespace, record.pod)));
    for (const pod of pods) pushTo(byPod, pod, gpu);
    if (gpu.parentId === null) pushTo(physicalByHost, gpu.host, gpu);
  }
  const nodeOfHost = nodesByHost(input.inventory.nodes, physicalByHost.keys());
  // A pod names its node; the Node may be absent from the input (pods only): then its name must match a host itself.
  const hostOfNode = new Map([...nodeOfHost].map(([host, node]) => [node.name, host]));
  const hostNamed = nodeNameMatcher(physicalByHost.keys());
  for (const pod of input.inventory.pods) {
    if (pod.nodeName === undefined || hostOfNode.has(pod.nodeName)) continue;
    const host = hostNamed(pod.nodeName);
    if (host !== undefined) hostOfNode.set(pod.nodeName, host);
  }
  return { byPod, physicalByHost, hostOfNode, nodeOfHost };
}

function matchPod(pod: PodInfo, index: GpuIndex, gpuPodsByNode: ReadonlyMap<string, number>, nodes: ReadonlyMap<string, NodeInfo>): PodMatch {
  const labelled = index.byPod.get(podKey(pod.namespace, pod.name));
  if (labelled !== undefined) return { gpus: labelled, basis: 'dcgm-labels' };
  const host = pod.nodeName === undefined ? undefined : index.hostOfNode.get(pod.nodeName);
  const hostGpus = host === undefined ? [] : (index.physicalByHost.get(host) ?? []);
  const wholeGpus = pod.gpuResources[WHOLE_GPU_RESOURCE] ?? 0;
  const alone = pod.nodeName !== undefined && gpuPodsByNode.get(pod.nodeName) === 1;
  const node = pod.nodeName === undefined ? undefined : nodes.get(pod.nodeName);
  if (alone && hostGpus.length > 0 && wholeGpus > 0 && wholeGpus >= nodeGpuCount(node, hostGpus.length)) {
    return { gpus: hostGpus, basis: 'node' };
  }
  return { gpus: [], basis: null };
}

function isAllocating(pod: PodInfo): boolean {
  return deviceCount(pod.gpuResources) > 0 && ALLOCATING_PHASES.includes(pod.phase);
}

/** Time-weighted idleness of a set of GPUs, when every one of them tells it. */
function idleness(gpus: readonly GpuEntry[]): { hours: number; idleGpuHours: number; gpuHours: number; idleFraction: number } | undefined {
  if (gpus.length === 0 || gpus.some((gpu) => gpu.idleFraction === null)) return undefined;
  const gpuHours = sum(gpus.map((gpu) => gpu.gpuHours));
  const idleGpuHours = sum(gpus.map((gpu) => gpu.idleHours));
  if (gpuHours <= 0) return undefined;
  return { hours: Math.max(...gpus.map((gpu) => gpu.gpuHours)), idleGpuHours, gpuHours, idleFraction: idleGpuHours / gpuHours };
}

/** Hourly cost of these GPUs; null when any is unpriced. */
function totalCost(gpus: readonly GpuEntry[]): number | null {
  const costs = gpus.map((gpu) => gpu.hourlyCostUsd);
  return costs.some((cost) => cost === null) ? null : sum(costs as number[]);
}

/**
 * Hourly cost of a pod's whole GPUs on a node (which ones is unknown: they cost the same); null
 * when unpriced, or when the pod holds MIG instances or shared replicas, whose share of a GPU's
 * price the request does not tell.
 */
function nodeShareCost(nodeGpus: readonly GpuEntry[], requests: Readonly<Record<string, number>>): number | null {
  const perGpu = nodeGpus.find((gpu) => gpu.hourlyCostUsd !== null)?.hourlyCostUsd;
  const wholeGpus = requests[WHOLE_GPU_RESOURCE];
  const onlyWholeGpus = Object.keys(requests).every((resource) => resource === WHOLE_GPU_RESOURCE);
  return perGpu === undefined || perGpu === null || wholeGpus === undefined || !onlyWholeGpus ? null : wholeGpus * perGpu;
}

const round = (value: number, places: number): number => Math.round(value * 10 ** places) / 10 ** places;

function allocatedUnused(
  pod: PodInfo,
  match: PodMatch,
  index: GpuIndex,
  idleThresholdPct: number,
): Finding | null {
  const rule = ALLOCATED_UNUSED_RULE;
  const requested = deviceCount(pod.gpuResources);
  // Unknown which GPUs: if every GPU of the node was idle, so were the pod's.
  const basis = match.basis ?? 'node-idle';
  const host = pod.nodeName === undefined ? undefined : index.hostOfNode.get(pod.nodeName);
  const gpus = match.basis !== null ? match.gpus : host === undefined ? [] : (index.physicalByHost.get(host) ?? []);
  const idle = idleness(gpus);
  if (idle === undefined || idle.hours < rule.minObservedHours) return null;
  if (gpus.some((gpu) => (gpu.idleFraction ?? 0) < rule.minIdleFraction)) return null;
  const hourlyCostUsd = basis === 'node-idle' ? nodeShareCost(gpus, pod.gpuResources) : totalCost(gpus);
  const target = podKey(pod.namespace, pod.name);
  const evidence: Finding['evidence'] = {
    pod: pod.name,
    namespace: pod.namespace,
    node: pod.nodeName ?? null,
    workload: pod.owner === undefined ? null : `${pod.owner.kind}/${pod.owner.name}`,
    gpusRequested: requested,
    gpus: basis === 'node-idle' ? null : gpus.map((gpu) => gpu.id).join(','),
    basis,
    hours: idle.hours,
    idleGpuHours: idle.idleGpuHours,
    idleFraction: idle.idleFraction,
    idleThresholdPct,
    hourlyCostUsd,
  };
  const where = basis === 'node-idle' ? `every GPU of node ${pod.nodeName ?? '?'}` : `its ${gpus.length === 1 ? 'GPU' : `${gpus.length} GPUs`}`;
  return {
    id: `${rule.code}:${target}`,
    code: rule.code,
    severity: idle.hours >= rule.errorObservedHours ? rule.errorSeverity : rule.severity,
    target,
    message: `Pod ${target} requests ${requested} GPU${requested === 1 ? '' : 's'}, but ${where} was idle ${round(idle.idleFraction * 100, 1)}% of ${round(idle.hours, 1)} h (compute below ${idleThresholdPct}%).`,
    evidence,
  };
}

/** A GPU node as the report shows it; a GFD product label (`NVIDIA-H100-80GB-HBM3`) gets its catalog key. */
function nodeEntry(node: NodeInfo, host: string | null): KubernetesNodeEntry {
  return {
    name: node.name,
    host,
    instanceType: node.instanceType ?? null,
    gpuProduct: node.gpuProduct ?? null,
    modelKey: modelKeyOf(node.gpuProduct ?? null),
    gpuCount: node.gpuCount ?? null,
    gpuMemoryMiB: node.gpuMemoryMiB ?? null,
    migStrategy: node.migStrategy ?? null,
    gpuCapacity: { ...node.gpuCapacity },
    gpuAllocatable: { ...node.gpuAllocatable },
    cpuAllocatableCores: node.cpuAllocatableCores ?? null,
    memoryAllocatableMiB: node.memoryAllocatableMiB ?? null,
  };
}

/** A node with GPUs: it says so (capacity or GFD labels), or the telemetry has its GPUs. */
function hasGpus(node: NodeInfo, host: string | undefined): boolean {
  return host !== undefined || deviceCount(node.gpuCapacity) > 0 || node.gpuProduct !== undefined || (node.gpuCount ?? 0) > 0;
}

/** Joins the cluster's pods and nodes to the report's GPUs. */
export function attributeKubernetes(input: KubernetesAttributionInput): KubernetesAttribution {
  const index = indexGpus(input);
  const nodes = new Map(input.inventory.nodes.map((node) => [node.name, node]));
  const allocating = input.inventory.pods.filter(isAllocating);
  const gpuPodsByNode = new Map<string, number>();
  for (const pod of allocating) if (pod.nodeName !== undefined) gpuPodsByNode.set(pod.nodeName, (gpuPodsByNode.get(pod.nodeName) ?? 0) + 1);

  const notes: string[] = [];
  const notAllocating = new Map<string, number>();
  for (const pod of input.inventory.pods) {
    if (deviceCount(pod.gpuResources) > 0 && !isAllocating(pod)) notAllocating.set(pod.phase, (notAllocating.get(pod.phase) ?? 0) + 1);
  }
  for (const [phase, count] of notAllocating) {
    notes.push(`${count} GPU pod${count === 1 ? '' : 's'} in phase ${phase} left out: only Running and Pending pods hold GPUs`);
  }
  const listed = new Set(input.inventory.pods.map((pod) => podKey(pod.namespace, pod.name)));
  const unlisted = [...index.byPod.keys()].filter((key) => !listed.has(key)).sort();
  if (unlisted.length > 0) {
    const shown = unlisted.slice(0, MAX_PODS_NAMED).join(', ') + (unlisted.length > MAX_PODS_NAMED ? ', ...' : '');
    notes.push(`${unlisted.length} pod${unlisted.length === 1 ? '' : 's'} seen on GPUs (dcgm-exporter labels) not in the pod list, finished or from another cluster: ${shown}`);
  }

  const pods: KubernetesPodEntry[] = [];
  const findings: Finding[] = [];
  const sorted = [...allocating].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  for (const pod of sorted) {
    const match = matchPod(pod, index, gpuPodsByNode, nodes);
    pods.push({
      namespace: pod.namespace,
      name: pod.name,
      phase: pod.phase,
      node: pod.nodeName ?? null,
      workloadKind: pod.owner?.kind ?? null,
      workloadName: pod.owner?.name ?? null,
      labels: { ...pod.labels },
      gpuResources: { ...pod.gpuResources },
      gpusRequested: deviceCount(pod.gpuResources),
      gpus: match.gpus.map((gpu) => gpu.id),
      gpuMatch: match.basis,
      containers: runningContainers(pod).map(containerEntry),
      sidecars: sidecarOverhead(pod, pod.nodeName === undefined ? undefined : nodes.get(pod.nodeName)),
    });
    if (pod.nodeName === undefined) continue;
    const finding = allocatedUnused(pod, match, index, input.idleThresholdPct);
    if (finding !== null) findings.push(finding);
  }

  const hostOfNodeName = new Map([...index.nodeOfHost].map(([host, node]) => [node.name, host]));
  const nodeEntries = input.inventory.nodes
    .filter((node) => hasGpus(node, hostOfNodeName.get(node.name)))
    .map((node) => nodeEntry(node, hostOfNodeName.get(node.name) ?? null))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { section: { pods, nodes: nodeEntries }, findings, notes };
}

/** The containers seen on each device, with their pod's labels where the Kubernetes inventory has the pod. */
export function podsOnDevices(
  assignments: ReadonlyMap<string, readonly PodAssignmentRecord[]>,
  pods: readonly { namespace: string; name: string; labels: Readonly<Record<string, string>> }[],
): Map<string, PodOnDevice[]> {
  const labelsOf = new Map(pods.map((pod) => [`${pod.namespace}/${pod.name}`, pod.labels]));
  const result = new Map<string, PodOnDevice[]>();
  for (const [deviceId, records] of assignments) {
    result.set(deviceId, records.map((record) => ({
      namespace: record.namespace,
      pod: record.pod,
      ...(record.container === null ? {} : { container: record.container }),
      labels: { ...labelsOf.get(`${record.namespace}/${record.pod}`) },
    })));
  }
  return result;
}

/**
 * A Pod object (`kubectl get pods -o json` item, or a manifest) read into PodInfo: GPU
 * requests, CPU and memory requests and limits per container, the owning workload, labels.
 */
import { deviceCount, isGpuResource } from '../../../model/index.js';
import { arrayAt, asObject, type JsonObject, MAX_NAMESPACE_CHARS, objectAt, objectName, stringAt, stringMapAt } from './json-fields.js';
import { cpuCores, memoryMiB, parseQuantity } from './quantity.js';
import type { ContainerInfo, OwnerInfo, PodInfo, RequestAndLimit } from '../../../model/index.js';

export type Warn = (message: string) => void;

/** Namespace of a manifest that names none: where `kubectl apply` would put it. */
const DEFAULT_NAMESPACE = 'default';
/** A manifest has no status; Kubernetes' own word for a phase it cannot tell. */
const UNKNOWN_PHASE = 'Unknown';

/**
 * The Deployment behind a ReplicaSet owner: the Deployment controller names each ReplicaSet
 * `<deployment>-<pod-template-hash>` and puts the hash on its pods as a label.
 */
function ownerOf(metadata: JsonObject | undefined, labels: Readonly<Record<string, string>>): OwnerInfo | undefined {
  const references = arrayAt(metadata, 'ownerReferences').map(asObject).filter((ref) => ref !== undefined);
  const controller = references.find((ref) => ref['controller'] === true) ?? references[0];
  const kind = stringAt(controller, 'kind');
  const name = stringAt(controller, 'name');
  if (kind === undefined || name === undefined) return undefined;
  const hash = labels['pod-template-hash'];
  if (kind === 'ReplicaSet' && hash !== undefined && name.endsWith(`-${hash}`)) {
    return { kind: 'Deployment', name: name.slice(0, -(hash.length + 1)) };
  }
  return { kind, name };
}

/**
 * One resource of a container. Requests default to limits where only a limit is given (what
 * the API server does on admission; manifests may not have been through it).
 */
function requestAndLimit(
  resources: JsonObject | undefined,
  resource: string,
  convert: (value: unknown) => number | undefined,
  warn: Warn,
): RequestAndLimit {
  const read = (section: 'requests' | 'limits'): number | undefined => {
    const raw = objectAt(resources, section)?.[resource];
    if (raw === undefined) return undefined;
    const value = convert(raw);
    if (value === undefined) warn(`${section}.${resource} ${JSON.stringify(raw)} is not a Kubernetes quantity; left out`);
    return value;
  };
  const limit = read('limits');
  return { request: read('requests') ?? limit, limit };
}

/** GPU extended resources of a container: from limits (where they must be set), else requests. */
function gpuResourcesOf(resources: JsonObject | undefined, warn: Warn): Record<string, number> {
  const found: Record<string, number> = {};
  for (const section of ['requests', 'limits'] as const) {
    for (const [name, raw] of Object.entries(objectAt(resources, section) ?? {})) {
      if (!isGpuResource(name)) continue;
      const count = parseQuantity(raw);
      if (count === undefined || count < 0 || !Number.isInteger(count)) {
        warn(`${section}.${name} ${JSON.stringify(raw)} is not a whole number of devices; left out`);
        continue;
      }
      // Limits win: extended resources may not be overcommitted, so a request differing from the limit is invalid anyway.
      if (section === 'limits' || found[name] === undefined) found[name] = count;
    }
  }
  return found;
}

function readContainer(raw: unknown, kind: ContainerInfo['kind'], index: number, warn: Warn): ContainerInfo {
  const container = asObject(raw);
  const name = stringAt(container, 'name') ?? `#${index}`;
  const containerWarn: Warn = (message) => warn(`container ${name}: ${message}`);
  const resources = objectAt(container, 'resources');
  return {
    name,
    kind,
    gpuResources: gpuResourcesOf(resources, containerWarn),
    cpuCores: requestAndLimit(resources, 'cpu', cpuCores, containerWarn),
    memoryMiB: requestAndLimit(resources, 'memory', memoryMiB, containerWarn),
  };
}

/**
 * The pod's GPU requests as the scheduler counts them, per resource: the sum over the containers
 * that run together (app containers and native sidecars), or the largest init container's
 * request where that is larger (init containers run one at a time, before the others).
 */
export function podGpuResources(containers: readonly ContainerInfo[]): Record<string, number> {
  const running: Record<string, number> = {};
  const initPeak: Record<string, number> = {};
  for (const container of containers) {
    for (const [name, count] of Object.entries(container.gpuResources)) {
      if (container.kind === 'init') initPeak[name] = Math.max(initPeak[name] ?? 0, count);
      else running[name] = (running[name] ?? 0) + count;
    }
  }
  const effective: Record<string, number> = {};
  for (const name of new Set([...Object.keys(running), ...Object.keys(initPeak)])) {
    const count = Math.max(running[name] ?? 0, initPeak[name] ?? 0);
    if (count > 0) effective[name] = count;
  }
  return effective;
}

/** Reads a Pod object; undefined (with a warning) when it has no name. */
export function readPod(object: JsonObject, warn: Warn): PodInfo | undefined {
  const metadata = objectAt(object, 'metadata');
  const name = objectName(metadata, 'Pod', warn);
  if (name === undefined) return undefined;
  const namespace = stringAt(metadata, 'namespace') ?? DEFAULT_NAMESPACE;
  if (namespace.length > MAX_NAMESPACE_CHARS) {
    warn(`Pod ${name}: metadata.namespace of ${namespace.length} characters, longer than Kubernetes allows (${MAX_NAMESPACE_CHARS}); skipped`);
    return undefined;
  }
  const podWarn: Warn = (message) => warn(`pod ${namespace}/${name}: ${message}`);
  const labels = stringMapAt(metadata, 'labels');
  const spec = objectAt(object, 'spec');
  const containers: ContainerInfo[] = [
    ...arrayAt(spec, 'containers').map((raw, index) => readContainer(raw, 'app', index, podWarn)),
    ...arrayAt(spec, 'initContainers').map((raw, index) =>
      readContainer(raw, stringAt(asObject(raw), 'restartPolicy') === 'Always' ? 'native-sidecar' : 'init', index, podWarn)),
  ];
  return {
    namespace,
    name,
    phase: stringAt(objectAt(object, 'status'), 'phase') ?? UNKNOWN_PHASE,
    nodeName: stringAt(spec, 'nodeName'),
    owner: ownerOf(metadata, labels),
    labels,
    containers,
    gpuResources: podGpuResources(containers),
  };
}

/** Whether the pod requests any GPU device. */
export function requestsGpus(pod: PodInfo): boolean {
  return deviceCount(pod.gpuResources) > 0;
}

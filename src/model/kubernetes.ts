/**
 * What gpu-audit reads from Kubernetes Pod and Node objects: only the facts that attribute
 * GPUs to workloads and price the nodes. Quantities are converted on reading: CPU in cores,
 * memory in MiB, GPU resources in devices. Undefined means the object did not say.
 */

/** Requests and limits of one resource kind of one container. */
export interface RequestAndLimit {
  request: number | undefined;
  limit: number | undefined;
}

export interface ContainerInfo {
  name: string;
  /**
   * `app`: spec.containers; `native-sidecar`: an init container with `restartPolicy: Always`
   * (Kubernetes 1.28+ sidecars, which run beside the app containers); `init`: an init container
   * that runs to completion before the app containers start.
   */
  kind: 'app' | 'native-sidecar' | 'init';
  /** GPU extended resources by name (`nvidia.com/gpu`, `nvidia.com/mig-1g.10gb`), in devices. */
  gpuResources: Readonly<Record<string, number>>;
  cpuCores: RequestAndLimit;
  memoryMiB: RequestAndLimit;
}

export interface OwnerInfo {
  /** Deployment (through its ReplicaSet), ReplicaSet, StatefulSet, DaemonSet, Job, ... */
  kind: string;
  name: string;
}

export interface PodInfo {
  namespace: string;
  name: string;
  /** status.phase (Pending, Running, Succeeded, Failed, Unknown); `Unknown` for a manifest without status. */
  phase: string;
  /** spec.nodeName: set once the pod is scheduled. */
  nodeName: string | undefined;
  owner: OwnerInfo | undefined;
  labels: Readonly<Record<string, string>>;
  containers: readonly ContainerInfo[];
  /** The pod's effective GPU requests by resource (see ./pods.ts: podGpuResources). */
  gpuResources: Readonly<Record<string, number>>;
}

export interface NodeInfo {
  name: string;
  labels: Readonly<Record<string, string>>;
  /** `node.kubernetes.io/instance-type`, else the older `beta.kubernetes.io/instance-type`. */
  instanceType: string | undefined;
  /** GPU feature discovery `nvidia.com/gpu.product`, as printed (`NVIDIA-H100-80GB-HBM3`). */
  gpuProduct: string | undefined;
  /** GFD `nvidia.com/gpu.count`. */
  gpuCount: number | undefined;
  /** GFD `nvidia.com/gpu.memory`, MiB per GPU. */
  gpuMemoryMiB: number | undefined;
  /** GFD `nvidia.com/mig.strategy`: none, single or mixed. */
  migStrategy: string | undefined;
  /** status.capacity / status.allocatable of GPU resources, by resource name. */
  gpuCapacity: Readonly<Record<string, number>>;
  gpuAllocatable: Readonly<Record<string, number>>;
  cpuAllocatableCores: number | undefined;
  memoryAllocatableMiB: number | undefined;
}

export interface KubernetesInventory {
  pods: PodInfo[];
  nodes: NodeInfo[];
}

/** One input of Kubernetes objects, read: what it held and what was skipped. */
export interface KubernetesSourceRead extends KubernetesInventory {
  /** The input as the user named it, or `kubectl` for --kubectl. */
  ref: string;
  /** Objects read (pods, nodes and skipped objects of other kinds). */
  records: number;
  warnings: string[];
}

/** A Kubernetes container seen on a device (from PodAssignment events, resolved to report ids). */
export interface PodOnDevice {
  namespace: string;
  pod: string;
  container?: string;
  labels?: Record<string, string>;
}

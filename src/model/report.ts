/**
 * The JSON report contract (schemaVersion 1). `schema/report.schema.json` describes
 * the same shape for consumers; test/report/schema.test.ts keeps the two in step.
 * Renderers read only this: every figure they show is already here.
 */
import type { ComputeBasis, MigMode } from './observations.js';

export const REPORT_SCHEMA_VERSION = 1;

/** Time-weighted statistics of a percentage series (DESIGN.md section 5). */
export interface PercentStats {
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

export interface MemoryStats {
  mean: number;
  p95: number;
  max: number;
}

/** Time-weighted statistics of a throughput series, MiB/s. */
export interface ThroughputStats {
  mean: number;
  p95: number;
  max: number;
}

/** A GPU's fastest PCIe link with its host and that link's bandwidth each way. */
export interface PcieLink {
  generation: number;
  width: number;
  /** Usable bandwidth per direction after line encoding, MiB/s (src/analysis/pcie-link.ts). */
  bandwidthMiBps: number;
}

export interface SourceSummary {
  /** The input as the user named it (`-` for stdin). */
  ref: string;
  format: string;
  /** Documents (XML), data rows (text formats), scrapes (exposition) or queries made (live Prometheus). */
  records: number;
  warnings: string[];
}

export interface ProcessSummary {
  pid: number;
  name: string;
  type: string | null;
  /** Largest `used_memory` seen for this pid on this device; null where the driver printed N/A (WDDM). */
  maxMemoryMiB: number | null;
  samples: number;
}

/**
 * A GPU's activity over the window in equal buckets, for charts. Bounded: at most
 * TIMELINE_MAX_BUCKETS buckets whatever the window (buckets widen as the window grows).
 */
export interface GpuTimeline {
  /** ISO time the first bucket starts. */
  start: string;
  bucketSeconds: number;
  /** Time-weighted mean of the compute basis signal per bucket, percent; null where unobserved. */
  computeMeanPct: (number | null)[];
  /** Largest memory used seen in the bucket, MiB; null where unobserved. */
  memoryUsedMaxMiB: (number | null)[];
}

export const TIMELINE_MAX_BUCKETS = 500;

export type InstanceTypeBasis = 'label' | 'config' | 'flag' | 'inferred';

export interface GpuEntry {
  /** UUID, `UUID/GI` for MIG devices; made unique with `@host` / `#pciBusId` where UUIDs collide (masked). */
  id: string;
  host: string;
  index: number | null;
  uuid: string | null;
  pciBusId: string | null;
  model: string | null;
  /** Catalog key of the GPU model, or `unknown`. */
  modelKey: string;
  memoryTotalMiB: number | null;
  migMode: MigMode | null;
  /** For a MIG device: the `id` of its parent GPU. */
  parentId: string | null;
  migProfile: string | null;
  instanceType: string | null;
  instanceTypeBasis: InstanceTypeBasis | null;
  utilization: PercentStats | null;
  smActive: PercentStats | null;
  tensorActive: PercentStats | null;
  grEngineActive: PercentStats | null;
  /** Which signal `idleFraction` and compute figures were taken from. */
  computeBasis: ComputeBasis;
  memoryUsedMiB: MemoryStats | null;
  /** memoryTotalMiB - memoryUsedMiB.max (MiB) and as a percent of the total. */
  vramHeadroomMiB: number | null;
  vramHeadroomPct: number | null;
  /** Idle time / observed time, 0-1; null when no signal tells idleness. */
  idleFraction: number | null;
  idleHours: number;
  gpuHours: number;
  samples: number;
  firstSeen: string | null;
  lastSeen: string | null;
  processes: ProcessSummary[];
  hourlyCostUsd: number | null;
  timeline: GpuTimeline | null;
  /**
   * Time-weighted mean of the compute basis signal for each of the 168 hours of the week
   * (index 0 = Monday 00:00-01:00 in window.timezone), percent; null for hours not observed.
   * Null when the GPU has no timed samples.
   */
  hourOfWeekComputePct: (number | null)[] | null;
  /** Host-to-device PCIe traffic (nvidia-smi rx_util, DCGM PCIE_RX), MiB/s; null when no source reports it. */
  pcieRxMiBps?: ThroughputStats | null;
  /** Device-to-host PCIe traffic, MiB/s. */
  pcieTxMiBps?: ThroughputStats | null;
  /** Null when the link is not reported (nvidia-smi XML, or the CSV's pcie.link.gen.max and pcie.link.width.max). */
  pcieLink?: PcieLink | null;
}

export interface VramProfile {
  peakMiB: number | null;
  p95MiB: number | null;
  requiredMiB: number | null;
  basis: 'measured' | 'declared' | 'estimated' | 'upper-bound' | 'unknown';
  /** Whether the workload runs a server that preallocates memory (measured usage is then an upper bound). */
  preallocating?: boolean;
  /** The preallocating server recognised by process name (`vLLM`, ...), `config` when declared; null when not preallocating. */
  preallocatingServer?: string | null;
  /** VRAM need per GPU declared in the config, MiB. */
  declaredMiB?: number | null;
  /** The model-based estimate per GPU with each term; null without model facts. */
  estimate?: VramEstimateEntry | null;
  /** Headroom added to the need, percent. */
  headroomPct?: number;
}

/** An LLM's VRAM need per GPU: weights + KV cache + runtime overhead, each with its arithmetic. */
export interface VramEstimateEntry {
  totalMiB: number;
  terms: { term: string; mib: number; formula: string }[];
  /** Model facts the KV-cache term needs and the config lacks; the estimate is a lower bound while any are missing. */
  missing: string[];
}

/** Ladder signals of a workload, GPU-hour-weighted means over its devices, percent. */
export interface WorkloadSignals {
  smActivePct: number | null;
  tensorActivePct: number | null;
  grEngineActivePct: number | null;
  utilizationPct: number | null;
}

export interface WorkloadEntry {
  name: string;
  kind: string;
  gpus: string[];
  vram: VramProfile;
  compute: {
    basis: ComputeBasis;
    mean: number | null;
    p95: number | null;
    busyFraction: number | null;
    /** 1 - busyFraction. */
    idleFraction?: number | null;
    signals?: WorkloadSignals;
    /** 168 hours of the week (0 = Monday 00:00 in window.timezone): weighted mean of the devices' hourOfWeekComputePct; null when none has it. */
    hourOfWeekPct?: (number | null)[] | null;
  };
  cpuPipeline: { verdict: 'gpu-bound' | 'input-bound' | 'idle' | 'unknown'; evidence: string[] };
  sidecars: {
    cpuCores: number | null;
    memoryMiB: number | null;
    overheadPct: number | null;
    /** Sidecars' share of their nodes (the larger of CPU and memory) x node hourly price x 730, USD per month. */
    monthlyCostUsd?: number | null;
    /** Cores the sidecars used (cAdvisor), where measured for every sidecar. */
    cpuUsedCores?: number | null;
  };
  cost: {
    hourlyUsd: number | null;
    wasteHourlyUsd: number | null;
    monthlyUsd?: number | null;
    monthlyWasteUsd?: number | null;
    wasteBreakdown?: { idleMonthlyUsd: number | null; vramOverprovisionMonthlyUsd: number | null };
  };
  /** From gpu-audit.yaml; null when not configured. */
  version?: string | null;
  tenant?: string | null;
  /** Devices of `gpus` that another workload (or `unassigned`) also holds; their hours and cost are split. */
  sharedGpus?: string[];
  /** GPU-hours attributed to the workload (shared devices count their share). */
  gpuHours?: number;
}

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  /** Stable within a report: `${code}:${target}`. */
  id: string;
  /** Stable machine key (idle-gpu, short-window, ...); thresholds, SARIF rules and tests key on it. */
  code: string;
  severity: Severity;
  /** GPU id, workload name, or `fleet`. */
  target: string;
  message: string;
  evidence: Record<string, string | number | boolean | null>;
}

export type RecommendationKind = 'rightsize' | 'mig' | 'time-slicing' | 'mps' | 'purchase' | 'replicas' | 'autoscale';

export interface Recommendation {
  id: string;
  kind: RecommendationKind;
  targets: string[];
  current: string;
  proposed: string;
  monthlySavingsUsd: number;
  confidence: 'high' | 'medium' | 'low';
  confidenceReasons: string[];
  risks: string[];
  rationale: string;
  evidence: Record<string, string | number | boolean | null>;
  config?: { format: string; text: string };
  /** Whether `summary.potentialMonthlySavingsUsd` includes this one (alternatives on the same GPUs are not counted). */
  counted?: boolean;
  /** `id` of the counted recommendation this is an alternative to (they change the same GPUs). */
  alternativeTo?: string;
}

/** A GPU's compute basis, or `mixed` when the GPUs in a fleet figure were read on different ones. */
export type FleetComputeBasis = ComputeBasis | 'mixed';

export interface FleetSummary {
  /** Physical GPUs (MIG devices are counted through their parent). */
  gpuCount: number;
  migDeviceCount: number;
  hostCount: number;
  gpuHours: number;
  idleGpuHours: number;
  /** GPU-hour-weighted mean of per-GPU utilization, percent; null when no GPU reports utilization. */
  meanUtilization: number | null;
  /**
   * GPU-hour-weighted mean of each physical GPU's compute-basis mean, percent (a plain mean when
   * no counted GPU has observed time); null when no GPU has a compute figure (basis `unknown`).
   */
  meanComputePct: number | null;
  /** The basis meanComputePct was taken on: the one every counted GPU shares, else `mixed`. */
  computeBasis: FleetComputeBasis;
  /** idleGpuHours / gpuHours x 100; null when gpuHours is 0 (snapshots only). */
  wastePct: number | null;
  monthlyCostUsd: number | null;
  monthlyWasteUsd: number | null;
  potentialMonthlySavingsUsd: number;
}

export interface ReportWindow {
  start: string | null;
  end: string | null;
  seconds: number;
  /** IANA zone in which timestamps without a zone were read. */
  timezone: string;
}

export interface ReportSettings {
  idleThresholdPct: number;
  pricing: string;
  provider: string | null;
  region: string | null;
}

/** CPU and memory of the containers that run beside a pod's GPU containers (its sidecars). */
export interface SidecarOverhead {
  /** Names of the sidecar containers: non-GPU app containers and native sidecars (init containers with restartPolicy Always). */
  containers: string[];
  /** Sum of the sidecars' requests, cores; a container without a request adds 0. */
  cpuRequestCores: number;
  /** Sum of the sidecars' limits, cores; null when a sidecar has no limit (unbounded). */
  cpuLimitCores: number | null;
  memoryRequestMiB: number;
  memoryLimitMiB: number | null;
  /** Sidecar requests / the pod's requests (every container that runs beside the GPU work) x 100; null when the pod requests none. */
  cpuPctOfPod: number | null;
  memoryPctOfPod: number | null;
  /** Sidecar requests / the node's allocatable x 100; null when the node is unknown. */
  cpuPctOfNode: number | null;
  memoryPctOfNode: number | null;
}

export interface KubernetesContainerEntry {
  name: string;
  /** `gpu`: holds GPU resources; `sidecar`: runs beside them without any. */
  role: 'gpu' | 'sidecar';
  /** GPU devices the container requests (whole GPUs, shared replicas and MIG instances). */
  gpus: number;
  cpuRequestCores: number | null;
  cpuLimitCores: number | null;
  memoryRequestMiB: number | null;
  memoryLimitMiB: number | null;
}

/** How a pod's GPUs were found: dcgm-exporter pod labels, or its node (the only GPU pod there, holding every GPU). */
export type PodGpuMatch = 'dcgm-labels' | 'node';

export interface KubernetesPodEntry {
  namespace: string;
  name: string;
  phase: string;
  node: string | null;
  /** The controller behind the pod (a ReplicaSet's Deployment, StatefulSet, Job, DaemonSet ...); null for a bare pod. */
  workloadKind: string | null;
  workloadName: string | null;
  labels: Record<string, string>;
  /** GPU extended resources the pod requests, by resource name (`nvidia.com/gpu`, `nvidia.com/mig-1g.10gb`), devices. */
  gpuResources: Record<string, number>;
  /** Sum of gpuResources. */
  gpusRequested: number;
  /** `id`s of the report's GPUs the pod was matched to. */
  gpus: string[];
  gpuMatch: PodGpuMatch | null;
  containers: KubernetesContainerEntry[];
  sidecars: SidecarOverhead;
}

export interface KubernetesNodeEntry {
  name: string;
  /** The report `host` whose GPUs are this node's; null when no telemetry names the node. */
  host: string | null;
  /** `node.kubernetes.io/instance-type` (or the beta label). */
  instanceType: string | null;
  /** GPU feature discovery `nvidia.com/gpu.product` as printed, and its catalog key. */
  gpuProduct: string | null;
  modelKey: string;
  /** GFD `nvidia.com/gpu.count` and `nvidia.com/gpu.memory` (MiB per GPU). */
  gpuCount: number | null;
  gpuMemoryMiB: number | null;
  /** GFD `nvidia.com/mig.strategy`. */
  migStrategy: string | null;
  /** status.capacity and status.allocatable of GPU resources, by resource name. */
  gpuCapacity: Record<string, number>;
  gpuAllocatable: Record<string, number>;
  cpuAllocatableCores: number | null;
  memoryAllocatableMiB: number | null;
}

/** Pods holding or waiting for GPUs (Running or Pending) and the nodes with GPUs. */
export interface KubernetesSection {
  pods: KubernetesPodEntry[];
  nodes: KubernetesNodeEntry[];
}

export interface Report {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  generatedAt: string;
  tool: { name: string; version: string };
  window: ReportWindow;
  settings: ReportSettings;
  sources: SourceSummary[];
  catalog: { name: string; asOf: string; source: 'bundled' | 'cache'; ageDays: number | null };
  gpus: GpuEntry[];
  workloads: WorkloadEntry[];
  findings: Finding[];
  recommendations: Recommendation[];
  summary: FleetSummary;
  /** GPU pods and GPU nodes, present only when Kubernetes objects were given (`--k8s`, `--kubectl`). */
  kubernetes?: KubernetesSection;
}

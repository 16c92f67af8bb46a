/**
 * The JSON report contract's types, as ./report-schema.ts defines them (one definition:
 * types, JSON Schema, key order and reader). Renderers read only this: every figure they show
 * is already here. The types are z.output of the schemas and compile away: importing them
 * loads nothing.
 */
import type {
  Finding,
  FleetSummary,
  GpuEntry,
  KubernetesPodEntry,
  PlanStep,
  Placement,
  Recommendation,
} from './report-schema.js';

export type {
  Finding,
  FleetSummary,
  GpuEntry,
  GpuComputeSeries,
  GpuTimeline,
  KubernetesContainerEntry,
  KubernetesNodeEntry,
  KubernetesPodEntry,
  KubernetesSection,
  MemoryStats,
  PcieLink,
  PercentStats,
  Placement,
  Plan,
  PlanAlternative,
  PlanFleet,
  PlanInstance,
  PlanStep,
  PipelineFigures,
  ProcessSummary,
  Recommendation,
  RecommendationConfig,
  Report,
  ReportSettings,
  ReportWindow,
  ServingEntry,
  ServingGauge,
  ServingLatency,
  ServingPoint,
  ServingCapacity,
  WorkloadServing,
  SidecarOverhead,
  SourceSummary,
  ThroughputStats,
  VramEstimateEntry,
  VramProfile,
  WorkloadEntry,
  WorkloadSignals,
} from './report-schema.js';
export { READABLE_SCHEMA_VERSIONS, REPORT_SCHEMA_VERSION, TIMELINE_MAX_BUCKETS } from './report-constants.js';

/** Where a host's instance type came from: a node label, gpu-audit.yaml, the flag, or inferred. */
export type InstanceTypeBasis = NonNullable<GpuEntry['instanceTypeBasis']>;
export type Severity = Finding['severity'];
export type RecommendationKind = Recommendation['kind'];
/** A GPU's compute basis, or `mixed` when the GPUs in a fleet figure were read on different ones. */
export type FleetComputeBasis = FleetSummary['computeBasis'];
/** How a pod's GPUs were found: dcgm-exporter pod labels, or its node (the only GPU pod there, holding every GPU). */
export type PodGpuMatch = NonNullable<KubernetesPodEntry['gpuMatch']>;
export type StepAction = PlanStep['action'];
export type PlacementAction = Placement['action'];

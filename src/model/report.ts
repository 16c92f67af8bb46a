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

export interface SourceSummary {
  /** The input as the user named it (`-` for stdin). */
  ref: string;
  format: string;
  /** Documents (XML) or data rows (text formats) read. */
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
}

export interface VramProfile {
  peakMiB: number | null;
  p95MiB: number | null;
  requiredMiB: number | null;
  basis: 'measured' | 'declared' | 'estimated' | 'upper-bound' | 'unknown';
}

export interface WorkloadEntry {
  name: string;
  kind: string;
  gpus: string[];
  vram: VramProfile;
  compute: { basis: ComputeBasis; mean: number | null; p95: number | null; busyFraction: number | null };
  cpuPipeline: { verdict: 'gpu-bound' | 'input-bound' | 'idle' | 'unknown'; evidence: string[] };
  sidecars: { cpuCores: number | null; memoryMiB: number | null; overheadPct: number | null };
  cost: { hourlyUsd: number | null; wasteHourlyUsd: number | null };
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
}

export interface FleetSummary {
  /** Physical GPUs (MIG devices are counted through their parent). */
  gpuCount: number;
  migDeviceCount: number;
  hostCount: number;
  gpuHours: number;
  idleGpuHours: number;
  /** GPU-hour-weighted mean of per-GPU utilization, percent; null when no GPU reports utilization. */
  meanUtilization: number | null;
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
}

/**
 * What the workload analysis is told about workloads: plain data, as config/ loads it from
 * gpu-audit.yaml (the CLI hands it down; analysis never reads the config itself).
 */

import type { PodOnDevice } from '../../model/index.js';
import type { PipelineInputs } from '../cpu-pipeline/workload.js';

export type ModelDtype = 'fp32' | 'tf32' | 'bf16' | 'fp16' | 'fp8' | 'int8' | 'int4' | 'fp4';

export interface WorkloadMatchRules {
  /** Regular expression searched (unanchored, case-sensitive) in each process name. */
  process?: string;
  /** Pod selector: every part given must match (globs). */
  pod?: string;
  namespace?: string;
  container?: string;
  labels?: Record<string, string>;
  /** GPU UUIDs (a board with its MIG devices) or report ids (`GPU-…/2` for one MIG device). */
  gpus?: string[];
  /** Host globs: every device of the host. */
  hosts?: string[];
}

/** Facts about the model a workload serves, for the VRAM estimate (./vram-estimate.ts). */
export interface ModelFacts {
  parameters: number;
  dtype: ModelDtype;
  layers?: number;
  kvHeads?: number;
  headDim?: number;
  contextTokens?: number;
  concurrency?: number;
  kvCacheDtype?: ModelDtype;
  gpusPerReplica?: number;
  overheadMiB?: number;
}

export interface WorkloadDefinition {
  name: string;
  version?: string;
  kind: string;
  tenant?: string;
  match: WorkloadMatchRules;
  /** Overrides the detection of preallocating servers by process name. */
  preallocates?: boolean;
  /** Declared VRAM need per GPU, MiB. */
  vramMiB?: number;
  model?: ModelFacts;
  /** Facts for the recommenders (pool sizing, spot, purchase); the profile does not use them. */
  slo?: { p95Ms: number };
  throughputPerGpu?: Throughput;
  peakDemand?: Throughput;
  checkpoint?: { intervalMinutes: number; restoreMinutes: number };
  /** Seconds from scheduling a replica to serving traffic: sizes the warm pool. */
  coldStartSeconds?: number;
  autoscaling?: AutoscalingFacts;
  instanceType?: string;
  pricing?: 'on-demand' | 'spot' | 'reserved-1y' | 'reserved-3y';
}

/** What an autoscaler of the workload reads (gpu-audit.yaml `autoscaling`); every key optional. */
export interface AutoscalingFacts {
  prometheusAddress?: string;
  queueMetric?: string;
  latencyMetric?: string;
  minReplicas?: number;
  maxReplicas?: number;
  deployment?: string;
  namespace?: string;
}

export interface Throughput {
  value: number;
  unit: 'requests/s' | 'tokens/s';
}

export interface WorkloadAnalysisOptions {
  /** Added to the VRAM need: required = need x (1 + vramHeadroomPct / 100). Default 15. */
  vramHeadroomPct: number;
  /** Containers per device id, where pod assignments exist. */
  podsByDevice?: ReadonlyMap<string, readonly PodOnDevice[]>;
  /** CPU and sidecar figures for cpuPipeline and sidecars (analysis/cpu-pipeline/inputs.ts); without them both stay unknown. */
  pipeline?: PipelineInputs;
}

export const DEFAULT_VRAM_HEADROOM_PCT = 15;

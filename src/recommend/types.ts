/**
 * The recommender's input and output shapes. Recommenders are pure functions of demand units
 * (what each workload needs) and the instance catalog; each declares the fields it reads and
 * answers either recommendations or an explicit "not enough data" with the reason (krr style).
 */
import { DEFAULT_IDLE_THRESHOLD_PCT, type InstanceCatalog, type PricingModel } from '../model/index.js';
import type { ComputeBasis } from '../model/index.js';
import type { InstanceTypeBasis, ServingServer, VramProfile } from '../model/index.js';
import type { AutoscalingFacts } from '../analysis/index.js';

export type WorkloadKind = 'training' | 'inference' | 'batch' | 'interactive' | 'unknown';

/** Whether a workload is limited by arithmetic (scale by BF16 tensor TFLOPS) or by memory bandwidth. */
export type ComputeBound = 'compute' | 'memory' | 'unknown';

/** Serving facts of an inference workload (from the config; none are measured by nvidia-smi). */
export interface ServingFacts {
  /** What throughput and demand count (`requests/s`, `tokens/s`); null means inferences (requests) per second. */
  unit: string | null;
  /** Requests (or tokens) per second one GPU sustains within the latency target. */
  perGpuThroughputPerSecond: number | null;
  /** Peak demand in the same unit. */
  peakDemandPerSecond: number | null;
  latencySloMs: number | null;
  /** Seconds from scheduling a replica to serving traffic (gpu-audit.yaml coldStartSeconds). */
  coldStartSeconds: number | null;
  /** Fastest demand growth, in requests per second per minute (measured from the servers' request rate). */
  rampPerMinute: number | null;
  /** The pool as its inference servers measured it (report workloads[].serving); null without server metrics. */
  measured: MeasuredServing | null;
  /** What an autoscaler reads (gpu-audit.yaml autoscaling); null where not configured. */
  autoscaling: AutoscalingFacts | null;
}

/** Measured serving figures, in requests per second. */
export interface MeasuredServing {
  peakPerSecond: number;
  /** Per GPU within the SLO; null where not measured (note says why). */
  capacityPerGpu: number | null;
  capacityBasis: 'knee' | 'approached' | 'lower-bound' | null;
  capacityConfidence: 'high' | 'medium' | 'low' | null;
  /** The pool's p95 at the capacity load. */
  p95AtCapacityMs: number | null;
  note: string;
  /** The servers' kind, namespace and model, for default autoscaler queries. */
  server: ServingServer;
  namespace: string | null;
  model: string | null;
}

export interface CheckpointFacts {
  intervalSeconds: number;
  restoreSeconds: number;
}

/**
 * One unit of GPU demand: a workload, or (until workloads are in the report) one GPU with its
 * processes. Per-GPU figures are per GPU the unit holds; `gpuCount` says how many.
 */
export interface DemandUnit {
  /** Workload name or GPU id; recommendation targets name it. */
  id: string;
  /** For sentences: `infer-h200-01 #0 (vllm)`. */
  label: string;
  /** Physical GPU ids the unit occupies now: the exclusivity key of recommendations. */
  gpuIds: string[];
  gpuCount: number;
  host: string | null;
  /** GPU table key of the GPU it runs on now. */
  modelKey: string;
  memoryTotalMiB: number | null;
  /** MIG profile it runs in now, when it runs in a MIG instance. */
  migProfile: string | null;
  instanceType: string | null;
  instanceTypeBasis: InstanceTypeBasis | null;
  /** Price of one of its GPUs per hour at the pricing model in force; null when unpriced. */
  hourlyUsdPerGpu: number | null;
  /** Per GPU. `requiredMiB` = max(peak, need) x (1 + headroom); for an upper bound, see demand-units.ts. */
  vram: VramProfile;
  compute: {
    basis: ComputeBasis;
    /** Percent of the current GPU, time-weighted. */
    meanPct: number | null;
    p95Pct: number | null;
    /** Share of the window the unit was not idle, 0-1. */
    busyFraction: number | null;
    bound: ComputeBound;
  };
  /** 168 hourly means of the compute signal (Monday 00:00 first), percent; null where unknown. */
  hourOfWeekPct: (number | null)[] | null;
  tenant: string | null;
  kind: WorkloadKind;
  /** Checkpoint facts; 'none' when the config says the job does not checkpoint; null when unknown. */
  checkpoint: CheckpointFacts | 'none' | null;
  serving: ServingFacts | null;
  window: { hours: number; samples: number };
  processNames: string[];
}

/** Where a commitment discount comes from when the catalog has no commitment price. */
export interface CommitmentDiscount {
  /** Fraction off on-demand, 0-1. */
  fraction: number;
  source: string;
}

export interface RecommendOptions {
  catalog: InstanceCatalog;
  pricing: PricingModel;
  /** Providers to pick replacement instances from; default: the current instance's provider, else all. */
  providers?: readonly ('aws' | 'azure' | 'gcp')[];
  region?: string;
  idleThresholdPct: number;
  /** Headroom on measured VRAM (DESIGN.md: 0.15). */
  vramHeadroom: number;
  /** Allow time-slicing/MPS across tenants; default false. */
  allowCrossTenantSharing: boolean;
  /** Time-slicing: at most this share of the buckets of a pair's joint compute may pass one GPU (./plan/sharing.ts). */
  timeSliceMaxOverlapShare: number;
  commitment?: CommitmentDiscount;
  /** Spot interruptions per instance-hour; default from the Spot Advisor bucket (./purchase.ts). */
  spotInterruptionsPerHour?: number;
  /** Fewer hours than this (or fewer samples) lowers confidence and says the window is too short. */
  minWindowHours: number;
  minSamples: number;
}

export const DEFAULT_RECOMMEND_SETTINGS = {
  idleThresholdPct: DEFAULT_IDLE_THRESHOLD_PCT,
  vramHeadroom: 0.15,
  allowCrossTenantSharing: false,
  timeSliceMaxOverlapShare: 0.05,
  minWindowHours: 24,
  minSamples: 100,
} as const satisfies Partial<RecommendOptions>;


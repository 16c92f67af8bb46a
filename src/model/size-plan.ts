/**
 * A pool sizing: the request (`gpu-audit size`, or a workload's serving facts) and the pool
 * it needs, priced. src/recommend computes it; src/render prints it.
 */
import type { InstanceType, PricingModel } from './catalog.js';

export interface PoolSizingInput {
  /** Peak demand, inferences per second. */
  peakPerSecond: number;
  /** Inferences per second one GPU sustains within its latency target. */
  perGpuPerSecond: number;
  headroom: number;
  gpusPerInstance: number;
  /** Price of one instance per hour, or null when unknown. */
  instanceUsdPerHour: number | null;
  coldStartSeconds?: number;
  /** Demand growth, inferences per second per minute. */
  rampPerSecondPerMinute?: number;
}

export interface PoolSizing {
  replicas: number;
  gpus: number;
  instances: number;
  hourlyUsd: number | null;
  monthlyUsd: number | null;
  /** At one GPU's full throughput. */
  costPer1000AtCapacityUsd: number | null;
  /** The whole pool's cost spread over the peak demand. */
  costPer1000AtPeakUsd: number | null;
  /** Extra replicas kept running to absorb the ramp while new ones start; null without cold start and ramp. */
  warmPoolReplicas: number | null;
}

export interface SizeRequest {
  peakPerSecond: number;
  perGpuPerSecond: number;
  headroom: number;
  gpu?: string;
  instanceType?: string;
  providers?: readonly InstanceType['provider'][];
  region?: string;
  pricing: PricingModel;
  coldStartSeconds?: number;
  rampPerSecondPerMinute?: number;
}

export interface SizePlan {
  request: SizeRequest;
  instance: { provider: string; name: string; region: string; gpuModelKey: string; gpuModelName: string; gpusPerInstance: number };
  /** Which price answered (a 1-year commitment may be a savings plan); null where the type has no price at this pricing model. */
  priceTerm: string | null;
  instanceUsdPerHour: number | null;
  sizing: PoolSizing;
  /** Instances other than the chosen one that were compared, cheapest first (for a --gpu request). */
  alternatives: { name: string; instances: number; hourlyUsd: number }[];
}


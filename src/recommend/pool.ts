/**
 * Pool sizing for inference (DESIGN.md section 5):
 *   replicas = ceil(peak demand / per-GPU throughput x (1 + headroom))
 *   cost per 1,000 inferences = hourly cost / (throughput per second x 3.6)
 *   warm pool = ceil(demand growth during one cold start / per-GPU throughput)
 * Pure arithmetic shared by `gpu-audit size` and the planner's declared replicas.
 */
import { HOURS_PER_MONTH } from '../model/index.js';
import type { PoolSizing, PoolSizingInput } from '../model/index.js';

export const DEFAULT_POOL_HEADROOM = 0.2;

/** Float noise (1000 / 200 x 1.2 = 6.000000000000001) must not add a GPU. */
const CEIL_TOLERANCE = 1e-9;

export function ceilTolerant(value: number): number {
  return Math.ceil(value - CEIL_TOLERANCE);
}

export function sizePool(input: PoolSizingInput): PoolSizing {
  const replicas = ceilTolerant((input.peakPerSecond / input.perGpuPerSecond) * (1 + input.headroom));
  const instances = Math.ceil(replicas / input.gpusPerInstance);
  const hourlyUsd = input.instanceUsdPerHour === null ? null : instances * input.instanceUsdPerHour;
  const perGpuHourly = input.instanceUsdPerHour === null ? null : input.instanceUsdPerHour / input.gpusPerInstance;
  const warm =
    input.coldStartSeconds === undefined || input.rampPerSecondPerMinute === undefined
      ? null
      : ceilTolerant((input.rampPerSecondPerMinute * (input.coldStartSeconds / 60)) / input.perGpuPerSecond);
  return {
    replicas,
    gpus: replicas,
    instances,
    hourlyUsd,
    monthlyUsd: hourlyUsd === null ? null : hourlyUsd * HOURS_PER_MONTH,
    costPer1000AtCapacityUsd: perGpuHourly === null ? null : perGpuHourly / (input.perGpuPerSecond * 3.6),
    costPer1000AtPeakUsd: hourlyUsd === null || input.peakPerSecond <= 0 ? null : hourlyUsd / (input.peakPerSecond * 3.6),
    warmPoolReplicas: warm,
  };
}

/**
 * Pool sizing for inference (DESIGN.md section 5):
 *   replicas = ceil(peak demand / per-GPU throughput x (1 + headroom))
 *   cost per 1,000 inferences = hourly cost / (throughput per second x 3.6)
 *   warm pool = ceil(demand growth during one cold start / per-GPU throughput)
 * Pure arithmetic shared by `gpu-audit size` and the audit's replica recommendations.
 */
import { HOURS_PER_MONTH } from '../model/index.js';
import type { PoolSizing, PoolSizingInput } from '../model/index.js';
import { gpuName } from './candidates.js';
import { confidenceOf, weaknessesOf } from './confidence.js';
import { type DemandUnit, type RecommendOptions, type ServingFacts, type StrategyResult } from './types.js';
import { money, round2 } from './units.js';

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

/** The pool of one inference workload, one GPU per replica, from its declared serving facts. */
export function sizeServingPool(peakPerSecond: number, perGpuPerSecond: number, serving: ServingFacts, hourlyUsdPerGpu: number | null): PoolSizing {
  return sizePool({
    peakPerSecond,
    perGpuPerSecond,
    headroom: DEFAULT_POOL_HEADROOM,
    gpusPerInstance: 1,
    instanceUsdPerHour: hourlyUsdPerGpu,
    coldStartSeconds: serving.coldStartSeconds ?? undefined,
    rampPerSecondPerMinute: serving.rampPerMinute ?? undefined,
  });
}

/**
 * Replica recommendations for inference workloads that declare throughput and peak demand.
 * Needs: kind inference, serving.perGpuThroughputPerSecond, serving.peakDemandPerSecond, gpuCount, hourlyUsdPerGpu.
 */
export function replicas(units: readonly DemandUnit[], options: RecommendOptions): StrategyResult {
  const result: StrategyResult = { recommendations: [], notEnoughData: [] };
  for (const unit of units) {
    if (unit.kind !== 'inference' || unit.migProfile !== null) continue;
    const serving = unit.serving;
    if (serving === null || serving.perGpuThroughputPerSecond === null || serving.peakDemandPerSecond === null || unit.hourlyUsdPerGpu === null) {
      result.notEnoughData.push({ strategy: 'replicas', targets: [unit.id], reason: 'per-GPU throughput and peak demand not declared (gpu-audit.yaml serving facts); nvidia-smi cannot measure them' });
      continue;
    }
    const sizing = sizeServingPool(serving.peakDemandPerSecond, serving.perGpuThroughputPerSecond, serving, unit.hourlyUsdPerGpu);
    const needed = sizing.replicas + (sizing.warmPoolReplicas ?? 0);
    if (needed === unit.gpuCount) continue;
    const reasons = weaknessesOf([unit], options, { vram: false, compute: false });
    const under = needed > unit.gpuCount;
    result.recommendations.push({
      id: `replicas:${unit.id}`,
      kind: 'replicas',
      targets: [unit.id],
      current: `${unit.gpuCount} x ${gpuName(unit.modelKey)}`,
      proposed: `${needed} x ${gpuName(unit.modelKey)} (${sizing.replicas} for the peak with ${DEFAULT_POOL_HEADROOM * 100}% headroom${sizing.warmPoolReplicas === null ? '' : ` + ${sizing.warmPoolReplicas} warm`})`,
      monthlySavingsUsd: under ? 0 : round2((unit.gpuCount - needed) * unit.hourlyUsdPerGpu * HOURS_PER_MONTH),
      confidence: confidenceOf(reasons),
      confidenceReasons: reasons,
      risks: under
        ? [`under-provisioned: the declared peak needs ${needed - unit.gpuCount} more GPU${needed - unit.gpuCount === 1 ? '' : 's'} (${money((needed - unit.gpuCount) * unit.hourlyUsdPerGpu * HOURS_PER_MONTH)}/month more)`]
        : ['the declared peak and per-GPU throughput drive this: a higher real peak breaches the latency target'],
      rationale: `ceil(${serving.peakDemandPerSecond} / ${serving.perGpuThroughputPerSecond} ${serving.unit ?? 'requests/s'} per GPU x ${1 + DEFAULT_POOL_HEADROOM}) = ${sizing.replicas} GPUs; cost per 1,000 ${(serving.unit ?? 'requests/s').replace('/s', '')} ${money(sizing.costPer1000AtCapacityUsd ?? 0)} at full throughput.`,
      evidence: {
        peakPerSecond: serving.peakDemandPerSecond,
        perGpuPerSecond: serving.perGpuThroughputPerSecond,
        throughputUnit: serving.unit ?? 'requests/s',
        headroom: DEFAULT_POOL_HEADROOM,
        replicas: sizing.replicas,
        warmPoolReplicas: sizing.warmPoolReplicas,
        costPer1000AtCapacityUsd: sizing.costPer1000AtCapacityUsd === null ? null : round2(sizing.costPer1000AtCapacityUsd * 1000) / 1000,
      },
    });
  }
  return result;
}

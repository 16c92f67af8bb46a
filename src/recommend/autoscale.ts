/**
 * Autoscaling manifests for inference: a KEDA ScaledObject scaling on a queue-length (or
 * latency) Prometheus query, never on utilization.gpu alone (it says a kernel ran, not that
 * requests wait). Bounds come from the pool sizing: the warm pool below, the peak pool above.
 *
 * Needs: kind inference, serving.queueMetric, serving.perGpuThroughputPerSecond and
 * serving.peakDemandPerSecond. The saving depends on the demand curve and is left to the
 * purchase plan, so these carry 0 and are never counted twice.
 */
import { stringify } from 'yaml';
import type { Recommendation } from '../model/index.js';
import { confidenceOf, weaknessesOf } from './confidence.js';
import { sizeServingPool } from './pool.js';
import type { DemandUnit, RecommendOptions, ServingFacts, StrategyResult } from './types.js';

export function kedaScaledObject(name: string, minReplicas: number, maxReplicas: number, metric: NonNullable<ServingFacts['queueMetric']>): string {
  const manifest = {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name: `${name}-gpu` },
    spec: {
      scaleTargetRef: { name },
      minReplicaCount: minReplicas,
      maxReplicaCount: maxReplicas,
      triggers: [{ type: 'prometheus', metadata: { serverAddress: metric.serverAddress, query: metric.query, threshold: String(metric.targetPerReplica) } }],
    },
  };
  return stringify(manifest);
}

/** Kubernetes names: lower case alphanumerics and hyphens. */
function resourceName(id: string): string {
  return id.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50) || 'workload';
}

export function autoscale(units: readonly DemandUnit[], options: RecommendOptions): StrategyResult {
  const result: StrategyResult = { recommendations: [], notEnoughData: [] };
  for (const unit of units) {
    if (unit.kind !== 'inference' || unit.migProfile !== null) continue;
    const serving = unit.serving;
    if (serving?.queueMetric === null || serving?.queueMetric === undefined || serving.perGpuThroughputPerSecond === null || serving.peakDemandPerSecond === null) {
      result.notEnoughData.push({ strategy: 'autoscale', targets: [unit.id], reason: 'no queue-length or latency metric declared: scaling on utilization.gpu alone would follow kernels, not waiting requests' });
      continue;
    }
    const sizing = sizeServingPool(serving.peakDemandPerSecond, serving.perGpuThroughputPerSecond, serving, unit.hourlyUsdPerGpu);
    const minReplicas = Math.max(1, sizing.warmPoolReplicas ?? 1);
    const reasons = weaknessesOf([unit], options, { vram: false, compute: false });
    const recommendation: Recommendation = {
      id: `autoscale:${unit.id}`,
      kind: 'autoscale',
      targets: [unit.id],
      current: `${unit.gpuCount} GPUs, fixed`,
      proposed: `${minReplicas}-${sizing.replicas} replicas on the queue metric (KEDA)`,
      monthlySavingsUsd: 0,
      confidence: confidenceOf(reasons),
      confidenceReasons: reasons,
      risks: [`a replica needs ${serving.coldStartSeconds ?? 'an unknown number of'} s to start: the warm minimum absorbs the ramp meanwhile`],
      rationale: 'Scale on waiting requests rather than utilization.gpu, which reads 100% for one small kernel at a time; bounds from the pool sizing.',
      evidence: { minReplicas, maxReplicas: sizing.replicas, query: serving.queueMetric.query, targetPerReplica: serving.queueMetric.targetPerReplica },
      config: { format: 'yaml', text: kedaScaledObject(resourceName(unit.id), minReplicas, sizing.replicas, serving.queueMetric) },
    };
    result.recommendations.push(recommendation);
  }
  return result;
}

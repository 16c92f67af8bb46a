/**
 * Autoscale steps (docs/planner.md, "Autoscaling"): a serving pool whose servers measured a
 * capacity within its SLO gets a KEDA ScaledObject on its queue and its p95 latency, with the
 * HPA + prometheus-adapter manifests as the alternative without KEDA. Every figure comes from
 * the measurements:
 *
 *   max replicas  = the plan's replicas: ceil(measured peak / capacity per replica x (1 + headroom))
 *   warm pool     = ceil(fastest ramp x cold start / capacity per replica) (0 without a cold start)
 *   min replicas  = 1 + warm pool, at most max: the replicas already up when the fastest ramp
 *                   starts from a quiet pool
 *   queue target  = max(1, floor(capacity per replica x (SLO - p95 at capacity))): the waiting
 *                   requests one replica drains in the latency the SLO has left
 *   latency target = the p95 at the capacity load
 *
 * A pool whose min reaches its max gets no step: it has nothing to scale. The step changes no
 * instance and carries 0 of the plan's saving: the plan prices the pool at
 * its peak, and only a node autoscaler turns replicas scaled in into instances released.
 */
import type { Finding, PlanStep } from '../../model/index.js';
import { ceilTolerant } from '../pool.js';
import { adapterRules, horizontalPodAutoscaler, type ExternalMetric } from '../autoscale/hpa.js';
import { scaledObject, thresholdText, type PrometheusTrigger } from '../autoscale/keda.js';
import { latencyQuery, queueQuery, seriesOf } from '../autoscale/queries.js';
import { inUse, type PlanDemand } from './demand.js';
import type { PlanParts } from './types.js';

/** prometheus-operator's service for a Prometheus named `prometheus` in `monitoring` (kube-prometheus-stack). */
export const DEFAULT_PROMETHEUS_ADDRESS = 'http://prometheus-operated.monitoring.svc:9090';
/** Scale in no sooner than this (the HPA's own default), or a cold start where longer. */
const MIN_SCALE_DOWN_WINDOW_SECONDS = 300;
const MAX_SCALE_DOWN_WINDOW_SECONDS = 3600;

/** A Kubernetes object name from a workload name: lower case, `-` for what a DNS label cannot hold. */
function objectName(name: string): string {
  const cleaned = name.toLowerCase().replace(/[^a-z0-9-]+/gu, '-').replace(/^-+|-+$/gu, '');
  return (cleaned === '' ? 'workload' : cleaned).slice(0, 63).replace(/-+$/u, '');
}

export interface AutoscalerFigures {
  minReplicas: number;
  maxReplicas: number;
  warmPoolReplicas: number;
  queuePerReplica: number;
  latencySeconds: number;
  scaleDownSeconds: number;
}

/** The figures of the autoscaler, from the measured pool (see the module comment). */
export function autoscalerFigures(demand: PlanDemand): AutoscalerFigures | null {
  const serving = demand.unit.serving;
  const measured = serving?.measured;
  if (serving == null || measured == null || measured.capacityPerGpu === null || measured.p95AtCapacityMs === null || serving.latencySloMs === null || demand.measured === null) return null;
  const perReplica = measured.capacityPerGpu * demand.gpusPerReplica;
  const configured = serving.autoscaling;
  const warm = serving.coldStartSeconds === null || serving.rampPerMinute === null ? 0 : ceilTolerant((serving.rampPerMinute * (serving.coldStartSeconds / 60)) / perReplica);
  const maxReplicas = configured?.maxReplicas ?? demand.measured.replicas;
  const minReplicas = Math.min(maxReplicas, configured?.minReplicas ?? 1 + warm);
  return {
    minReplicas,
    maxReplicas,
    warmPoolReplicas: warm,
    queuePerReplica: Math.max(1, Math.floor((perReplica * Math.max(0, serving.latencySloMs - measured.p95AtCapacityMs)) / 1000)),
    latencySeconds: Number((measured.p95AtCapacityMs / 1000).toFixed(3)),
    scaleDownSeconds: Math.min(MAX_SCALE_DOWN_WINDOW_SECONDS, Math.max(MIN_SCALE_DOWN_WINDOW_SECONDS, Math.ceil(serving.coldStartSeconds ?? 0))),
  };
}

function manifests(demand: PlanDemand, figures: AutoscalerFigures): { keda: string; hpa: string; rules: string } {
  const serving = demand.unit.serving!;
  const measured = serving.measured!;
  const configured = serving.autoscaling;
  const selector = { server: measured.server, namespace: measured.namespace, model: measured.model };
  const name = objectName(demand.unit.id);
  const namespace = configured?.namespace ?? measured.namespace;
  const deployment = configured?.deployment ?? name;
  const queue = configured?.queueMetric ?? queueQuery(selector);
  const latency = configured?.latencyMetric ?? latencyQuery(selector);
  const triggers: PrometheusTrigger[] = [
    { name: 'queue', query: queue, metricType: 'AverageValue', threshold: figures.queuePerReplica },
    { name: 'latency-p95', query: latency, metricType: 'Value', threshold: figures.latencySeconds },
  ];
  const common = { name, namespace, deployment, minReplicas: figures.minReplicas, maxReplicas: figures.maxReplicas, scaleDownStabilizationSeconds: figures.scaleDownSeconds };
  const metric = name.replace(/-/gu, '_');
  const external: ExternalMetric[] = [
    { name: `gpu_audit_${metric}_requests_waiting`, series: seriesOf(selector, 'queue'), query: queue, target: 'AverageValue', value: thresholdText(figures.queuePerReplica) },
    { name: `gpu_audit_${metric}_e2e_p95_seconds`, series: seriesOf(selector, 'latency'), query: latency, target: 'Value', value: thresholdText(figures.latencySeconds) },
  ];
  return {
    keda: scaledObject({ ...common, serverAddress: configured?.prometheusAddress ?? DEFAULT_PROMETHEUS_ADDRESS, triggers }),
    hpa: horizontalPodAutoscaler({ ...common, metrics: external }),
    rules: adapterRules(external),
  };
}

function autoscaleRisks(demand: PlanDemand): string[] {
  const serving = demand.unit.serving!;
  return [
    'the plan prices the pool at its peak all month: replicas scaled in free GPUs only where a node autoscaler (Cluster Autoscaler, Karpenter) removes the emptied nodes',
    'apply one of the two manifests, not both: KEDA makes its own HPA, and two HPAs on one Deployment fight',
    'p95 latency does not fall in proportion to replicas added: the queue trigger leads, the latency trigger is the backstop',
    ...(serving.autoscaling?.prometheusAddress === undefined ? [`serverAddress is ${DEFAULT_PROMETHEUS_ADDRESS} (kube-prometheus-stack's service): set autoscaling.prometheusAddress where Prometheus is elsewhere`] : []),
    ...(serving.measured!.namespace === null && serving.autoscaling?.namespace === undefined ? ['the servers\' metrics carry no namespace label: the ScaledObject has no namespace and the queries select by model only'] : []),
    ...(serving.coldStartSeconds === null ? ['no coldStartSeconds declared: no warm pool is kept, and a burst waits for a replica to load its model'] : []),
  ];
}

function autoscaleStep(demand: PlanDemand, figures: AutoscalerFigures, after: readonly string[]): PlanStep {
  const serving = demand.unit.serving!;
  const measured = serving.measured!;
  const { keda, hpa, rules } = manifests(demand, figures);
  const replicas = (count: number): string => `${count} replica${count === 1 ? '' : 's'}`;
  return {
    id: `autoscale:${demand.unit.id}`,
    action: 'autoscale',
    workloads: [demand.unit.id],
    from: `${replicas(figures.maxReplicas)} at all hours, as the plan sizes the pool for its peak`,
    to: `KEDA ScaledObject ${objectName(demand.unit.id)}: ${figures.minReplicas} to ${replicas(figures.maxReplicas)} on the queue (over ${figures.queuePerReplica} waiting per replica) and p95 latency (over ${figures.latencySeconds} s)`,
    monthlySavingsUsd: 0,
    confidence: measured.capacityConfidence ?? 'low',
    confidenceReasons: [`capacity: ${measured.note}`],
    risks: autoscaleRisks(demand),
    evidence: {
      minReplicas: figures.minReplicas,
      maxReplicas: figures.maxReplicas,
      warmPoolReplicas: figures.warmPoolReplicas,
      queueThresholdPerReplica: figures.queuePerReplica,
      latencyThresholdSeconds: figures.latencySeconds,
      peakRequestsPerSecond: Number(measured.peakPerSecond.toFixed(3)),
      capacityRequestsPerSecondPerGpu: Number(measured.capacityPerGpu!.toFixed(3)),
      sloP95Ms: serving.latencySloMs,
      coldStartSeconds: serving.coldStartSeconds,
      rampRequestsPerSecondPerMinute: serving.rampPerMinute === null ? null : Number(serving.rampPerMinute.toFixed(3)),
    },
    config: {
      format: 'yaml',
      text: keda,
      alternative: {
        note: 'Without KEDA: add the first document to prometheus-adapter\'s config.yaml (Helm values rules.external), then apply the HorizontalPodAutoscaler.',
        format: 'yaml',
        text: `${rules}---\n${hpa}`,
      },
    },
    after: [...after],
  };
}

/** One step per serving pool with a measured capacity; the move of its workload, where there is one, comes first. */
export function autoscaleSteps(parts: PlanParts, earlier: readonly PlanStep[]): PlanStep[] {
  return inUse(parts.demands).flatMap((demand) => {
    if (demand.unit.kind !== 'inference' || demand.disposition.kind === 'feed') return [];
    const figures = autoscalerFigures(demand);
    // A pool that needs its peak's replicas at its quietest (the warm pool) has nothing to scale.
    if (figures === null || figures.minReplicas >= figures.maxReplicas) return [];
    const after = earlier.filter((step) => step.action === 'move' && step.workloads.includes(demand.unit.id)).map((step) => step.id);
    return [autoscaleStep(demand, figures, after)];
  });
}

/** An autoscaler configured in gpu-audit.yaml that the plan cannot size: why. */
export function autoscaleGaps(parts: PlanParts): Finding[] {
  return parts.demands.flatMap((demand) => {
    const serving = demand.unit.serving;
    if (serving?.autoscaling == null || autoscalerFigures(demand) !== null) return [];
    const why = serving.measured === null ? 'no inference-server metrics were joined to it' : serving.latencySloMs === null ? 'it declares no slo.p95Ms' : `its capacity was not measured: ${serving.measured.note}`;
    return [{
      id: `not-enough-data:autoscale:${demand.unit.id}`,
      code: 'not-enough-data' as const,
      severity: 'info' as const,
      target: demand.unit.id,
      message: `${demand.unit.label} asks for an autoscaler, but ${why}: its thresholds cannot come from the data.`,
      evidence: { autoscale: 'not-sized' },
    }];
  });
}

/**
 * The autoscalers' manifests read by the rules of the tools that apply them: KEDA's
 * ScaledObject CRD (keda.sh/v1alpha1) and prometheus scaler, the autoscaling/v2
 * HorizontalPodAutoscaler API, and prometheus-adapter's config types; on what the planner
 * writes, and on manifests broken one rule at a time.
 */
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { adapterRules, horizontalPodAutoscaler, validateAdapterRules, validateHorizontalPodAutoscaler } from '../../../src/recommend/autoscale/hpa.js';
import { scaledObject, thresholdText, validateScaledObject } from '../../../src/recommend/autoscale/keda.js';
import { latencyQuery, queueQuery, seriesOf } from '../../../src/recommend/autoscale/queries.js';

const selector = { server: 'vllm', namespace: 'serving', model: 'llama-3.1-8b' } as const;
const keda = scaledObject({
  name: 'chat', namespace: 'serving', deployment: 'chat', minReplicas: 2, maxReplicas: 5, serverAddress: 'http://prometheus.monitoring:9090', scaleDownStabilizationSeconds: 300,
  triggers: [
    { name: 'queue', query: queueQuery(selector), metricType: 'AverageValue', threshold: 4 },
    { name: 'latency-p95', query: latencyQuery(selector), metricType: 'Value', threshold: 0.75 },
  ],
});
const metrics = [
  { name: 'gpu_audit_chat_requests_waiting', series: seriesOf(selector, 'queue'), query: queueQuery(selector), target: 'AverageValue', value: '4' },
  { name: 'gpu_audit_chat_e2e_p95_seconds', series: seriesOf(selector, 'latency'), query: latencyQuery(selector), target: 'Value', value: '0.75' },
] as const;
const hpa = horizontalPodAutoscaler({ name: 'chat', namespace: 'serving', deployment: 'chat', minReplicas: 2, maxReplicas: 5, scaleDownStabilizationSeconds: 300, metrics });

/** The manifest with one change made at a path (`spec.triggers.0.metricType`); undefined deletes. */
function changed(text: string, at: string, value: unknown): string {
  const document = parse(text) as Record<string, unknown>;
  const keys = at.split('.');
  let node = document as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  if (value === undefined) delete node[keys.at(-1)!];
  else node[keys.at(-1)!] = value;
  return stringify(document);
}

describe('the default queries', () => {
  it('sum the queue gauge and take histogram_quantile over the server\'s e2e histogram, for its namespace and model', () => {
    expect(queueQuery(selector)).toBe('sum(vllm:num_requests_waiting{namespace="serving",model_name="llama-3.1-8b"})');
    expect(latencyQuery(selector)).toBe('histogram_quantile(0.95, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket{namespace="serving",model_name="llama-3.1-8b"}[2m])))');
    expect(queueQuery({ server: 'tgi', namespace: null, model: 'x' })).toBe('sum(tgi_queue_size)');
    // Triton has no latency histogram: the mean from its microsecond counters.
    expect(latencyQuery({ server: 'triton', namespace: 'ns', model: 'resnet' })).toBe('sum(rate(nv_inference_request_duration_us{namespace="ns",model="resnet"}[2m])) / sum(rate(nv_inference_request_success{namespace="ns",model="resnet"}[2m])) / 1e6');
  });

  it('escapes a label value, so a model name cannot end the selector', () => {
    expect(queueQuery({ server: 'vllm', namespace: null, model: 'a"b\\c' })).toBe('sum(vllm:num_requests_waiting{model_name="a\\"b\\\\c"})');
  });
});

describe('a KEDA ScaledObject, as the CRD and the prometheus scaler read it', () => {
  it('accepts what the planner writes, with every trigger\'s metadata as strings', () => {
    expect(validateScaledObject(keda)).toEqual({ ok: true });
    const triggers = (parse(keda) as { spec: { triggers: { metadata: Record<string, unknown> }[] } }).spec.triggers;
    expect(triggers.map((trigger) => trigger.metadata.threshold)).toEqual(['4', '0.75']);
    expect(thresholdText(0.1 + 0.2)).toBe('0.3');
  });

  it.each([
    ['no scale target name', 'spec.scaleTargetRef.name', undefined, 'spec.scaleTargetRef.name: Required value'],
    ['no triggers', 'spec.triggers', [], 'spec.triggers: must have at least 1 item'],
    ['min above max', 'spec.minReplicaCount', 6, 'spec: minReplicaCount must be less than or equal to maxReplicaCount'],
    ['a max of 0', 'spec.maxReplicaCount', 0, 'spec.maxReplicaCount: must be in 1..2147483647'],
    ['a polling interval of 0', 'spec.pollingInterval', 0, 'spec.pollingInterval: must be in 1..2147483647'],
    ['a fractional min', 'spec.minReplicaCount', 1.5, 'spec.minReplicaCount: must be an integer'],
    ['a misspelt field', 'spec.maxReplicas', 5, 'spec: unknown field "maxReplicas"'],
    ['a threshold as a number', 'spec.triggers.0.metadata.threshold', 4, 'spec.triggers[0].metadata.threshold: must be a string'],
    ['a threshold that is no number', 'spec.triggers.0.metadata.threshold', 'four', 'spec.triggers[0].metadata.threshold: "four" is not a number'],
    ['no query', 'spec.triggers.0.metadata.query', undefined, 'spec.triggers[0].metadata: error parsing prometheus metadata: missing required parameter "query"'],
    ['no server address', 'spec.triggers.1.metadata.serverAddress', undefined, 'spec.triggers[1].metadata: error parsing prometheus metadata: missing required parameter "serverAddress"'],
    ['a Utilization metric type', 'spec.triggers.0.metricType', 'Utilization', 'spec.triggers[0].metricType: scaler doesn\'t support utilization metric type'],
    ['a stabilization window past an hour', 'spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds', 3601, 'spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds: must be in 0..3600'],
  ])('refuses %s', (_, at, value, reason) => {
    expect(validateScaledObject(changed(keda, at, value))).toEqual({ ok: false, reason });
  });

  it('refuses another kind, and text that is not YAML', () => {
    expect(validateScaledObject(changed(keda, 'kind', 'ScaledJob'))).toEqual({ ok: false, reason: 'apiVersion keda.sh/v1alpha1, kind ScaledObject expected' });
    expect(validateScaledObject('spec: [')).toMatchObject({ ok: false, reason: expect.stringMatching(/^not YAML: /u) });
  });
});

describe('the HPA and prometheus-adapter alternative, as autoscaling/v2 and the adapter read them', () => {
  it('accepts what the planner writes', () => {
    expect(validateHorizontalPodAutoscaler(hpa)).toEqual({ ok: true });
    const rules = adapterRules(metrics);
    expect(validateAdapterRules(rules)).toEqual({ ok: true });
    // Each rule serves its metric under the name the HPA asks for, computed by the same query as KEDA's trigger.
    const parsed = parse(rules) as { externalRules: { name: { as: string }; metricsQuery: string }[] };
    expect(parsed.externalRules.map((rule) => rule.name.as)).toEqual(metrics.map((metric) => metric.name));
    expect(parsed.externalRules.map((rule) => rule.metricsQuery)).toEqual([queueQuery(selector), latencyQuery(selector)]);
  });

  it.each([
    ['no maxReplicas', 'spec.maxReplicas', undefined, 'spec.maxReplicas: Required value'],
    ['max below min', 'spec.maxReplicas', 1, 'spec.maxReplicas: must be greater than or equal to `minReplicas`'],
    ['minReplicas 0', 'spec.minReplicas', 0, 'spec.minReplicas: must be in 1..2147483647'],
    ['no target kind', 'spec.scaleTargetRef.kind', undefined, 'spec.scaleTargetRef.kind: Required value'],
    ['a target value that is no quantity', 'spec.metrics.1.external.target.value', '0,75', 'spec.metrics[1].external.target.value: quantities must match the regular expression of resource.Quantity'],
    ['an AverageValue target without averageValue', 'spec.metrics.0.external.target.averageValue', undefined, 'spec.metrics[0].external.target.averageValue: Required value: must be set for type AverageValue'],
    ['a metric type the API does not have', 'spec.metrics.0.type', 'Prometheus', 'spec.metrics[0].type: Unsupported value: "Prometheus"'],
    ['no external metric name', 'spec.metrics.0.external.metric.name', undefined, 'spec.metrics[0].external.metric.name: Required value'],
  ])('refuses %s', (_, at, value, reason) => {
    expect(validateHorizontalPodAutoscaler(changed(hpa, at, value))).toEqual({ ok: false, reason });
  });

  it('refuses adapter rules with a key its strict loader does not know', () => {
    expect(validateAdapterRules(changed(adapterRules(metrics), 'externalRules.0.metricQuery', 'x'))).toEqual({ ok: false, reason: 'externalRules[0]: unknown field "metricQuery"' });
    expect(validateAdapterRules(changed(adapterRules(metrics), 'externalRules.0.seriesQuery', undefined))).toEqual({ ok: false, reason: 'externalRules[0].seriesQuery: Required value' });
  });
});

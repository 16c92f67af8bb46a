/**
 * The same autoscaler without KEDA: an autoscaling/v2 HorizontalPodAutoscaler on External
 * metrics, which prometheus-adapter serves from Prometheus. The adapter's rules go in its
 * ConfigMap (`config.yaml`, the Helm chart's `rules.external`): each an `externalRules` entry
 * with `seriesQuery`, `resources`, `name` (`matches`, `as`) and `metricsQuery`
 * (prometheus-adapter pkg/config: MetricsDiscoveryConfig, DiscoveryRule). The reader holds
 * the HPA to the autoscaling/v2 API's fields and rules (scaleTargetRef kind and name required;
 * maxReplicas required and >= minReplicas >= 1; each metric of type External with
 * external.metric.name and a target of type Value with `value` or AverageValue with
 * `averageValue`, as quantities).
 */
import { stringify } from 'yaml';
import { checkBehavior, isFields, parseManifest, Rules, type ManifestVerdict } from './manifest-rules.js';

export interface ExternalMetric {
  /** The name prometheus-adapter serves the metric under. */
  name: string;
  /** A series the metric is computed from, for the adapter's discovery. */
  series: string;
  query: string;
  target: 'AverageValue' | 'Value';
  value: string;
}

export interface HpaSpec {
  name: string;
  namespace: string | null;
  deployment: string;
  minReplicas: number;
  maxReplicas: number;
  metrics: readonly ExternalMetric[];
  scaleDownStabilizationSeconds: number;
}

/** The adapter rules, as the `config.yaml` of its ConfigMap. */
export function adapterRules(metrics: readonly ExternalMetric[]): string {
  return stringify({
    externalRules: metrics.map((metric) => ({
      seriesQuery: metric.series,
      resources: { overrides: { namespace: { resource: 'namespace' } } },
      name: { matches: '^.*$', as: metric.name },
      metricsQuery: metric.query,
    })),
  }, { lineWidth: 0 });
}

export function horizontalPodAutoscaler(spec: HpaSpec): string {
  return stringify({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: spec.name, ...(spec.namespace === null ? {} : { namespace: spec.namespace }) },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: spec.deployment },
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      metrics: spec.metrics.map((metric) => ({
        type: 'External',
        external: {
          metric: { name: metric.name },
          target: metric.target === 'Value' ? { type: 'Value', value: metric.value } : { type: 'AverageValue', averageValue: metric.value },
        },
      })),
      behavior: { scaleDown: { stabilizationWindowSeconds: spec.scaleDownStabilizationSeconds } },
    },
  }, { lineWidth: 0 });
}

/** resource.Quantity: a decimal with an optional SI or binary suffix or exponent. */
const QUANTITY = /^[+-]?(\d+\.?\d*|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?(\d+\.?\d*|\.\d+)))?$/u;
const METRIC_SOURCES = ['Object', 'Pods', 'Resource', 'ContainerResource', 'External'];

function checkTarget(target: unknown, where: string, rules: Rules): void {
  if (!isFields(target)) return rules.fail(`${where}: Required value`);
  rules.known(target, ['type', 'value', 'averageValue', 'averageUtilization'], where);
  const field = target.type === 'Value' ? 'value' : target.type === 'AverageValue' ? 'averageValue' : target.type === 'Utilization' ? 'averageUtilization' : undefined;
  if (field === undefined) return rules.fail(`${where}.type: Unsupported value: must be Utilization, Value or AverageValue`);
  const value = target[field];
  if (value === undefined) return rules.fail(`${where}.${field}: Required value: must be set for type ${target.type as string}`);
  if (field !== 'averageUtilization' && (typeof value !== 'string' || !QUANTITY.test(value))) rules.fail(`${where}.${field}: quantities must match the regular expression of resource.Quantity`);
  if (field === 'averageUtilization' && where.includes('external')) rules.fail(`${where}.type: Utilization is not supported for External metrics`);
}

/** Reads a HorizontalPodAutoscaler as the autoscaling/v2 API would. */
export function validateHorizontalPodAutoscaler(text: string): ManifestVerdict {
  const document = parseManifest(text);
  if (typeof document === 'string') return { ok: false, reason: document };
  const rules = new Rules();
  if (document.apiVersion !== 'autoscaling/v2' || document.kind !== 'HorizontalPodAutoscaler') return { ok: false, reason: 'apiVersion autoscaling/v2, kind HorizontalPodAutoscaler expected' };
  rules.known(document, ['apiVersion', 'kind', 'metadata', 'spec'], '');
  const spec = document.spec;
  if (!isFields(spec)) return { ok: false, reason: 'spec: Required value' };
  rules.known(spec, ['scaleTargetRef', 'minReplicas', 'maxReplicas', 'metrics', 'behavior'], 'spec');
  const target = spec.scaleTargetRef;
  if (!isFields(target)) rules.fail('spec.scaleTargetRef: Required value');
  else {
    rules.known(target, ['apiVersion', 'kind', 'name'], 'spec.scaleTargetRef');
    if (typeof target.kind !== 'string' || target.kind === '') rules.fail('spec.scaleTargetRef.kind: Required value');
    if (typeof target.name !== 'string' || target.name === '') rules.fail('spec.scaleTargetRef.name: Required value');
  }
  if (spec.maxReplicas === undefined) rules.fail('spec.maxReplicas: Required value');
  rules.int32(spec.minReplicas, 'spec.minReplicas', 1);
  rules.int32(spec.maxReplicas, 'spec.maxReplicas', 1);
  if (typeof spec.maxReplicas === 'number' && spec.maxReplicas < ((spec.minReplicas as number | undefined) ?? 1)) rules.fail('spec.maxReplicas: must be greater than or equal to `minReplicas`');
  if (spec.metrics !== undefined) {
    if (!Array.isArray(spec.metrics)) rules.fail('spec.metrics: must be a list');
    else spec.metrics.forEach((metric: unknown, index) => {
      const where = `spec.metrics[${index}]`;
      if (!isFields(metric)) return rules.fail(`${where}: must be an object`);
      rules.known(metric, ['type', 'object', 'pods', 'resource', 'containerResource', 'external'], where);
      if (!METRIC_SOURCES.includes(metric.type as string)) return rules.fail(`${where}.type: Unsupported value: "${String(metric.type)}"`);
      if (metric.type !== 'External') return;
      const external = metric.external;
      if (!isFields(external)) return rules.fail(`${where}.external: Required value: must populate information for the given metric source`);
      rules.known(external, ['metric', 'target'], `${where}.external`);
      if (!isFields(external.metric) || typeof external.metric.name !== 'string' || external.metric.name === '') rules.fail(`${where}.external.metric.name: Required value`);
      else rules.known(external.metric, ['name', 'selector'], `${where}.external.metric`);
      checkTarget(external.target, `${where}.external.target`, rules);
    });
  }
  checkBehavior(spec.behavior, 'spec.behavior', rules);
  return rules.verdict();
}

/** Reads prometheus-adapter's config.yaml for the external rules, as its loader does (unknown keys refused). */
export function validateAdapterRules(text: string): ManifestVerdict {
  const document = parseManifest(text);
  if (typeof document === 'string') return { ok: false, reason: document };
  const rules = new Rules();
  rules.known(document, ['rules', 'resourceRules', 'externalRules'], '');
  if (!Array.isArray(document.externalRules)) return { ok: false, reason: 'externalRules: must be a list' };
  document.externalRules.forEach((rule: unknown, index) => {
    const where = `externalRules[${index}]`;
    if (!isFields(rule)) return rules.fail(`${where}: must be an object`);
    rules.known(rule, ['seriesQuery', 'seriesFilters', 'resources', 'name', 'metricsQuery'], where);
    rules.text(rule.seriesQuery, `${where}.seriesQuery`, true);
    rules.text(rule.metricsQuery, `${where}.metricsQuery`, false);
    if (rule.resources !== undefined) {
      if (!isFields(rule.resources)) rules.fail(`${where}.resources: must be an object`);
      else rules.known(rule.resources, ['template', 'overrides', 'namespaced'], `${where}.resources`);
    }
    if (rule.name !== undefined) {
      if (!isFields(rule.name)) return rules.fail(`${where}.name: must be an object`);
      rules.known(rule.name, ['matches', 'as'], `${where}.name`);
      if (typeof rule.name.matches === 'string') {
        try {
          new RegExp(rule.name.matches, 'u');
        } catch {
          rules.fail(`${where}.name.matches: not a regular expression`);
        }
      }
    }
  });
  return rules.verdict();
}

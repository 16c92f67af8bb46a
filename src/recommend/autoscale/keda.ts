/**
 * A KEDA ScaledObject (keda.sh/v1alpha1) that scales a serving pool on its queue and its p95
 * latency with two prometheus triggers, and a reader that holds it to KEDA's own rules: the
 * ScaledObject CRD's schema (config/crd/bases/keda.sh_scaledobjects.yaml: required
 * scaleTargetRef.name and at least one trigger with `type` and a `metadata` map of strings;
 * int32 replica counts, minReplicaCount >= 0 and <= maxReplicaCount >= 1, pollingInterval >= 1,
 * cooldownPeriod >= 0; behavior windows 0-3600 s) and the prometheus scaler's metadata
 * (pkg/scalers/prometheus_scaler.go: serverAddress, query and threshold required, threshold
 * a float; trigger metricType AverageValue or Value, Utilization refused). Unlike the API
 * server, the reader refuses unknown keys: a misspelt key there is silently dropped.
 */
import { stringify } from 'yaml';
import { checkBehavior, isFields, parseManifest, Rules, type Fields, type ManifestVerdict } from './manifest-rules.js';

export interface PrometheusTrigger {
  /** Trigger name: the HPA metric KEDA makes is named after it. */
  name: string;
  query: string;
  /** AverageValue: the target per replica (a queue); Value: the target of the whole metric (a latency). */
  metricType: 'AverageValue' | 'Value';
  threshold: number;
}

export interface ScaledObjectSpec {
  name: string;
  namespace: string | null;
  deployment: string;
  minReplicas: number;
  maxReplicas: number;
  serverAddress: string;
  triggers: readonly PrometheusTrigger[];
  /** Seconds of lower readings before scaling in: at least a cold start, so a replica is not dropped just to be needed again. */
  scaleDownStabilizationSeconds: number;
}

/** Threshold text: KEDA reads metadata as strings and parses the float. */
export function thresholdText(value: number): string {
  return String(Number(value.toPrecision(6)));
}

export function scaledObject(spec: ScaledObjectSpec): string {
  return stringify({
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name: spec.name, ...(spec.namespace === null ? {} : { namespace: spec.namespace }) },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: spec.deployment },
      minReplicaCount: spec.minReplicas,
      maxReplicaCount: spec.maxReplicas,
      pollingInterval: 15,
      cooldownPeriod: 300,
      advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: spec.scaleDownStabilizationSeconds } } } },
      triggers: spec.triggers.map((trigger) => ({
        type: 'prometheus',
        name: trigger.name,
        metricType: trigger.metricType,
        metadata: { serverAddress: spec.serverAddress, query: trigger.query, threshold: thresholdText(trigger.threshold) },
      })),
    },
  }, { lineWidth: 0 });
}

function checkPrometheusTrigger(trigger: Fields, where: string, rules: Rules): void {
  const metadata = trigger.metadata as Fields;
  for (const key of ['serverAddress', 'query', 'threshold']) {
    if (metadata[key] === undefined || metadata[key] === '') rules.fail(`${where}.metadata: error parsing prometheus metadata: missing required parameter "${key}"`);
  }
  const threshold = metadata.threshold;
  if (typeof threshold === 'string' && threshold !== '' && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/u.test(threshold)) {
    rules.fail(`${where}.metadata.threshold: "${threshold}" is not a number`);
  }
  if (typeof metadata.serverAddress === 'string' && !/^https?:\/\/[^\s/]+/u.test(metadata.serverAddress)) rules.fail(`${where}.metadata.serverAddress: not an http(s) URL`);
}

const TRIGGER_FIELDS = ['type', 'name', 'metadata', 'metricType', 'authenticationRef', 'useCachedMetrics'];
const SPEC_FIELDS = ['scaleTargetRef', 'pollingInterval', 'initialCooldownPeriod', 'cooldownPeriod', 'idleReplicaCount', 'minReplicaCount', 'maxReplicaCount', 'advanced', 'triggers', 'fallback'];

/** Reads a ScaledObject document as the CRD's schema and the prometheus scaler would. */
export function validateScaledObject(text: string): ManifestVerdict {
  const rules = new Rules();
  const document = parseManifest(text);
  if (typeof document === 'string') return { ok: false, reason: document };
  if (document.apiVersion !== 'keda.sh/v1alpha1' || document.kind !== 'ScaledObject') return { ok: false, reason: 'apiVersion keda.sh/v1alpha1, kind ScaledObject expected' };
  rules.known(document, ['apiVersion', 'kind', 'metadata', 'spec'], '');
  const metadata = document.metadata;
  if (!isFields(metadata) || typeof metadata.name !== 'string' || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/u.test(metadata.name)) rules.fail('metadata.name: must be a DNS subdomain name');
  const spec = document.spec;
  if (!isFields(spec)) return { ok: false, reason: 'spec: Required value' };
  rules.known(spec, SPEC_FIELDS, 'spec');
  const target = spec.scaleTargetRef;
  if (!isFields(target)) rules.fail('spec.scaleTargetRef: Required value');
  else {
    rules.known(target, ['apiVersion', 'kind', 'name', 'envSourceContainerName'], 'spec.scaleTargetRef');
    if (typeof target.name !== 'string' || target.name.length < 1) rules.fail('spec.scaleTargetRef.name: Required value');
  }
  rules.int32(spec.pollingInterval, 'spec.pollingInterval', 1);
  rules.int32(spec.cooldownPeriod, 'spec.cooldownPeriod', 0);
  rules.int32(spec.initialCooldownPeriod, 'spec.initialCooldownPeriod', 0);
  rules.int32(spec.idleReplicaCount, 'spec.idleReplicaCount', 0);
  rules.int32(spec.minReplicaCount, 'spec.minReplicaCount', 0);
  rules.int32(spec.maxReplicaCount, 'spec.maxReplicaCount', 1);
  const max = typeof spec.maxReplicaCount === 'number' ? spec.maxReplicaCount : 100;
  if (typeof spec.minReplicaCount === 'number' && spec.minReplicaCount > max) rules.fail('spec: minReplicaCount must be less than or equal to maxReplicaCount');
  if (spec.advanced !== undefined) {
    if (!isFields(spec.advanced)) rules.fail('spec.advanced: must be an object');
    else {
      rules.known(spec.advanced, ['horizontalPodAutoscalerConfig', 'restoreToOriginalReplicaCount', 'scalingModifiers'], 'spec.advanced');
      const hpa = spec.advanced.horizontalPodAutoscalerConfig;
      if (isFields(hpa)) {
        rules.known(hpa, ['behavior', 'name'], 'spec.advanced.horizontalPodAutoscalerConfig');
        checkBehavior(hpa.behavior, 'spec.advanced.horizontalPodAutoscalerConfig.behavior', rules);
      }
    }
  }
  if (!Array.isArray(spec.triggers) || spec.triggers.length === 0) rules.fail('spec.triggers: must have at least 1 item');
  else spec.triggers.forEach((trigger: unknown, index) => {
    const where = `spec.triggers[${index}]`;
    if (!isFields(trigger)) return rules.fail(`${where}: must be an object`);
    rules.known(trigger, TRIGGER_FIELDS, where);
    if (typeof trigger.type !== 'string' || trigger.type === '') return rules.fail(`${where}.type: Required value`);
    if (!isFields(trigger.metadata)) return rules.fail(`${where}.metadata: Required value`);
    const notText = Object.entries(trigger.metadata).find(([, value]) => typeof value !== 'string');
    if (notText !== undefined) rules.fail(`${where}.metadata.${notText[0]}: must be a string`);
    if (trigger.metricType !== undefined && !['AverageValue', 'Value'].includes(trigger.metricType as string)) {
      rules.fail(`${where}.metricType: ${trigger.metricType === 'Utilization' ? 'scaler doesn\'t support utilization metric type' : 'must be AverageValue or Value'}`);
    }
    if (trigger.type === 'prometheus') checkPrometheusTrigger(trigger, where, rules);
  });
  return rules.verdict();
}


/**
 * gpu-audit.yaml validation: every error names the line, the path of the value and what
 * was expected, and all of a file's errors come in one message.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatPath, parseConfig } from '../../src/config/document/index.js';
import { InputError } from '../../src/support/errors.js';
import { repoRoot } from '../helpers/corpus.js';

function errorOf(text: string): InputError {
  try {
    parseConfig(text, 'gpu-audit.yaml');
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

const describeError = (text: string): string => errorOf(text).describe();

const VALID_WORKLOAD = `workloads:
  - name: chat
    kind: inference
    match: { process: vllm }
`;

describe('parseConfig', () => {
  it('reads a complete config', () => {
    const config = parseConfig(`
$schema: ./schema/gpu-audit.config.schema.json
workloads:
  - name: chat-70b
    version: "2.1"
    kind: inference
    tenant: product-a
    match:
      process: vllm\\.entrypoints
      pod: chat-*
      namespace: serving
      container: vllm
      labels: { app: chat }
      gpus: [GPU-1234]
      hosts: [infer-*]
    preallocates: true
    vramMiB: 150000
    slo: { p95Ms: 800 }
    throughputPerGpu: { value: 2400, unit: tokens/s }
    peakDemand: { value: 9000, unit: tokens/s }
    checkpoint: { intervalMinutes: 60, restoreMinutes: 8 }
    coldStartSeconds: 120
    autoscaling:
      prometheusAddress: http://prometheus.monitoring:9090
      queueMetric: sum(vllm:num_requests_waiting{namespace="serving"})
      latencyMetric: histogram_quantile(0.95, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket[2m])))
      minReplicas: 2
      maxReplicas: 8
      deployment: chat-70b
      namespace: serving
    model: { parameters: 70e9, dtype: bf16, layers: 80, kvHeads: 8, headDim: 128, contextTokens: 8192, concurrency: 4, gpusPerReplica: 2 }
    instanceType: p5.48xlarge
    pricing: reserved-1y
thresholds:
  maxWastePct: 40
  findings: { idle-gpu: error, short-window: off }
pricing: { provider: aws, region: us-east-1, model: spot, discounts: { reserved1yPct: 35 } }
hosts:
  infer-*: { instanceType: p5.48xlarge }
idleThresholdPct: 10
vramHeadroomPct: 20
timezone: Europe/Berlin
`, 'gpu-audit.yaml');
    expect(config.workloads![0]!.model!.parameters).toBe(70e9);
    expect(config.workloads![0]!.autoscaling).toMatchObject({ queueMetric: 'sum(vllm:num_requests_waiting{namespace="serving"})', minReplicas: 2, maxReplicas: 8 });
    expect(config.thresholds).toEqual({ maxWastePct: 40, findings: { 'idle-gpu': 'error', 'short-window': 'off' } });
    expect(config.hosts).toEqual({ 'infer-*': { instanceType: 'p5.48xlarge' } });
  });

  it('reads an empty file as no settings', () => {
    expect(parseConfig('', 'gpu-audit.yaml')).toEqual({});
    expect(parseConfig('# nothing yet\n', 'gpu-audit.yaml')).toEqual({});
  });

  it('reads the demo fleet\'s config', () => {
    const file = path.join(repoRoot, 'fixtures/demo/gpu-audit.yaml');
    const config = parseConfig(readFileSync(file, 'utf8'), file);
    expect(config.workloads!.map((workload) => workload.name)).toEqual([
      'llama-pretrain', 'chat-8b', 'code-13b', 'rerank-triton', 'embed-batch', 'gpu-ci', 'nightly-eval', 'notebooks',
    ]);
  });

  it('names a wrong type with its path and line', () => {
    const text = `${VALID_WORKLOAD}  - name: b
    kind: batch
    match: { hosts: [x] }
  - name: c
    kind: inference
    match: { hosts: [y] }
    slo:
      p95Ms: "800"
`;
    const error = errorOf(text);
    expect(error.describe()).toBe('gpu-audit.yaml: line 12: workloads[2].slo.p95Ms: expected a positive number, got the string "800"');
    expect(error.file).toBe('gpu-audit.yaml');
    expect(error.location).toBe('line 12');
  });

  it('names a value out of range', () => {
    expect(describeError(`${VALID_WORKLOAD}    slo: { p95Ms: -5 }\n`)).toBe('gpu-audit.yaml: line 5: workloads[0].slo.p95Ms: expected a positive number');
    expect(describeError('idleThresholdPct: 150\n')).toBe('gpu-audit.yaml: line 1: idleThresholdPct: expected a percentage from 0 to 100');
  });

  it('names the place of a key given one level too high: the queue metric belongs to autoscaling', () => {
    expect(describeError(`${VALID_WORKLOAD}    queueMetric: sum(vllm:num_requests_waiting)\n`))
      .toBe('gpu-audit.yaml: line 5: workloads[0].queueMetric: unknown key `queueMetric`; did you mean `autoscaling.queueMetric`?');
    expect(describeError(`${VALID_WORKLOAD}    autoscaling: { maxReplicas: 0 }\n`)).toBe('gpu-audit.yaml: line 5: workloads[0].autoscaling.maxReplicas: expected a positive integer');
  });

  it('names an unknown key, with the key it probably meant', () => {
    expect(describeError('workload:\n  - name: a\n')).toBe('gpu-audit.yaml: line 1: workload: unknown key `workload`; did you mean `workloads`?');
    expect(describeError(`${VALID_WORKLOAD}    tennant: product-a\n`)).toBe('gpu-audit.yaml: line 5: workloads[0].tennant: unknown key `tennant`; did you mean `tenant`?');
    expect(describeError(`${VALID_WORKLOAD}    model: { parameters: 7e9, dtype: bf16, kv_heads: 8 }\n`))
      .toBe('gpu-audit.yaml: line 5: workloads[0].model.kv_heads: unknown key `kv_heads`; did you mean `kvHeads`?');
  });

  it('lists the allowed keys when no key is close', () => {
    expect(describeError('pricing: { zzzzzz: 1 }\n')).toBe('gpu-audit.yaml: line 1: pricing.zzzzzz: unknown key `zzzzzz` (expected one of provider, region, model, discounts, spotInterruptionsPerMonthPct)');
  });

  it('rejects a process pattern that is not a regular expression', () => {
    expect(describeError('workloads:\n  - name: a\n    kind: batch\n    match:\n      process: "train(.py"\n'))
      .toBe('gpu-audit.yaml: line 5: workloads[0].match.process: expected a valid regular expression (JavaScript syntax)');
  });

  it('says which enum values are allowed', () => {
    expect(describeError('workloads:\n  - name: a\n    kind: trainning\n    match: { hosts: [h] }\n'))
      .toBe('gpu-audit.yaml: line 3: workloads[0].kind: expected one of training, inference, batch, interactive, got the string "trainning"');
    expect(describeError('thresholds:\n  findings:\n    idle-gpu: warning\n'))
      .toBe('gpu-audit.yaml: line 3: thresholds.findings["idle-gpu"]: expected one of error, warn, off, got the string "warning"');
  });

  it('points a missing key at the object that lacks it', () => {
    expect(describeError('workloads:\n  - name: a\n    match: { hosts: [h] }\n')).toBe('gpu-audit.yaml: line 2: workloads[0].kind: missing: expected one of training, inference, batch, interactive');
  });

  it('wants at least one match rule, unique names, and no workload called unassigned', () => {
    expect(describeError('workloads:\n  - name: a\n    kind: batch\n    match: {}\n'))
      .toBe('gpu-audit.yaml: line 4: workloads[0].match: expected at least one match rule (process, pod, namespace, container, labels, gpus, hosts)');
    expect(describeError(`${VALID_WORKLOAD}  - name: chat\n    kind: batch\n    match: { hosts: [h] }\n`))
      .toBe('gpu-audit.yaml: line 5: workloads[1].name: expected a unique name (`chat` is also workloads[0])');
    expect(describeError('workloads:\n  - name: unassigned\n    kind: batch\n    match: { hosts: [h] }\n'))
      .toBe('gpu-audit.yaml: line 2: workloads[0].name: expected a name other than `unassigned` (reserved for what matches no workload)');
  });

  it('asks for a quoted version when YAML read a number', () => {
    expect(describeError(`${VALID_WORKLOAD}    version: 1.2\n`)).toBe('gpu-audit.yaml: line 5: workloads[0].version: expected a string (quote numbers: version: "1.2"), got number 1.2');
  });

  it('checks the time zone and the thresholds', () => {
    expect(describeError('timezone: Mars/Olympus\n')).toBe('gpu-audit.yaml: line 1: timezone: expected an IANA time zone such as UTC or Europe/Berlin');
    expect(describeError('thresholds:\n  maxWastePct: lots\n')).toBe('gpu-audit.yaml: line 2: thresholds.maxWastePct: expected a finite number, got the string "lots"');
  });

  it('reports every problem of the file, in line order, in one error', () => {
    const error = errorOf('idleThresholdPct: -1\nworkloads:\n  - name: a\n    kind: x\n    match: { hosts: [h] }\n    tennant: t\n');
    expect(error.message.split('\n')).toEqual([
      'idleThresholdPct: expected a percentage from 0 to 100',
      '  line 4: workloads[0].kind: expected one of training, inference, batch, interactive, got the string "x"',
      '  line 6: workloads[0].tennant: unknown key `tennant`; did you mean `tenant`?',
    ]);
    expect(error.location).toBe('line 1');
  });

  it('reports YAML syntax errors with their line', () => {
    expect(describeError('workloads:\n  - name: a\n   kind: batch\n')).toMatch(/^gpu-audit\.yaml: line 3: YAML syntax: /);
    expect(describeError('pricing: { model: spot\n')).toMatch(/^gpu-audit\.yaml: line \d+: YAML syntax: /);
    expect(describeError('idleThresholdPct: 5\nidleThresholdPct: 6\n')).toMatch(/^gpu-audit\.yaml: line 2: YAML syntax: Map keys must be unique/);
  });

  it('says what the whole file should be when it is not a map', () => {
    expect(describeError('- a\n- b\n')).toBe('gpu-audit.yaml: line 1: (top level): expected a map of settings (workloads, thresholds, pricing, hosts, ...), got a list');
  });
});

describe('formatPath', () => {
  it.each<[PropertyKey[], string]>([
    [[], '(top level)'],
    [['workloads', 2, 'slo', 'p95Ms'], 'workloads[2].slo.p95Ms'],
    [['hosts', 'infer-*', 'instanceType'], 'hosts["infer-*"].instanceType'],
  ])('%j -> %s', (segments, text) => {
    expect(formatPath(segments)).toBe(text);
  });
});

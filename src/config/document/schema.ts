/**
 * The schema of gpu-audit.yaml, declared once: it validates the file (./load.ts), gives the
 * TypeScript types, and is published as schema/gpu-audit.config.schema.json for editor
 * completion (./json-schema.ts). Every object is strict, so a typo (`tennant:`) is an error
 * that names its path instead of a setting silently ignored. Error texts are written here,
 * beside the rule they explain, in the form `expected ...`.
 */
import { z } from 'zod';

const expected = (what: string) => ({ error: `expected ${what}` });

const positiveNumber = () => z.number(expected('a positive number')).positive(expected('a positive number'));
const nonNegativeNumber = () => z.number(expected('a number >= 0')).nonnegative(expected('a number >= 0'));
const positiveInteger = () => z.number(expected('a positive integer')).int(expected('a positive integer')).positive(expected('a positive integer'));
const percent = () => z.number(expected('a percentage from 0 to 100')).min(0, expected('a percentage from 0 to 100')).max(100, expected('a percentage from 0 to 100'));
const nonEmptyText = (what = 'a non-empty string') => z.string(expected(what)).trim().min(1, expected(what));

import { FINDING_CODE_NAMES, FINDING_LEVELS, PRICING_MODELS, PROVIDERS, THRESHOLD_DEFINITIONS } from '../../model/index.js';
import { MODEL_DTYPES, PLAN_BASES, THROUGHPUT_UNITS, UNASSIGNED_WORKLOAD, WORKLOAD_KINDS } from '../vocabulary.js';

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, expected(`one of ${values.join(', ')}`));


function isValidRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const matchSchema = z
  .strictObject({
    process: z
      .string(expected('a regular expression'))
      .min(1, expected('a regular expression'))
      .refine(isValidRegExp, expected('a valid regular expression (JavaScript syntax)'))
      .describe('Regular expression searched (unanchored, case-sensitive) in the process name or command line as the driver lists it.')
      .optional(),
    pod: nonEmptyText('a pod name or glob').describe('Pod name, exact or a glob (`chat-*`).').optional(),
    namespace: nonEmptyText('a namespace or glob').describe('Kubernetes namespace, exact or a glob.').optional(),
    container: nonEmptyText('a container name or glob').describe('Container name, exact or a glob.').optional(),
    labels: z
      .record(z.string(), z.string(expected('a label value (a string)')), expected('a map of label name to value'))
      .describe('Pod label selector: every label listed must have this value.')
      .optional(),
    gpus: z
      .array(nonEmptyText('a GPU id'), expected('a list of GPU ids'))
      .describe('GPU UUIDs (`GPU-…`, a whole board with its MIG devices) or report ids of MIG devices (`GPU-…/2`).')
      .optional(),
    hosts: z.array(nonEmptyText('a host name or glob'), expected('a list of host names or globs')).describe('Host names or globs (`infer-*`): every GPU of the host.').optional(),
  }, expected('a map of match rules'))
  .refine((match) => Object.values(match).some((rule) => rule !== undefined), expected('at least one match rule (process, pod, namespace, container, labels, gpus, hosts)'))
  .describe('Which GPUs, processes and pods belong to the workload. Each of process, gpus, hosts and the pod selector (pod, namespace, container, labels together) claims a GPU on its own.');

const modelSchema = z
  .strictObject({
    parameters: positiveNumber().describe('Parameter count (70e9 for a 70B model).'),
    dtype: oneOf(MODEL_DTYPES).describe('Data type of the weights.'),
    layers: positiveInteger().describe('Transformer layers (for the KV-cache term).').optional(),
    kvHeads: positiveInteger().describe('Key/value heads per layer (equal to attention heads without grouped-query attention).').optional(),
    headDim: positiveInteger().describe('Dimension of one attention head.').optional(),
    contextTokens: positiveInteger().describe('Context length served, tokens per sequence.').optional(),
    concurrency: positiveInteger().describe('Sequences in flight at once.').optional(),
    kvCacheDtype: oneOf(MODEL_DTYPES).describe('Data type of the KV cache; default: the weights\' type (16-bit for 4-bit weights).').optional(),
    gpusPerReplica: positiveInteger().describe('GPUs one replica is sharded over (tensor parallel); the estimate is per GPU. Default 1.').optional(),
    overheadMiB: nonNegativeNumber().describe('Runtime overhead per GPU, MiB; default 1024 + 10% of the weights.').optional(),
  }, expected('a map of model facts'))
  .describe('Model facts for a VRAM estimate: weights + KV cache + runtime overhead.');

const autoscalingSchema = z
  .strictObject({
    prometheusAddress: nonEmptyText('a URL').describe('Prometheus the autoscaler queries: KEDA\'s serverAddress, and where prometheus-adapter reads. Default http://prometheus-operated.monitoring.svc:9090.').optional(),
    queueMetric: nonEmptyText('a PromQL query').describe('PromQL of the requests waiting in all the workload\'s servers together. Default: the server\'s own queue gauge (vLLM num_requests_waiting, TGI tgi_queue_size, SGLang num_queue_reqs, Triton pending requests) for its model and namespace.').optional(),
    latencyMetric: nonEmptyText('a PromQL query').describe('PromQL of the pool\'s p95 end-to-end latency in seconds. Default: histogram_quantile(0.95, ...) over the server\'s end-to-end latency histogram.').optional(),
    minReplicas: positiveInteger().describe('Fewest replicas the autoscaler keeps; default: what the quietest hour needs, plus the warm pool.').optional(),
    maxReplicas: positiveInteger().describe('Most replicas the autoscaler may run; default: what the measured peak needs with headroom.').optional(),
    deployment: nonEmptyText('a Deployment name').describe('Deployment (or other scalable) the autoscaler scales; default: the workload\'s name.').optional(),
    namespace: nonEmptyText('a namespace').describe('Namespace of the Deployment; default: the servers\' namespace label.').optional(),
  }, expected('a map of autoscaler settings'))
  .describe('How the workload is autoscaled on queue length and latency: the KEDA ScaledObject and HPA the plan writes read these.');

const throughputSchema = z.strictObject({
  value: positiveNumber(),
  unit: oneOf(THROUGHPUT_UNITS),
}, expected('a map with value and unit'));

export const workloadSchema = z.strictObject({
  name: z
    .string(expected('a workload name'))
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, expected('a workload name of letters, digits, `.`, `_` and `-`'))
    .refine((name) => name !== UNASSIGNED_WORKLOAD, expected(`a name other than \`${UNASSIGNED_WORKLOAD}\` (reserved for what matches no workload)`))
    .describe('Name shown in reports.'),
  version: z.string(expected('a string (quote numbers: version: "1.2")')).describe('Version of the deployed workload, free text.').optional(),
  kind: oneOf(WORKLOAD_KINDS),
  tenant: nonEmptyText('a tenant name').describe('Team or product that owns the workload.').optional(),
  match: matchSchema,
  preallocates: z.boolean(expected('true or false')).describe('Whether the server preallocates GPU memory; default: detected from the process name (vLLM, TGI, Triton/TensorRT-LLM, JAX).').optional(),
  vramMiB: positiveNumber().describe('Declared VRAM need per GPU, MiB.').optional(),
  slo: z.strictObject({ p95Ms: positiveNumber().describe('95th percentile latency objective, ms.') }, expected('a map with p95Ms')).optional(),
  throughputPerGpu: throughputSchema.describe('Measured throughput of one GPU at the SLO.').optional(),
  peakDemand: throughputSchema.describe('Peak demand the workload must serve.').optional(),
  checkpoint: z
    .strictObject({
      intervalMinutes: positiveNumber().describe('Minutes between checkpoints.'),
      restoreMinutes: nonNegativeNumber().describe('Minutes to restore from a checkpoint.'),
    }, expected('a map with intervalMinutes and restoreMinutes'))
    .optional(),
  coldStartSeconds: positiveNumber().describe('Seconds from scheduling a replica to serving traffic (image pull, model load, warm-up): sizes the warm pool.').optional(),
  autoscaling: autoscalingSchema.optional(),
  model: modelSchema.optional(),
  instanceType: nonEmptyText('an instance type').describe('Instance type the workload runs on now.').optional(),
  pricing: oneOf(PRICING_MODELS).describe('Pricing model the workload is bought at now.').optional(),
}, expected('a map describing one workload'));

/** Each threshold by its flag name (`max-waste-pct`) or its key (`maxWastePct`): a typo is an unknown key, with did-you-mean. */
const thresholdLimits: Record<string, z.ZodOptional<z.ZodNumber>> = Object.fromEntries(THRESHOLD_DEFINITIONS.flatMap((definition) => {
  const limit = z.number(expected('a finite number')).finite(expected('a finite number')).describe(`Fail unless ${definition.description} (${definition.unit}).`).optional();
  return [[definition.name, limit], [definition.key, limit]];
}));

const thresholdsSchema = z
  .strictObject({
    findings: z
      .partialRecord(z.enum(FINDING_CODE_NAMES), oneOf(FINDING_LEVELS), expected('a map of finding code to error, warn or off'))
      .describe('Severity override per finding code (idle-gpu, vram-overprovisioned, ...).')
      .optional(),
    ...thresholdLimits,
  }, expected('a map of threshold name to number'))
  .describe('Thresholds of `gpu-audit check`: name -> number, plus a findings map.');

export const configSchema = z
  .strictObject({
    $schema: z.string(expected('a URL or path of the JSON Schema')).describe('JSON Schema of this file, for editors.').optional(),
    workloads: z.array(workloadSchema, expected('a list of workloads')).optional(),
    thresholds: thresholdsSchema.optional(),
    pricing: z
      .strictObject({
        provider: oneOf(PROVIDERS).optional(),
        region: nonEmptyText('a region').optional(),
        model: oneOf(PRICING_MODELS).describe('Pricing model in force.').optional(),
        discounts: z
          .strictObject({
            reserved1yPct: percent().describe('Negotiated 1-year discount off on-demand, percent; replaces the catalog\'s reserved-1y price.').optional(),
            reserved3yPct: percent().describe('Negotiated 3-year discount off on-demand, percent; replaces the catalog\'s reserved-3y price.').optional(),
          }, expected('a map with reserved1yPct and/or reserved3yPct'))
          .optional(),
        spotInterruptionsPerMonthPct: percent().describe('Share of spot capacity reclaimed a month, percent (the Spot Advisor bucket of your pools); default 20, the floor of its worst bucket.').optional(),
      }, expected('a map of pricing options'))
      .optional(),
    hosts: z
      .record(
        z.string().min(1),
        z.strictObject({ instanceType: nonEmptyText('an instance type') }, expected('a map with instanceType')),
        expected('a map of host name or glob to { instanceType }'),
      )
      .describe('Instance type per host (name or glob); first matching entry wins. --instance-type overrides it.')
      .optional(),
    plan: z
      .strictObject({
        basis: oneOf(PLAN_BASES).describe('Demand the plan serves: observed (the telemetry, default) or declared (each workload\'s declared peak and throughput, where declared).').optional(),
      }, expected('a map with basis'))
      .describe('How the fleet plan is made (docs/planner.md).')
      .optional(),
    idleThresholdPct: percent().describe('Compute signal below which a GPU counts as idle, percent (default 5).').optional(),
    vramHeadroomPct: z.number(expected('a percentage >= 0')).min(0, expected('a percentage >= 0')).describe('Headroom added to the VRAM need, percent (default 15).').optional(),
    timezone: nonEmptyText('an IANA time zone').refine(isValidTimeZone, expected('an IANA time zone such as UTC or Europe/Berlin')).describe('IANA zone of timestamps printed without one.').optional(),
  }, expected('a map of settings (workloads, thresholds, pricing, hosts, ...)'))
  .superRefine((config, context) => {
    const seen = new Map<string, number>();
    config.workloads?.forEach((workload, index) => {
      const first = seen.get(workload.name);
      if (first !== undefined) {
        context.addIssue({ code: 'custom', path: ['workloads', index, 'name'], message: `expected a unique name (\`${workload.name}\` is also workloads[${first}])` });
      } else {
        seen.set(workload.name, index);
      }
    });
  })
  .describe('gpu-audit configuration (gpu-audit.yaml): workloads, thresholds, pricing.');

export type GpuAuditConfig = z.infer<typeof configSchema>;
export type WorkloadConfig = z.infer<typeof workloadSchema>;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/**
 * Every finding code, in one registry: the report contract's enum (./report-schema.ts), the
 * SARIF rule of each (src/render/sarif.ts) and the codes `check --finding-level` accepts all
 * read it. A code is a stable key (thresholds, SARIF rule ids and tests use it); what a
 * finding says is made where it is raised, from its evidence.
 */
export const FINDING_CODES = {
  'idle-gpu': { rule: 'GPU idle for most of the observed time' },
  'low-compute': { rule: 'GPU in use but with low mean utilization' },
  'vram-overprovisioned': { rule: 'peak memory use far below the GPU\'s memory' },
  'short-window': { rule: 'too little data: figures sample less than a day' },
  'cpu-bound-pipeline': { rule: 'the workload waits on its CPU input pipeline' },
  'sidecar-overhead': { rule: 'sidecars take a large share of the pod\'s resources' },
  'allocated-unused': { rule: 'GPU allocated to a pod that does not use it' },
  'no-checkpoint-on-spot-candidate': { rule: 'spot candidate without checkpoints' },
  'not-enough-data': { rule: 'a recommender could not judge a workload: the data it needs is missing' },
  'tenant-isolation': { rule: 'sharing declined: the workloads belong to tenants that must stay apart' },
  'declared-vs-observed': { rule: 'the demand gpu-audit.yaml declares and the demand the telemetry shows differ by more than 2x' },
  'sharing-contention': { rule: 'workloads that could share one GPU burst together: sharing would slow them' },
  'spot-blocked': { rule: 'checkpointed jobs could run on spot but share their instance with work that must run at any hour' },
  'partly-observed-host': { rule: 'the host\'s instance type holds more GPUs than the telemetry showed: it cannot be released on this evidence' },
  'slo-breach': { rule: 'an inference server\'s measured p95 latency is above its workload\'s SLO' },
  'kv-cache-pressure': { rule: 'an inference server\'s KV cache stays nearly full, or requests were preempted for want of it' },
  'queue-saturation': { rule: 'requests wait in an inference server\'s queue scrape after scrape' },
  'overprovisioned-pool': { rule: 'a serving pool runs more replicas than its measured peak needs at its measured capacity' },
} as const satisfies Record<string, { rule: string }>;

export type FindingCode = keyof typeof FINDING_CODES;

export const FINDING_CODE_NAMES = Object.keys(FINDING_CODES) as [FindingCode, ...FindingCode[]];

/** The planner's input and output, and what its parts hand each other. */
import type { WorkloadDefinition } from '../../analysis/index.js';
import type { Finding, GpuEntry, KubernetesSection, Plan, Recommendation, ServingEntry, WorkloadEntry } from '../../model/index.js';
import type { CheckpointFacts, RecommendOptions } from '../types.js';
import type { PlanBasis, PlanDemand } from './demand.js';
import type { CurrentHost } from './hosts.js';
import type { Bin } from './pack.js';
import type { SupplyType } from './supply.js';
import type { HostGroup, TargetPlan } from './target.js';

export interface PlanInput {
  gpus: readonly GpuEntry[];
  workloads: readonly WorkloadEntry[];
  definitions: readonly WorkloadDefinition[];
  kubernetes?: KubernetesSection;
  /** Inference servers joined to workloads (report.serving): their queue gauges and labels feed the autoscalers. */
  serving?: readonly ServingEntry[];
}

export interface PlanOptions extends RecommendOptions {
  basis: PlanBasis;
}

export interface PlanOutcome {
  plan: Plan;
  findings: Finding[];
  /** The plan's steps as recommendations (the fields of schemaVersion 1). */
  recommendations: Recommendation[];
}

/** What the steps and findings are made from. */
export interface PlanParts {
  demands: readonly PlanDemand[];
  groups: readonly HostGroup[];
  target: TargetPlan;
  instances: readonly TargetInstance[];
  hosts: readonly CurrentHost[];
  /** Groups kept because the telemetry did not show all their GPUs: what moving their workloads would save were the unseen GPUs free. */
  unseen: ReadonlyMap<string, UnseenSaving>;
  options: PlanOptions;
  commitments: readonly CommitmentDecision[];
  /** The last sample of the evidence (ISO), which dated prices are aged against; null where undated. */
  windowEnd: string | null;
}

export interface UnseenSaving {
  workloads: string[];
  /** The cheapest purchase for each workload alone, e.g. `2 x p5.4xlarge`. */
  to: string;
  monthlySavingsUsd: number;
}

/** An instance of the target fleet: a kept host, or one the plan buys (a packed bin). */
export interface TargetInstance {
  name: string;
  type: SupplyType['instance'];
  /** Per hour at the planning term. */
  hourlyUsd: number;
  basis: 'kept' | 'planned';
  observedGpus: number;
  demands: PlanDemand[];
  /** Where spot pays: the expected cost per hour it runs (lost work included) and the share of hours it runs. */
  spot?: { hourlyUsd: number; runShare: number; onDemandHourlyUsd: number; checkpoint: CheckpointFacts };
  /** Where a commitment pays (./commitments.ts): its term and price an hour, all month. */
  commitment?: Commitment;
  bin?: Bin;
  host?: CurrentHost;
}

export type CommitmentTerm = 'reserved-1y' | 'savings-plan-1y';

export interface Commitment {
  term: CommitmentTerm;
  /** R: the committed price an hour of one instance. */
  hourlyUsd: number;
  /** Where R comes from. */
  source: string;
}

/** One unit's decision: the instances reserved, and the figures the rule read. */
export interface CommitmentDecision {
  type: TargetInstance['type'];
  term: CommitmentTerm;
  rUsdPerHour: number;
  source: string;
  /** The instances of the unit in descending share, with the A each would otherwise cost. */
  candidates: { instance: TargetInstance; share: number; aUsdPerHour: number; basis: 'on-demand' | 'spot' }[];
  reserved: TargetInstance[];
  /** Per month: the reserved instances on demand all month (the plan's term without the step), and committed. */
  beforeCents: number;
  /** What they would cost at A: spot's expected cost where they would run on spot. */
  otherwiseCents: number;
  afterCents: number;
  rule: string;
}

/**
 * The questions of `gpu-audit init`, in order: for each proposed workload keep it?, its
 * name, kind, tenant and (inference) a p95 latency objective; then the thresholds of
 * `check` and the pricing. Answers are checked with the config schema's own rules as they
 * are typed, so the config built at the end is one the loader accepts.
 */
import { WORKLOAD_KINDS, type GpuAuditConfig, type WorkloadConfig } from '../../config/index.js';
import { workloadSchema } from '../../config/document/index.js';
import { PRICING_MODELS, PROVIDERS } from '../../model/index.js';
import type { PricingModel } from '../../model/index.js';
import { toDisplayText } from '../../support/index.js';
import type { ProposedThresholds, WorkloadProposal } from '../../config/index.js';
import type { Prompter } from './prompter.js';

type Provider = (typeof PROVIDERS)[number];

/** What the wizard starts from besides the proposals: the audit's own pricing flags. */
export interface WizardDefaults {
  provider?: Provider;
  pricing: PricingModel;
}

export interface PricingAnswer {
  provider?: Provider;
  model: PricingModel;
}

const NO_PROVIDER = 'none';

/** The config of the given workloads, thresholds and pricing; sections left empty are left out. */
export function buildConfig(workloads: readonly WorkloadConfig[], thresholds: ProposedThresholds, pricing: PricingAnswer): GpuAuditConfig {
  // Threshold names as the flags spell them (`max-waste-pct`), as the README documents them.
  const limits = {
    ...(thresholds.maxWastePct === undefined ? {} : { 'max-waste-pct': thresholds.maxWastePct }),
    ...(thresholds.minUtilization === undefined ? {} : { 'min-utilization': thresholds.minUtilization }),
  };
  return {
    ...(workloads.length === 0 ? {} : { workloads: [...workloads] }),
    // The schema builds its threshold keys from THRESHOLD_DEFINITIONS, so its type names only `findings`.
    ...(Object.keys(limits).length === 0 ? {} : { thresholds: limits as NonNullable<GpuAuditConfig['thresholds']> }),
    pricing: { ...(pricing.provider === undefined ? {} : { provider: pricing.provider }), model: pricing.model },
  };
}

function workloadOf(proposal: WorkloadProposal): WorkloadConfig {
  return { name: proposal.name, kind: proposal.kind, match: { ...proposal.match } };
}

/** `--yes`: every proposal as it is, the proposed thresholds, the pricing flags. */
export function acceptProposals(proposals: readonly WorkloadProposal[], thresholds: ProposedThresholds, defaults: WizardDefaults): GpuAuditConfig {
  return buildConfig(proposals.map(workloadOf), thresholds, { provider: defaults.provider, model: defaults.pricing });
}

/** One line about a proposal: what runs, where, on how many devices. Text from the inputs is made safe to print. */
export function describeProposal(proposal: WorkloadProposal): string {
  const devices = `${proposal.gpus.length} GPU${proposal.gpus.length === 1 ? '' : 's'}`;
  return toDisplayText(`${proposal.example} on ${proposal.hosts.join(', ') || 'unknown hosts'} (${devices})`);
}

function nameValidator(taken: ReadonlySet<string>): (value: string) => true | string {
  return (value) => {
    const result = workloadSchema.shape.name.safeParse(value);
    if (!result.success) return result.error.issues[0]?.message ?? 'not a valid name';
    return taken.has(value) ? `expected a unique name (\`${value}\` is already taken)` : true;
  };
}

async function askWorkload(prompter: Prompter, proposal: WorkloadProposal, taken: Set<string>): Promise<WorkloadConfig | undefined> {
  const keep = await prompter.confirm({ message: `Keep workload ${describeProposal(proposal)}?`, default: true });
  if (!keep) return undefined;
  const name = (await prompter.input({ message: 'Name', default: proposal.name, validate: nameValidator(taken) })).trim();
  taken.add(name);
  const kind = await prompter.select({
    message: 'Kind',
    choices: WORKLOAD_KINDS.map((value) => ({ name: value, value })),
    default: proposal.kind,
  });
  const tenant = (await prompter.input({ message: 'Tenant (team or product; empty: none)', default: '' })).trim();
  const p95Ms = kind === 'inference' ? await prompter.number({ message: 'p95 latency objective, ms (empty: none)', min: Number.MIN_VALUE }) : undefined;
  return {
    name,
    kind,
    ...(tenant === '' ? {} : { tenant }),
    match: { ...proposal.match },
    ...(p95Ms === undefined ? {} : { slo: { p95Ms } }),
  };
}

async function askThresholds(prompter: Prompter, proposed: ProposedThresholds): Promise<ProposedThresholds> {
  const maxWastePct = await prompter.number({ message: 'check: maximum fleet waste, % of GPU-hours idle (empty: no limit)', default: proposed.maxWastePct, min: 0, max: 100 });
  const minUtilization = await prompter.number({ message: 'check: minimum fleet mean utilization, % (empty: no limit)', default: proposed.minUtilization, min: 0, max: 100 });
  return {
    ...(maxWastePct === undefined ? {} : { maxWastePct }),
    ...(minUtilization === undefined ? {} : { minUtilization }),
  };
}

async function askPricing(prompter: Prompter, defaults: WizardDefaults): Promise<PricingAnswer> {
  const provider = await prompter.select<Provider | typeof NO_PROVIDER>({
    message: 'Cloud provider of the prices',
    choices: [{ name: 'not set (--provider or the default, aws)', value: NO_PROVIDER }, ...PROVIDERS.map((value) => ({ name: value, value }))],
    default: defaults.provider ?? NO_PROVIDER,
  });
  const model = await prompter.select<PricingModel>({
    message: 'Pricing model in force',
    choices: PRICING_MODELS.map((value) => ({ name: value, value })),
    default: defaults.pricing,
  });
  return { ...(provider === NO_PROVIDER ? {} : { provider }), model };
}

/** Asks every question and returns the config the answers describe. */
export async function runWizard(
  prompter: Prompter,
  proposals: readonly WorkloadProposal[],
  thresholds: ProposedThresholds,
  defaults: WizardDefaults,
): Promise<GpuAuditConfig> {
  const taken = new Set<string>();
  const workloads: WorkloadConfig[] = [];
  for (const proposal of proposals) {
    const workload = await askWorkload(prompter, proposal, taken);
    if (workload !== undefined) workloads.push(workload);
  }
  return buildConfig(workloads, await askThresholds(prompter, thresholds), await askPricing(prompter, defaults));
}

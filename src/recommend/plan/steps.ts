/**
 * The plan's steps (docs/planner.md, "Steps"): each a change to make, with its evidence,
 * confidence, risks, config and share of the savings, ordered so that they can be carried out as
 * listed (a workload moves to the instance bought for it before that instance goes on spot).
 * The shares add up to the plan's saving: moves and releases carry current minus target of what
 * they change, purchase steps what the term saves on the instances they change; feeding a
 * pipeline and trimming sidecars change no instance and carry 0.
 */
import { gpuSpecByKey, migTableFor } from '../../catalog/index.js';
import { type PlanStep, type Recommendation, type RecommendationKind, type StepAction } from '../../model/index.js';
import { gpuName } from '../candidates.js';
import { confidenceOf, namedUnits, weaknessesOf } from '../confidence.js';
import { devicePluginConfigMap, devicePluginConfigName, SHARED_RESOURCE, type SharingMode } from '../sharing/device-plugin.js';
import { migPartedConfigs, type MigPartedNode } from '../sharing/mig.js';
import { SHARING_REPLICAS } from './sharing.js';
import { autoscaleSteps } from './autoscale.js';
import { commitmentEvidence } from './commitments.js';
import { daysBefore, SPOT_PRICE_FRESH_DAYS, spotRiskOf, type SpotRisk } from './spot.js';
import { money, round2 } from '../units.js';
import { inUse, type PlanDemand } from './demand.js';
import { countedTypes, dollars, monthlyCents } from './words.js';
import type { PlanParts, TargetInstance } from './types.js';
import type { HostGroup } from './target.js';

/** Sidecars above this share of the workload's cost get a step: trimming them frees that much of the node. */
export const SIDECAR_OVERHEAD_STEP_PCT = 25;

/** How each step reads as a recommendation of schemaVersion 1's kinds. */
const KIND_OF_ACTION: Readonly<Record<StepAction, RecommendationKind>> = {
  release: 'rightsize',
  move: 'rightsize',
  repartition: 'mig',
  share: 'time-slicing',
  commit: 'purchase',
  scale: 'replicas',
  autoscale: 'autoscale',
  'raise-cpu': 'feed-cpu',
  'trim-sidecars': 'trim-sidecars',
};

/** The group's hosts a month, in cents, as the current fleet counts them (an unpriced host counts 0). */
function hostsCents(group: HostGroup): number {
  return group.hosts.reduce((sum, host) => sum + (host.hourlyUsd === null ? 0 : monthlyCents(host.hourlyUsd)), 0);
}

function hostsText(group: HostGroup): string {
  const counts = new Map<string, number>();
  for (const host of group.hosts) counts.set(host.instance?.name ?? 'unknown type', (counts.get(host.instance?.name ?? 'unknown type') ?? 0) + 1);
  const types = [...counts.entries()].map(([name, count]) => `${count} x ${name}`).join(' + ');
  return `${types} (${group.hosts.map((host) => host.host).join(', ')})`;
}

function settingsOf(parts: PlanParts): { minWindowHours: number; minSamples: number } {
  return { minWindowHours: parts.options.minWindowHours, minSamples: parts.options.minSamples };
}

/** Risks of named workloads, each text once with the workloads it concerns: a fleet's step may hold thousands. */
class WorkloadRisks {
  private readonly byText = new Map<string, string[]>();

  add(label: string, text: string): void {
    const labels = this.byText.get(text) ?? [];
    labels.push(label);
    this.byText.set(text, labels);
  }

  list(): string[] {
    return [...this.byText].map(([text, labels]) => `${namedUnits(labels)}: ${text}`);
  }
}

function releaseRisk(demand: PlanDemand, risks: WorkloadRisks): void {
  risks.add(demand.unit.label, demand.unit.kind === 'interactive'
    ? 'the notebook kernels holding these GPUs lose them: cull idle kernels (JupyterHub idle culler) or give notebooks a shared or fractional GPU'
    : 'a job that runs less often than the window (weekly, monthly) would find no GPU: check schedules before releasing');
}

function releaseRisks(demands: readonly PlanDemand[]): string[] {
  const risks = new WorkloadRisks();
  for (const demand of demands) releaseRisk(demand, risks);
  return risks.list();
}

function releaseStep(group: HostGroup, parts: PlanParts): PlanStep {
  const units = group.demands.map((demand) => demand.unit);
  const reasons = weaknessesOf(units, settingsOf(parts), { vram: false, compute: true });
  return {
    id: `release:${group.id}`,
    action: 'release',
    workloads: group.demands.map((demand) => demand.unit.id),
    from: hostsText(group),
    to: 'nothing: release the instances',
    monthlySavingsUsd: dollars(hostsCents(group)),
    confidence: confidenceOf(reasons),
    confidenceReasons: reasons,
    risks: releaseRisks(group.demands),
    evidence: { hosts: group.id, currentUsdPerHour: round2(group.hourlyUsd ?? 0), windowHours: round2(Math.min(...units.map((unit) => unit.window.hours))) },
    after: [],
  };
}

/** What the slower GPUs of a move risk, for services (latency) and jobs (run time). */
function slowerRisk(demand: PlanDemand, instance: TargetInstance): string | undefined {
  const now = gpuSpecByKey(demand.unit.modelKey);
  const next = gpuSpecByKey(instance.type.gpuModelKey);
  if (now === undefined || next === undefined || now.key === next.key) return undefined;
  const ratios: string[] = [];
  const tflops = [now.bf16DenseTflops?.value, next.bf16DenseTflops?.value];
  const bandwidth = [now.memoryBandwidthGBps?.value, next.memoryBandwidthGBps?.value];
  if (tflops[0] !== undefined && tflops[1] !== undefined && tflops[1] < tflops[0]) ratios.push(`${Math.round((tflops[1] / tflops[0]) * 100)}% of the BF16 throughput`);
  if (bandwidth[0] !== undefined && bandwidth[1] !== undefined && bandwidth[1] < bandwidth[0]) ratios.push(`${Math.round((bandwidth[1] / bandwidth[0]) * 100)}% of the memory bandwidth`);
  if (ratios.length === 0) return undefined;
  const slower = `${gpuName(next.key)} has ${ratios.join(' and ')} of the ${gpuName(now.key)}`;
  if (demand.unit.kind === 'training' || demand.unit.kind === 'batch') return `the ${slower}: each run takes longer in proportion, which a scheduled job must have room for`;
  const slo = demand.unit.serving?.latencySloMs;
  return `the ${slower}: per-request latency rises; ${slo === null || slo === undefined ? 'check it against the latency target before moving' : `verify the ${slo} ms p95 SLO under peak load`}`;
}

/** What each sharing mode isolates and what it does not (NVIDIA device plugin README, CUDA MPS documentation). */
const SHARING_RISKS: Readonly<Record<SharingMode, readonly string[]>> = {
  'time-slicing': [
    'time-slicing isolates neither memory nor faults: both workloads see the whole GPU memory (cap each server\'s allocation, e.g. vLLM --gpu-memory-utilization, to what the plan gives it) and a fault in one ends both',
    'while both are busy they take turns: each slows by the share the other takes',
  ],
  mps: [
    'MPS gives each client half the threads and half the memory, enforced by the MPS daemon, each in its own address space; a fatal fault in one still reaches every client on the GPU',
    'MPS support in the NVIDIA device plugin is marked experimental, and it is not available on GPUs in MIG mode',
  ],
};

function moveRisks(demands: readonly PlanDemand[], instances: readonly TargetInstance[], released: readonly PlanDemand[]): string[] {
  const risks = new WorkloadRisks();
  const landingOf = new Map<PlanDemand, TargetInstance>();
  const sharedBy = new Map<string, SharingMode>();
  for (const instance of instances) {
    for (const demand of instance.demands) if (!landingOf.has(demand)) landingOf.set(demand, instance);
    for (const item of instance.bin?.items ?? []) if (item.sharing !== undefined) for (const id of item.demand.split('\u0000')) sharedBy.set(id, item.sharing);
  }
  for (const demand of demands) {
    const first = landingOf.get(demand);
    if (first === undefined) continue;
    const label = demand.unit.label;
    const slower = slowerRisk(demand, first);
    if (slower !== undefined) risks.add(label, slower);
    if (demand.unit.vram.basis === 'upper-bound' || demand.unit.vram.preallocating === true) {
      risks.add(label, `its measured memory is what a preallocating server was told to reserve: set its allocation to the ${Math.round(demand.vramPerReplicaMiB! / 1024)} GiB planned, or it takes the whole new GPU`);
    }
    if (demand.need?.basis === 'upper-bound') risks.add(label, `no compute signal: sized on the whole current ${demand.slice === null ? 'GPU' : 'slice'}, so it may run on less`);
    const mode = sharedBy.get(demand.unit.id);
    if (mode !== undefined) for (const risk of SHARING_RISKS[mode]) risks.add(label, risk);
  }
  for (const demand of released) releaseRisk(demand, risks);
  return [...risks.list(), 'drain each workload onto its new instance before the old one is released: the savings start once the old instances are gone'];
}

/** A Kubernetes label value from an instance name: `p5.4xlarge #3` -> `gpu-audit-p5.4xlarge-3`. */
function migConfigName(instance: string): string {
  return `gpu-audit-${instance.replace(/[^A-Za-z0-9_.-]+/gu, '-')}`.slice(0, 63).replace(/[^A-Za-z0-9]+$/u, '');
}

/**
 * One mig-parted config file for the new instances that hold MIG slices: a named config per
 * instance (its own device indices, its whole GPUs with MIG off), the node label that selects it
 * (the GPU Operator's MIG manager applies the config a node is labelled with), and what each
 * workload's pods request. The mixed strategy names every profile as its own resource, so any
 * layout is requested as written; the single strategy would need one profile per node.
 */
function migConfigs(instances: readonly TargetInstance[], labelOf: (workload: string) => string): string | undefined {
  const nodes: MigPartedNode[] = [];
  const lines: string[] = [];
  const requests = new Map<string, Map<string, number>>();
  for (const instance of instances) {
    const sliced = instance.bin?.items.filter((item) => item.profiles !== undefined) ?? [];
    if (sliced.length === 0 || migTableFor(instance.type.gpuModelKey) === undefined) continue;
    const name = migConfigName(instance.name);
    nodes.push({ name, gpus: sliced.map((item) => ({ profiles: [...item.profiles!], units: item.demand.split('\u0000') })), gpuCount: instance.type.gpuCount });
    lines.push(`#   ${instance.name}: kubectl label node <its node> nvidia.com/mig.config=${name} --overwrite`);
    for (const slice of sliced.flatMap((item) => item.slices ?? [])) {
      const counts = requests.get(slice.workload) ?? new Map<string, number>();
      counts.set(slice.profile, (counts.get(slice.profile) ?? 0) + 1);
      requests.set(slice.workload, counts);
    }
  }
  if (nodes.length === 0) return undefined;
  const asked = [...requests.entries()].map(([workload, counts]) => `#   ${labelOf(workload)}: ${[...counts.entries()].map(([profile, count]) => `nvidia.com/mig-${profile}: 1 per pod (${count} slice${count === 1 ? '' : 's'} in all)`).join(', ')}`);
  return [
    '# mig-parted config: add these named configs to the GPU Operator\'s MIG manager ConfigMap (or nvidia-mig-parted apply -f on the host).',
    '# Label each node with the config it takes:',
    ...lines,
    '# MIG strategy mixed (ClusterPolicy mig.strategy: mixed; the device plugin\'s MIG_STRATEGY=mixed).',
    '# Pods request their slice under resources.limits:',
    ...asked,
    migPartedConfigs(nodes),
  ].join('\n');
}

/**
 * The device plugin configs of the new instances whose GPUs pairs share: the named configs for
 * the plugin's ConfigMap, which node takes which (by label), and what the pods request. The
 * plugin replicates every GPU of a labelled node, so those nodes hold shared pairs only.
 */
function sharingConfigs(instances: readonly TargetInstance[], labelOf: (workload: string) => string): string | undefined {
  const modes = new Set<SharingMode>();
  const lines: string[] = [];
  const requests: string[] = [];
  for (const instance of instances) {
    const shared = instance.bin?.items.filter((item) => item.sharing !== undefined) ?? [];
    const mode = shared[0]?.sharing;
    if (mode === undefined) continue;
    modes.add(mode);
    lines.push(`#   ${instance.name}: kubectl label node <its node> nvidia.com/device-plugin.config=${devicePluginConfigName(mode, SHARING_REPLICAS)} --overwrite`);
    for (const item of shared) for (const workload of item.demand.split('\u0000')) requests.push(`#   ${labelOf(workload)}: ${SHARED_RESOURCE}: 1 per pod (${mode})`);
  }
  if (modes.size === 0) return undefined;
  return [
    '# NVIDIA device plugin: add these named configs to its ConfigMap (Helm config.name, or the GPU Operator\'s devicePlugin.config.name).',
    '# Label each node with the one it takes; every GPU of that node is then shared (the plugin shares node-wide):',
    ...lines,
    `# Pods request the shared resource under resources.limits (renameByDefault: ${SHARED_RESOURCE}); more than one per pod is refused:`,
    ...requests,
    devicePluginConfigMap([...modes].sort().map((mode) => ({ mode, replicas: SHARING_REPLICAS }))),
  ].join('\n');
}

/** One config block for a step: mig-parted, device plugin, or both as YAML documents. */
function stepConfig(mig: string | undefined, sharing: string | undefined): { format: string; text: string } | undefined {
  if (mig !== undefined && sharing !== undefined) return { format: 'yaml', text: `${mig}---\n${sharing}` };
  if (mig !== undefined) return { format: 'mig-parted', text: mig };
  if (sharing !== undefined) return { format: 'device-plugin', text: sharing };
  return undefined;
}

/** Instances listed in a step's sentences, at most: the figures hold them all. */
const LISTED = 10;

/** `a; b; ... and 12 more instances`. */
function firstOf(items: readonly string[], noun: string, separator = '; '): string {
  const shown = items.slice(0, LISTED).join(separator);
  return items.length <= LISTED ? shown : `${shown}${separator}and ${(items.length - LISTED).toLocaleString('en-US')} more ${noun}s`;
}

function moveSteps(parts: PlanParts): PlanStep[] {
  const labelById = new Map(parts.demands.map((demand) => [demand.unit.id, demand.unit.label]));
  const labelOf = (workload: string): string => labelById.get(workload) ?? workload;
  const moved = parts.groups.filter((group) => parts.target.outcomes.get(group.id) === 'move');
  const planned = parts.instances.filter((instance) => instance.basis === 'planned');
  // Components: moved groups and the instances their workloads land in, joined by those workloads.
  const component = new Map<HostGroup, number>();
  const instanceComponent = new Map<TargetInstance, number>();
  let next = 0;
  const merge = (from: number, into: number): void => {
    for (const [key, value] of component) if (value === from) component.set(key, into);
    for (const [key, value] of instanceComponent) if (value === from) instanceComponent.set(key, into);
  };
  for (const group of moved) {
    let id = next++;
    component.set(group, id);
    for (const instance of planned) {
      if (!instance.demands.some((demand) => group.demands.includes(demand))) continue;
      const existing = instanceComponent.get(instance);
      if (existing === undefined) instanceComponent.set(instance, id);
      else if (existing !== id) {
        merge(id, existing);
        id = existing;
      }
    }
  }
  const steps: PlanStep[] = [];
  for (const id of new Set(component.values())) {
    const groups = moved.filter((group) => component.get(group) === id);
    const landing = planned.filter((instance) => instanceComponent.get(instance) === id);
    const demands = groups.flatMap((group) => group.demands);
    const movers = demands.filter((demand) => demand.disposition.kind === 'move');
    const released = demands.filter((demand) => demand.disposition.kind === 'release');
    const currentHourly = groups.reduce((sum, group) => sum + (group.hourlyUsd ?? 0), 0);
    const targetHourly = landing.reduce((sum, instance) => sum + instance.hourlyUsd, 0);
    const reasons = weaknessesOf(demands.map((demand) => demand.unit), settingsOf(parts), { vram: true, compute: true });
    const config = stepConfig(migConfigs(landing, labelOf), sharingConfigs(landing, labelOf));
    const to = landing.length === 0 ? 'nothing' : `${countedTypes(landing.map((instance) => instance.type.name))} (${firstOf(landing.map((instance) => `${instance.name}: ${instance.demands.map((demand) => demand.unit.label).join(', ')}`), 'instance')})`;
    steps.push({
      id: `move:${groups[0]!.id}${groups.length > 1 ? ` +${groups.length - 1}` : ''}`,
      action: 'move',
      workloads: demands.map((demand) => demand.unit.id),
      from: firstOf(groups.map(hostsText), 'host group', ' + '),
      to: `${to}${released.length > 0 ? `; release ${namedUnits(released.map((demand) => demand.unit.label))}` : ''}`,
      monthlySavingsUsd: dollars(groups.reduce((sum, group) => sum + hostsCents(group), 0) - landing.reduce((sum, instance) => sum + monthlyCents(instance.hourlyUsd), 0)),
      confidence: confidenceOf(reasons),
      confidenceReasons: reasons,
      risks: moveRisks(movers, landing, released),
      evidence: {
        currentUsdPerHour: round2(currentHourly),
        proposedUsdPerHour: round2(targetHourly),
        currentInstances: groups.reduce((sum, group) => sum + group.hosts.length, 0),
        proposedInstances: landing.length,
        currentGpus: groups.reduce((sum, group) => sum + group.hosts.reduce((count, host) => count + host.observedGpus, 0), 0),
        proposedGpus: landing.reduce((sum, instance) => sum + instance.type.gpuCount, 0),
        scope: [...new Set(movers.map((demand) => parts.target.moving.get(demand.unit.id)?.scope).filter((scope): scope is string => scope !== undefined))].join('; '),
      },
      ...(config === undefined ? {} : { config }),
      after: [],
    });
  }
  return steps;
}

/** What makes a spot step less sure than its workloads: the price's age and the interruption rate's basis. */
function spotWeaknesses(instance: TargetInstance, risk: SpotRisk, windowEnd: string | null): string[] {
  const reasons: string[] = [];
  const observedAt = instance.type.prices.spotObservedAt;
  const age = daysBefore(observedAt, windowEnd);
  if (observedAt === undefined) reasons.push(`the catalog's spot price for ${instance.type.name} is undated: it may be far from today's (catalog refresh dates it)`);
  else if (age !== null && age > SPOT_PRICE_FRESH_DAYS) reasons.push(`the spot price for ${instance.type.name} was observed on ${observedAt}, ${age} days before the window's end`);
  if (risk.rateBasis === 'assumed') reasons.push(`no interruption rate known for ${instance.type.name} in ${instance.type.region}: ${percentText(risk.interruptionsPerMonth)}/month assumed (Spot Advisor's worst bucket); set pricing.spotInterruptionsPerMonthPct`);
  if (risk.unsuitable) reasons.push(`a pool reclaimed ${percentText(risk.interruptionsPerMonth)}/month or more is unsuitable for long single-node training at this checkpoint interval: ${percentText(risk.expectedLossShare, 1)} of the run hours lost`);
  return reasons;
}

function percentText(share: number, digits = 0): string {
  return `${(share * 100).toFixed(digits)}%`;
}

function commitSteps(parts: PlanParts, moves: readonly PlanStep[]): PlanStep[] {
  return parts.instances.filter((instance) => instance.spot !== undefined).map((instance) => {
    const spot = instance.spot!;
    const onDemandCents = monthlyCents(spot.onDemandHourlyUsd);
    const spotCents = monthlyCents(spot.hourlyUsd, spot.runShare);
    const demands = inUse(instance.demands);
    const risk = spotRiskOf(spot.checkpoint, parts.options);
    const reasons = [...weaknessesOf(demands.map((demand) => demand.unit), settingsOf(parts), { vram: false, compute: true }), ...spotWeaknesses(instance, risk, parts.windowEnd)];
    const creator = moves.find((step) => instance.basis === 'planned' && demands.some((demand) => step.workloads.includes(demand.unit.id)));
    return {
      id: `commit:${instance.name}`,
      action: 'commit' as const,
      workloads: demands.map((demand) => demand.unit.id),
      from: `${instance.name} on demand, all month (${money(dollars(onDemandCents))}/month)`,
      to: `${instance.type.name} on spot while its work runs (${(spot.runShare * 100).toFixed(1)}% of the hours): ${money(dollars(spotCents))}/month expected`,
      monthlySavingsUsd: dollars(onDemandCents - spotCents),
      confidence: confidenceOf(reasons),
      confidenceReasons: reasons,
      risks: [
        `spot capacity can be reclaimed at two minutes' notice: the job resumes from its last checkpoint; at ${percentText(risk.interruptionsPerMonth)} of capacity reclaimed a month, each interruption loses ${(risk.lostHoursPerInterruption * 60).toFixed(0)} minutes (half the ${spot.checkpoint.intervalSeconds / 60}-minute checkpoint interval and the ${spot.checkpoint.restoreSeconds / 60}-minute restore), ${percentText(risk.expectedLossShare, 2)} of the run hours, priced in`,
        'capacity for large GPU types may not be there when a run starts: a bounded run can be reserved ahead (EC2 Capacity Blocks for ML, where offered)',
        `the spot price is an observation${instance.type.prices.spotObservedAt === undefined ? ' of unknown date' : ` of ${instance.type.prices.spotObservedAt}`}, not a quote: it moves with demand`,
      ],
      evidence: {
        instanceType: instance.type.name,
        onDemandUsdPerHour: round2(spot.onDemandHourlyUsd),
        spotExpectedUsdPerHour: round2(spot.hourlyUsd),
        spotUsdPerHour: instance.type.prices.spot,
        spotObservedAt: instance.type.prices.spotObservedAt ?? null,
        runShare: round2(spot.runShare),
        checkpointIntervalMinutes: spot.checkpoint.intervalSeconds / 60,
        restoreMinutes: spot.checkpoint.restoreSeconds / 60,
        interruptionsPerMonthPct: round2(risk.interruptionsPerMonth * 100),
        interruptionRateBasis: risk.rateBasis,
        expectedLossPct: round2(risk.expectedLossShare * 100),
      },
      after: creator === undefined ? [] : [creator.id],
    };
  });
}

/** A commitment per instance type: whole instances reserved (or a $/h savings plan) at R instead of A. */
function reserveSteps(parts: PlanParts, moves: readonly PlanStep[]): PlanStep[] {
  return parts.commitments.map((decision) => {
    const demands = decision.reserved.flatMap((instance) => inUse(instance.demands));
    const reasons = weaknessesOf(demands.map((demand) => demand.unit), settingsOf(parts), { vram: true, compute: true });
    const creators = moves.filter((step) => demands.some((demand) => step.workloads.includes(demand.unit.id)));
    const count = decision.reserved.length;
    const names = decision.reserved.map((instance) => instance.name).join(', ');
    const wasSpot = decision.candidates.some((candidate) => candidate.basis === 'spot' && decision.reserved.includes(candidate.instance));
    const bought = decision.term === 'savings-plan-1y'
      ? `a 1-year savings plan of $${(decision.rUsdPerHour * count).toFixed(2)}/h covering ${count} x ${decision.type.name}`
      : `${count} x ${decision.type.name} reserved for 1 year (${count * decision.type.gpuCount} GPU${count * decision.type.gpuCount === 1 ? '' : 's'}: whole instances)`;
    return {
      id: `reserve:${decision.type.name}`,
      action: 'commit' as const,
      workloads: [...new Set(demands.map((demand) => demand.unit.id))],
      from: `${names} on demand, all month (${money(dollars(decision.beforeCents))}/month${wasSpot ? `; ${money(dollars(decision.otherwiseCents))} expected on spot while its work runs` : ''})`,
      to: `${bought} at $${decision.rUsdPerHour.toFixed(2)}/h each: ${money(dollars(decision.afterCents))}/month`,
      monthlySavingsUsd: dollars(decision.beforeCents - decision.afterCents),
      confidence: confidenceOf(reasons),
      confidenceReasons: reasons,
      risks: [
        'a commitment is paid for the whole term whether the instances run or not: commit only what the plan keeps after its other steps',
        `the committed price is ${decision.source}: check it against the provider's quote before buying`,
      ],
      evidence: commitmentEvidence(decision),
      after: creators.map((step) => step.id),
    };
  });
}

function feedSteps(parts: PlanParts): PlanStep[] {
  return parts.demands.filter((demand) => demand.disposition.kind === 'feed').map((demand) => {
    const feed = demand.disposition as Extract<PlanDemand['disposition'], { kind: 'feed' }>;
    const host = parts.hosts.find((candidate) => demand.hosts.includes(candidate.host));
    const vcpus = host?.instance?.vcpus ?? null;
    const cores = feed.coresNeeded;
    const to = cores === null
      ? 'feed the GPU: more data-loader workers and CPU for the pipeline (no CPU figure to size it by)'
      : vcpus !== null && cores > vcpus
        ? `an instance type with at least ${cores} vCPUs and the same GPUs: ${host!.instance!.name} has ${vcpus}`
        : `raise the CPU request (and data-loader workers) to about ${cores} cores`;
    return {
      id: `raise-cpu:${demand.unit.id}`,
      action: 'raise-cpu' as const,
      workloads: [demand.unit.id],
      from: feed.coresUsed === null ? 'a GPU that waits on its CPU pipeline' : `${feed.coresUsed.toFixed(1)} cores feeding the GPU at ${feed.figures?.gpuBusyPct?.toFixed(0) ?? '?'}% busy`,
      to,
      monthlySavingsUsd: 0,
      confidence: 'medium' as const,
      confidenceReasons: ['cores scale the feed rate in proportion: a pipeline bound elsewhere (storage, network) gains less'],
      risks: ['a smaller GPU would not help: the GPU waits on its input; once fed, the same work takes fewer GPU-hours'],
      evidence: {
        coresUsed: feed.coresUsed === null ? null : round2(feed.coresUsed),
        coresNeeded: cores,
        gpuBusyPct: feed.figures?.gpuBusyPct ?? null,
        hostCpuBusyFraction: feed.figures?.hostCpuBusyFraction ?? null,
        hostVcpus: vcpus,
      },
      after: [],
    };
  });
}

function sidecarSteps(parts: PlanParts, workloads: ReadonlyMap<string, { sidecars: { overheadPct: number | null; cpuCores: number | null; memoryMiB: number | null; monthlyCostUsd?: number | null } }>): PlanStep[] {
  const steps: PlanStep[] = [];
  for (const demand of parts.demands) {
    const sidecars = workloads.get(demand.unit.id)?.sidecars;
    if (sidecars?.overheadPct == null || sidecars.overheadPct < SIDECAR_OVERHEAD_STEP_PCT) continue;
    steps.push({
      id: `trim-sidecars:${demand.unit.id}`,
      action: 'trim-sidecars',
      workloads: [demand.unit.id],
      from: `sidecars requesting ${sidecars.cpuCores ?? '?'} cores and ${sidecars.memoryMiB ?? '?'} MiB (${sidecars.overheadPct.toFixed(0)}% of the workload's cost)`,
      to: 'trim their requests to what they use, or move them off the GPU node',
      monthlySavingsUsd: 0,
      confidence: 'medium',
      confidenceReasons: ['the bill changes only where the freed node capacity lets an instance go'],
      risks: ['a sidecar starved of CPU slows the workload it serves: trim to measured use plus headroom'],
      evidence: { overheadPct: round2(sidecars.overheadPct), sidecarCpuCores: sidecars.cpuCores, sidecarMemoryMiB: sidecars.memoryMiB, freesMonthlyUsd: sidecars.monthlyCostUsd ?? null },
      after: [],
    });
  }
  return steps;
}

/**
 * MIG instances that never ran, on hosts the plan keeps: the slice is paid for and idle. Giving it
 * back changes no instance (0 saved) but frees it for a workload that needs one, or, with the
 * others gone, the GPU.
 */
function repartitionSteps(parts: PlanParts): PlanStep[] {
  return parts.groups.filter((group) => parts.target.outcomes.get(group.id) === 'keep').flatMap((group) =>
    group.demands.filter((demand) => demand.slice !== null && demand.unusedGpus > 0 && demand.disposition.kind !== 'release').map((demand) => {
      const unused = demand.unusedGpus;
      return {
        id: `repartition:${demand.unit.id}`,
        action: 'repartition' as const,
        workloads: [demand.unit.id],
        from: `${demand.currentReplicas} x ${demand.slice!.name} held by ${demand.unit.label}, ${unused} never used in the window`,
        to: `${demand.replicas} x ${demand.slice!.name}: repartition ${group.id} without the unused instance${unused === 1 ? '' : 's'} (mig-parted), and give the slices to a workload that needs them`,
        monthlySavingsUsd: 0,
        confidence: 'medium' as const,
        confidenceReasons: [`${demand.unit.window.hours.toFixed(1)} h observed: an instance used less often than that looks unused`],
        risks: ['repartitioning a GPU needs every instance on it drained'],
        evidence: { migProfile: demand.slice!.name, instances: demand.currentReplicas, usedInstances: demand.replicas },
        after: [],
      };
    }),
  );
}

export function planSteps(parts: PlanParts, workloads: ReadonlyMap<string, { sidecars: { overheadPct: number | null; cpuCores: number | null; memoryMiB: number | null; monthlyCostUsd?: number | null } }>): PlanStep[] {
  const releases = parts.groups.filter((group) => parts.target.outcomes.get(group.id) === 'release').map((group) => releaseStep(group, parts));
  const moves = moveSteps(parts);
  return [...moves, ...releases, ...repartitionSteps(parts), ...commitSteps(parts, moves), ...reserveSteps(parts, moves), ...feedSteps(parts), ...sidecarSteps(parts, workloads), ...autoscaleSteps(parts, moves)];
}

/** The steps as recommendations: the fields of schemaVersion 1, every one counted in the total. */
export function stepRecommendations(steps: readonly PlanStep[]): Recommendation[] {
  return steps.map((step) => ({
    id: step.id,
    kind: KIND_OF_ACTION[step.action],
    targets: step.workloads,
    current: step.from,
    proposed: step.to,
    monthlySavingsUsd: step.monthlySavingsUsd,
    confidence: step.confidence,
    confidenceReasons: step.confidenceReasons,
    risks: step.risks,
    rationale: rationaleOf(step),
    evidence: step.evidence,
    ...(step.config === undefined ? {} : { config: step.config }),
    counted: true,
  }));
}

function rationaleOf(step: PlanStep): string {
  switch (step.action) {
    case 'release':
      return `${step.workloads.join(', ')} used no GPU in the window: the instances go, ${money(step.monthlySavingsUsd)}/month.`;
    case 'move':
      return `The workloads fit ${step.to.split(' (')[0]} for ${money(step.monthlySavingsUsd)}/month less than the instances they run on.`;
    case 'commit':
      return typeof step.evidence.rule === 'string'
        ? `Commit where the share of hours with demand is at least R/A: ${step.evidence.rule}; ${money(step.monthlySavingsUsd)}/month.`
        : `Checkpointed work that runs part of the hours costs less on spot, taken while it runs: ${money(step.monthlySavingsUsd)}/month expected.`;
    case 'raise-cpu':
      return 'The GPU waits on its CPU input pipeline: feed it before resizing it.';
    case 'trim-sidecars':
      return 'Sidecars take a large share of the pod: trimming them frees node capacity.';
    case 'autoscale':
      return 'Scale the pool on its queue and latency, with thresholds from its measured capacity within the SLO: it holds the peak\'s replicas only while the load needs them.';
    default:
      return step.to;
  }
}

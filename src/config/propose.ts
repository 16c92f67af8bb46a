/**
 * What `gpu-audit init` proposes from an audit: one workload per program found on the GPUs
 * (processes grouped by a normalised command: `python3 /workspace/train.py` -> `train`) and
 * one per pod controller seen holding GPUs without process lists, each with a suggested
 * kind, a match rule and the hosts it was seen on. Pure: the wizard asks the user about
 * these, `--yes` takes them as they are.
 */
import type { WorkloadKind } from './document/schema.js';
import { UNASSIGNED_WORKLOAD } from './vocabulary.js';
import type { GpuEntry, KubernetesPodEntry, Report } from '../model/index.js';

/** A proposed workload and the evidence behind it (shown in the prompts). */
export interface WorkloadProposal {
  name: string;
  kind: WorkloadKind;
  match: ProposedMatch;
  /** Hosts where it was seen, sorted. */
  hosts: string[];
  /** Report ids of the devices it ran on, in report order. */
  gpus: string[];
  /** A command line (or `namespace/pod`) as seen, for the prompt. */
  example: string;
}

export type ProposedMatch = { process: string; hosts?: string[] } | { namespace: string; pod: string } | { hosts: string[] };

/** Suggested thresholds of `check`: limits the fleet meets today, so a first CI run passes and a regression fails. */
export interface ProposedThresholds {
  maxWastePct?: number;
  minUtilization?: number;
}

/** Programs that run other programs: the workload is the script or module they are given. */
const INTERPRETERS = /^(python[\d.]*|pypy[\d.]*|node|deno|bun|bash|sh|zsh|ruby|perl|php|Rscript|julia|java|torchrun|accelerate|deepspeed|mpirun|srun|uv|conda)$/;
const SCRIPT_EXTENSION = /\.(py|js|mjs|ts|sh|rb|pl|php|R|jl|jar)$/;
const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** Kind by name, first matching row wins: serving stacks, then training, then notebooks; anything else is batch. */
const KIND_RULES: readonly { pattern: RegExp; kind: WorkloadKind }[] = [
  { pattern: /vllm|tritonserver|text-generation|text_generation_server|sglang|torchserve|llama-server|ollama|inference|serving/i, kind: 'inference' },
  { pattern: /train|finetune|fine-tune|fine_tune/i, kind: 'training' },
  { pattern: /ipykernel|jupyter|notebook/i, kind: 'interactive' },
];

export function suggestKind(text: string): WorkloadKind {
  return KIND_RULES.find((rule) => rule.pattern.test(text))?.kind ?? 'batch';
}

export function escapeRegExp(text: string): string {
  return text.replace(REGEX_SPECIAL, '\\$&');
}

function basename(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}

/**
 * The program a command line runs, as a short key and a regular expression that finds it:
 * an interpreter's `-m module` or script, else the executable's base name. Arguments after
 * those (ports, kernel files, paths of data) differ between runs and are left out.
 */
export function normaliseCommand(commandLine: string): { key: string; pattern: string } {
  const tokens = commandLine.trim().split(/\s+/).filter((token) => token !== '');
  const executable = basename(tokens[0] ?? commandLine);
  if (INTERPRETERS.test(executable)) {
    const moduleFlag = tokens.indexOf('-m');
    const module = moduleFlag >= 1 ? tokens[moduleFlag + 1] : undefined;
    if (module !== undefined) return { key: module.split('.')[0]!, pattern: `-m ${escapeRegExp(module)}` };
    const script = tokens.slice(1).find((token) => SCRIPT_EXTENSION.test(token)) ?? tokens.slice(1).find((token) => !token.startsWith('-'));
    if (script !== undefined) return { key: basename(script).replace(SCRIPT_EXTENSION, ''), pattern: escapeRegExp(script) };
  }
  return { key: executable, pattern: escapeRegExp(executable) };
}

/** A valid, unused workload name from a key: the schema allows letters, digits, `.`, `_` and `-`. */
function workloadName(key: string, taken: Set<string>): string {
  const base = key.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'workload';
  let name = base === UNASSIGNED_WORKLOAD ? `${base}-workload` : base;
  for (let suffix = 2; taken.has(name); suffix += 1) name = `${base}-${suffix}`;
  taken.add(name);
  return name;
}

interface Group {
  key: string;
  pattern: string;
  example: string;
  gpus: GpuEntry[];
}

function processGroups(gpus: readonly GpuEntry[]): Group[] {
  const groups = new Map<string, Omit<Group, 'gpus'> & { gpus: Set<GpuEntry> }>();
  for (const gpu of gpus) {
    for (const process of gpu.processes) {
      const { key, pattern } = normaliseCommand(process.name);
      const group = groups.get(pattern) ?? { key, pattern, example: process.name, gpus: new Set<GpuEntry>() };
      group.gpus.add(gpu);
      groups.set(pattern, group);
    }
  }
  return [...groups.values()].map((group) => ({ ...group, gpus: [...group.gpus] }));
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/**
 * `hosts` claims every GPU of a host, idle ones included; it is proposed only where the
 * group is the one program seen on its hosts, so it cannot take another workload's GPUs.
 */
function dedicatedHosts(group: Group, groupsOnHost: ReadonlyMap<string, number>): string[] | undefined {
  const hosts = sortedUnique(group.gpus.map((gpu) => gpu.host));
  return hosts.some((host) => groupsOnHost.get(host)! > 1) ? undefined : hosts;
}

/** How many groups run on each host. */
function groupsPerHost(groups: readonly Group[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const group of groups) for (const host of new Set(group.gpus.map((gpu) => gpu.host))) counts.set(host, (counts.get(host) ?? 0) + 1);
  return counts;
}

/** Pods grouped by their controller (a Deployment's pods share it) or by name when bare. */
function podGroups(pods: readonly KubernetesPodEntry[], coveredGpus: ReadonlySet<string>): Map<string, KubernetesPodEntry[]> {
  const groups = new Map<string, KubernetesPodEntry[]>();
  for (const pod of pods) {
    // Pods on GPUs whose processes are already proposed would claim them a second time.
    if (pod.gpus.length === 0 || pod.gpus.every((id) => coveredGpus.has(id))) continue;
    const key = `${pod.namespace}/${pod.workloadName ?? pod.name}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [pod]);
    else group.push(pod);
  }
  return groups;
}

/**
 * Pod rules claim the devices dcgm-exporter labelled with the pod. A pod found only through
 * its node (the one GPU pod there, holding every GPU) has no such label: its node's hosts
 * rule claims the same GPUs. A controller's pods are `<controller>-<suffix>`; a bare pod is
 * matched by its exact name.
 */
function podMatch(pods: readonly KubernetesPodEntry[], hosts: string[], fleetHosts: ReadonlySet<string>): ProposedMatch {
  const first = pods[0]!;
  if (pods.every((pod) => pod.gpuMatch === 'node') && hosts.length > 0) return { hosts: hostsRule(hosts, fleetHosts) };
  return { namespace: first.namespace, pod: first.workloadName === null ? first.name : `${first.workloadName}-*` };
}

/** A Job runs to completion: batch, unless its names say training. */
function podKind(controllerKind: string | null, names: string): WorkloadKind {
  const byName = suggestKind(names);
  const runsToCompletion = controllerKind === 'Job' || controllerKind === 'CronJob';
  return runsToCompletion && byName !== 'training' ? 'batch' : byName;
}

/** Hosts a rule names one by one, at most: more are written as their common start and `*` where that names no other host. */
const HOSTS_NAMED = 8;

/**
 * A hosts rule for `hosts` (sorted): the names themselves, or, for more than HOSTS_NAMED, their
 * common start and `*` (`gpu-node-*`) where no other host of the fleet starts so: a rule of a
 * thousand names is hard to review, and the glob claims the same hosts today.
 */
function hostsRule(hosts: readonly string[], fleetHosts: ReadonlySet<string>): string[] {
  if (hosts.length <= HOSTS_NAMED) return [...hosts];
  let prefix = hosts[0]!;
  for (const host of hosts) while (!host.startsWith(prefix)) prefix = prefix.slice(0, -1);
  if (prefix === '' || /[*?]/.test(prefix)) return [...hosts];
  const named = new Set(hosts);
  for (const host of fleetHosts) if (host.startsWith(prefix) && !named.has(host)) return [...hosts];
  return [`${prefix}*`];
}

export function proposeWorkloads(report: Report): WorkloadProposal[] {
  const taken = new Set<string>();
  const fleetHosts = new Set(report.gpus.map((gpu) => gpu.host));
  const groups = processGroups(report.gpus);
  const groupsOnHost = groupsPerHost(groups);
  const proposals: WorkloadProposal[] = groups.map((group) => {
    const hosts = dedicatedHosts(group, groupsOnHost);
    return {
      name: workloadName(group.key, taken),
      kind: suggestKind(group.example),
      match: hosts === undefined ? { process: group.pattern } : { process: group.pattern, hosts: hostsRule(hosts, fleetHosts) },
      hosts: sortedUnique(group.gpus.map((gpu) => gpu.host)),
      gpus: group.gpus.map((gpu) => gpu.id),
      example: group.example,
    };
  });
  const covered = new Set(groups.flatMap((group) => group.gpus.map((gpu) => gpu.id)));
  const hostOf = new Map(report.gpus.map((gpu) => [gpu.id, gpu.host]));
  for (const [key, pods] of podGroups(report.kubernetes?.pods ?? [], covered)) {
    const first = pods[0]!;
    const names = [first.workloadName ?? first.name, ...first.containers.map((container) => container.name)].join(' ');
    const gpus = pods.flatMap((entry) => entry.gpus);
    const hosts = sortedUnique(gpus.map((id) => hostOf.get(id)).filter((host) => host !== undefined));
    proposals.push({
      name: workloadName(first.workloadName ?? first.name, taken),
      kind: podKind(first.workloadKind, names),
      match: podMatch(pods, hosts, fleetHosts),
      hosts,
      gpus,
      example: key,
    });
  }
  return proposals;
}

/**
 * Limits the fleet meets today, rounded outwards to a multiple of 5: waste up to the next
 * multiple above the current figure, mean compute (what `check --min-utilization` judges, by
 * compute basis) down to the one below. Absent where the audit has no figure (snapshots have
 * no hours).
 */
export function proposeThresholds(report: Report): ProposedThresholds {
  const { wastePct, meanComputePct } = report.summary;
  return {
    ...(wastePct === null ? {} : { maxWastePct: Math.min(100, Math.floor(wastePct / 5) * 5 + 5) }),
    ...(meanComputePct === null ? {} : { minUtilization: Math.max(0, Math.floor(meanComputePct / 5) * 5) }),
  };
}

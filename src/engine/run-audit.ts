/**
 * The audit's stage wiring: inputs -> sources -> observations -> analysis -> plan -> report.
 * Library entry point; the CLI only wires options to it and renders the result. Each stage's
 * room computes its figures; this file only hands one stage's output to the next.
 */
import type { Readable } from 'node:stream';
import {
  attributeKubernetes,
  containerCpuFromTotals,
  createFleetAnalyzer,
  gpuEntriesFromAggregates,
  gpuFindings,
  hostCpuFromTotals,
  accountMigBoards,
  identifyModels,
  joinServing,
  ServingCollector,
  servingPools,
  nodesByHost,
  pipelineInputs,
  podsOnDevices,
  priceGpus,
  servingFindings,
  profileWorkloads,
  summarizeFleet,
  type FleetProfile,
  type WorkloadDefinition,
} from '../analysis/index.js';
import { loadCatalog } from '../catalog/index.js';
import { HOURS_PER_MONTH, REPORT_SCHEMA_VERSION, type InstanceCatalog, type KubernetesSourceRead, type PricingModel, type Report, type SourceSummary } from '../model/index.js';
import { DEFAULT_RECOMMEND_SETTINGS, planFleet, type PlanBasis } from '../recommend/index.js';
import {
  mergeInventories,
  readFiles,
  readKubernetesInputs,
  inputLimitsOf,
  readPrometheus,
  resolveInputs,
  STDIN_REF,
  type InputLimits,
  type KubectlOptions,
  type ParsePerformance,
  type PrometheusSourceOptions,
  type TransferStats,
} from '../sources/index.js';
import { InputError, toolInfo } from '../support/index.js';

export type Provider = 'aws' | 'azure' | 'gcp';

/** How the audit reads: set by the CLI (GPU_AUDIT_WORKERS, heap tuning); tests force a way. */
export interface AuditPerformance extends ParsePerformance {
  /** Called once, before the input with which the inputs reach LARGE_READ_BYTES in all (sources/read-files.ts). */
  onLargeInput?: (ref: string) => void;
  /** Called once the file analysis has let go of its per-device state, before the report is built. */
  onAnalysisDone?: () => void;
  /** Called once the planner has let go of what it searched, before the report is rendered. */
  onPlanDone?: () => void;
}

export interface AuditOptions {
  /** Files, directories, globs or `-`, as the user named them. */
  inputs: string[];
  /** How a file of `inputs` is named in the report where not as given (the bundled demo: `demo/<file>`). */
  inputRefs?: Readonly<Record<string, string>>;
  /** Host for inputs that name none (overrides the file name). */
  host?: string;
  /** IANA zone for timestamps printed without one. */
  timeZone: string;
  idleThresholdPct: number;
  /** Audit the readable inputs when some cannot be read; the failures are returned. */
  keepGoing: boolean;
  /** --input-limit: caps on labels, series, files (sources/input-limits.ts); defaults where absent. */
  inputLimits?: Partial<InputLimits>;
  provider?: Provider;
  region?: string;
  pricing: PricingModel;
  /** Instance type of every audited host, when the user knows it. */
  instanceType?: string;
  stdin?: Readable;
  /** Clock for `generatedAt` and for dropping samples stamped in the future; tests pin it. */
  now?: () => Date;
  catalog?: InstanceCatalog;
  /** Called as each input starts, for progress display. */
  onInput?: (ref: string, index: number, total: number) => void;
  /** `--k8s`: files of Kubernetes Pod and Node objects (kubectl get pods,nodes -A -o json). */
  kubernetesFiles?: string[];
  /** `--kubectl`: ask the cluster for its pods and nodes. */
  kubectl?: KubectlOptions;
  /** Audit a live Prometheus server instead of `inputs` (src/sources/live/prometheus). */
  prometheus?: Omit<PrometheusSourceOptions, 'idleThresholdPct' | 'nowMs'>;
  /** Workloads of gpu-audit.yaml: when given, every device and process is attributed to one (or to `unassigned`). */
  workloads?: readonly WorkloadDefinition[];
  /** gpu-audit.yaml `plan.basis`: plan on the observed demand (default) or the declared one. */
  planBasis?: PlanBasis;
  /** Headroom on a workload's VRAM need, percent (default 15). */
  vramHeadroomPct?: number;
  /** gpu-audit.yaml `hosts:`: instance type by host glob, first match wins; `instanceType` overrides it. */
  hostInstanceTypes?: readonly { host: string; instanceType: string }[];
  /** gpu-audit.yaml `pricing.discounts`: a negotiated discount off on-demand replaces the catalog's commitment price. */
  commitmentDiscountPct?: Partial<Record<'reserved-1y' | 'reserved-3y', number>>;
  /** gpu-audit.yaml `pricing.spotInterruptionsPerMonthPct`. */
  spotInterruptionsPerMonthPct?: number | undefined;
  performance?: AuditPerformance;
}

export interface AuditResult {
  report: Report;
  /** Inputs that could not be read (only with keepGoing; otherwise the first one is thrown). */
  failures: InputError[];
  /** With --prometheus: requests made and bytes received. */
  transfer?: TransferStats;
}

/** What either kind of source hands to the rest of the pipeline. */
interface ReadProfile {
  profile: Pick<FleetProfile, 'gpus' | 'window' | 'deviceFacts'> & Partial<Pick<FleetProfile, 'podAssignments' | 'cpu' | 'processCpu' | 'serving' | 'servingTimeline'>>;
  sources: SourceSummary[];
  failures: InputError[];
  transfer?: TransferStats;
  /** From the live source's kube-state-metrics series, where there were any. */
  kubernetes?: KubernetesSourceRead;
}

export async function runAudit(options: AuditOptions): Promise<AuditResult> {
  if (options.inputs.includes(STDIN_REF) && (options.kubernetesFiles?.includes(STDIN_REF) ?? false)) {
    throw new InputError('standard input (-) can be read once: give it to the sources or to --k8s, not both');
  }
  // kubectl runs beside the telemetry: it mostly waits on the API server. Kubernetes files are
  // parsed once the telemetry is analysed, so that their inventory does not sit on top of the
  // analysis state at its largest. A failed audit stops both.
  const stop = new AbortController();
  const kubectl = options.kubectl === undefined ? undefined : readKubernetesInputs({ kubectl: options.kubectl, signal: stop.signal });
  kubectl?.catch(() => undefined);
  const kubernetes = async (): Promise<KubernetesSourceRead[]> => [
    ...(await readKubernetesInputs({ files: options.kubernetesFiles, stdin: options.stdin, signal: stop.signal })),
    ...((await kubectl) ?? []),
  ];
  try {
    const read = options.prometheus === undefined ? await readFileInputs(options) : await readLive(options, options.prometheus);
    const given = await kubernetes();
    // kube-state-metrics in the same Prometheus stands in for --k8s/--kubectl, never beside them.
    return await finishAudit(read, options, given.length === 0 && read.kubernetes !== undefined ? [read.kubernetes] : given);
  } catch (error) {
    stop.abort();
    throw error;
  }
}

const nowMsOf = (options: AuditOptions): number => (options.now?.() ?? new Date()).getTime();

async function readFileInputs(options: AuditOptions): Promise<ReadProfile> {
  const inputs = await resolveInputs(options.inputs, options.inputRefs, inputLimitsOf(options.inputLimits).filesPerRun);
  if (inputs.length === 0) throw new InputError('no input given: name files, directories, globs or - for stdin');
  // Samples stamped after the audit's now (a clock set ahead) are dropped with a warning.
  const analyzer = createFleetAnalyzer({ idleThresholdPct: options.idleThresholdPct, timeZone: options.timeZone, nowMs: nowMsOf(options) });
  const { sources, failures } = await readFiles(inputs, analyzer, { ...options, onLargeInput: options.performance?.onLargeInput });
  if (sources.every((source) => source.records === 0)) {
    throw new InputError('no GPU data found in the inputs', { file: inputs.length === 1 ? inputs[0]!.ref : undefined });
  }
  const profile = analyzer.finish();
  options.performance?.onAnalysisDone?.();
  for (const warning of profile.warnings) sources.find((source) => source.ref === warning.source)?.warnings.push(warning.message);
  return { profile, sources, failures };
}

/** Prometheus: aggregates pushed down to the server, made into the same GpuEntries (analysis/aggregates.ts). */
async function readLive(options: AuditOptions, prometheus: NonNullable<AuditOptions['prometheus']>): Promise<ReadProfile> {
  const servers = new ServingCollector();
  let servingReadings = 0;
  const read = await readPrometheus({
    ...prometheus, idleThresholdPct: options.idleThresholdPct, nowMs: nowMsOf(options),
    ...(options.inputLimits === undefined ? {} : { inputLimits: options.inputLimits }),
    onServing: (reading) => {
      servers.add(reading);
      servingReadings += 1;
    },
  });
  if (read.devices.length === 0) throw new InputError('no GPU data found in the window', { file: read.summary.ref });
  const profile = gpuEntriesFromAggregates(read.devices, { timeZone: options.timeZone, window: read.window });
  const cpu = { hosts: read.cpu.hosts.flatMap(hostCpuFromTotals), containers: read.cpu.containers.map(containerCpuFromTotals) };
  const served = servingReadings === 0 ? undefined : servers.finish();
  if (served !== undefined) read.summary.warnings.push(...served.warnings);
  return {
    profile: {
      ...profile, deviceFacts: new Map(), ...(cpu.hosts.length + cpu.containers.length === 0 ? {} : { cpu }),
      ...(served === undefined ? {} : { serving: served.entries, servingTimeline: served.timeline }),
    },
    sources: [read.summary],
    failures: [],
    transfer: read.stats,
    ...(read.kubernetes === undefined ? {} : { kubernetes: read.kubernetes }),
  };
}

async function finishAudit({ profile, sources, failures, transfer }: ReadProfile, options: AuditOptions, kubernetesReads: KubernetesSourceRead[]): Promise<AuditResult> {
  const inventory = mergeInventories(kubernetesReads);
  const nodeOfHost = nodesByHost(inventory.nodes, new Set(profile.gpus.map((gpu) => gpu.host)));
  const catalog = options.catalog ?? (await loadCatalog());
  const gpus = accountMigBoards(priceGpus(identifyModels(profile.gpus, profile.deviceFacts), { ...options, catalog, nodeOfHost }));
  const podAssignments = profile.podAssignments ?? new Map();
  const kubernetes = kubernetesReads.length === 0 ? undefined : attributeKubernetes({ inventory, gpus, podAssignments, idleThresholdPct: options.idleThresholdPct });
  const profiled = (options.workloads ?? []).length === 0
    ? []
    : profileWorkloads(gpus, options.workloads!, {
      vramHeadroomPct: options.vramHeadroomPct,
      podsByDevice: podsOnDevices(podAssignments, inventory.pods),
      pipeline: pipelineInputs({ cpu: profile.cpu, processCpu: profile.processCpu, inventory, nodeOfHost, gpus, idleThresholdPct: options.idleThresholdPct }),
    });
  const gpuHost = new Map(gpus.map((gpu) => [gpu.id, gpu.host]));
  const serving = profile.serving === undefined ? undefined : joinServing(profile.serving, profiled, options.workloads ?? [], gpuHost);
  const pools = serving === undefined ? new Map() : servingPools(serving, profile.servingTimeline, profiled, options.workloads ?? []);
  const workloads = profiled.map((workload) => (pools.has(workload.name) ? { ...workload, serving: pools.get(workload.name)! } : workload));
  const reserved1yDiscountPct = options.commitmentDiscountPct?.['reserved-1y'];
  const advice = planFleet({ gpus, workloads, definitions: options.workloads ?? [], ...(kubernetes === undefined ? {} : { kubernetes: kubernetes.section }), ...(serving === undefined ? {} : { serving }) }, {
    ...DEFAULT_RECOMMEND_SETTINGS,
    basis: options.planBasis ?? 'observed',
    catalog,
    pricing: options.pricing,
    providers: options.provider === undefined ? undefined : [options.provider],
    region: options.region,
    idleThresholdPct: options.idleThresholdPct,
    ...(options.vramHeadroomPct === undefined ? {} : { vramHeadroom: options.vramHeadroomPct / 100 }),
    ...(options.spotInterruptionsPerMonthPct === undefined ? {} : { spotInterruptionsPerHour: options.spotInterruptionsPerMonthPct / 100 / HOURS_PER_MONTH }),
    ...(reserved1yDiscountPct === undefined ? {} : { commitment: { fraction: reserved1yDiscountPct / 100, source: 'gpu-audit.yaml pricing.discounts.reserved1yPct' } }),
  });
  options.performance?.onPlanDone?.();
  const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    tool: toolInfo(),
    window: { start: iso(profile.window.startMs), end: iso(profile.window.endMs), seconds: profile.window.seconds, timezone: options.timeZone },
    settings: { idleThresholdPct: options.idleThresholdPct, pricing: options.pricing, provider: options.provider ?? null, region: options.region ?? null },
    sources: [...sources, ...kubernetesReads.map((read, index) => ({
      ref: read.ref,
      format: 'kubernetes',
      records: read.records,
      // The attribution's notes go with the first Kubernetes input.
      warnings: index === 0 ? [...read.warnings, ...(kubernetes?.notes ?? [])] : [...read.warnings],
    }))],
    catalog: { name: catalog.name, asOf: catalog.asOf, source: catalog.origin, ageDays: catalog.ageDays },
    gpus,
    workloads,
    findings: [
      ...gpuFindings(gpus, profile.window.seconds, { idleThresholdPct: options.idleThresholdPct }), ...advice.findings, ...(kubernetes?.findings ?? []),
      ...(serving === undefined ? [] : servingFindings(serving, options.workloads ?? [])),
    ],
    plan: advice.plan,
    recommendations: advice.recommendations,
    summary: summarizeFleet(gpus, advice.plan.monthlySavingsUsd),
    ...(kubernetes === undefined ? {} : { kubernetes: kubernetes.section }),
    ...(serving === undefined ? {} : { serving }),
  };
  return transfer === undefined ? { report, failures } : { report, failures, transfer };
}

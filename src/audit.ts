/**
 * The audit pipeline: inputs -> sources -> observations -> analysis -> report.
 * Library entry point; the CLI only wires options to it and renders the result.
 */
import type { Readable } from 'node:stream';
import { createFleetAnalyzer, gpuFindings, summarizeFleet, applyGpuCosts, applyModelKeys } from './analysis/index.js';
import { gpuEntriesFromAggregates, type DeviceAggregates } from './analysis/aggregates.js';
import type { FleetProfile } from './analysis/index.js';
import { attributeKubernetes, nodesByHost } from './analysis/kubernetes.js';
import { containerCpuFromTotals, hostCpuFromTotals, pipelineInputs } from './analysis/pipeline/index.js';
import type { PodAssignmentRecord } from './analysis/pod-assignments.js';
import { matchesGlob, profileWorkloads, type PodOnDevice, type WorkloadDefinition } from './analysis/workloads/index.js';
import { UNKNOWN_GPU_KEY, inferMigProfile, loadCatalog, modelKeyOf, pricePerDeviceHour, resolveInstanceType } from './catalog/index.js';
import type { InstanceCatalog, InstanceType, PricingModel } from './model/catalog.js';
import { InputError } from './model/errors.js';
import type { ObservationSink } from './model/observations.js';
import type { GpuEntry, InstanceTypeBasis, Report, SourceSummary } from './model/report.js';
import { REPORT_SCHEMA_VERSION } from './model/report.js';
import { DEFAULT_RECOMMEND_SETTINGS, recommendForFleet } from './recommend/index.js';
import { HEAD_CHARS, hostForInput, openInput, requireParser, rereadOf, resolveInputs, STDIN_REF, type InputRef, type OpenedInput } from './sources/index.js';
import { readPrometheus, type PrometheusSourceOptions, type TransferStats } from './sources/prometheus/index.js';
import { mergeInventories, readKubernetesInputs, type KubectlOptions, type KubernetesSourceRead, type NodeInfo } from './sources/kubernetes/index.js';
import { withWarnings } from './sources/sink-with-warnings.js';
import { blockWorkerCount, PARSE_WORKER_MIN_BYTES, parseBlockBytesOf, parsesInWorker, parseWorkerModeOf, readTail, type ParseWorkerMode } from './sources/worker/policy.js';
import { TOOL_NAME, TOOL_VERSION } from './version.js';

export type Provider = 'aws' | 'azure' | 'gcp';

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
  provider?: Provider;
  region?: string;
  pricing: PricingModel;
  /** Instance type of every audited host, when the user knows it. */
  instanceType?: string;
  stdin?: Readable;
  /** Clock for `generatedAt`; tests pin it. */
  now?: () => Date;
  catalog?: InstanceCatalog;
  /** Called as each input starts, for progress display. */
  onInput?: (ref: string, index: number, total: number) => void;
  /** `--k8s`: files of Kubernetes Pod and Node objects (kubectl get pods,nodes -A -o json). */
  kubernetesFiles?: string[];
  /** `--kubectl`: ask the cluster for its pods and nodes. */
  kubectl?: KubectlOptions;
  /** Audit a live Prometheus server instead of `inputs` (src/sources/prometheus). */
  prometheus?: Omit<PrometheusSourceOptions, 'idleThresholdPct' | 'nowMs'>;
  /** Workloads of gpu-audit.yaml: when given, every device and process is attributed to one (or to `unassigned`). */
  workloads?: readonly WorkloadDefinition[];
  /** Headroom on a workload's VRAM need, percent (default 15). */
  vramHeadroomPct?: number;
  /** gpu-audit.yaml `hosts:`: instance type by host glob, first match wins; `instanceType` overrides it. */
  hostInstanceTypes?: readonly { host: string; instanceType: string }[];
  /** gpu-audit.yaml `pricing.discounts`: a negotiated discount off on-demand replaces the catalog's commitment price. */
  commitmentDiscountPct?: Partial<Record<'reserved-1y' | 'reserved-3y', number>>;
  /** Parse large files in a worker thread, overlapping parsing and analysis (src/sources/worker); default: GPU_AUDIT_WORKERS, else `auto`. */
  parseWorkers?: ParseWorkerMode;
  /** Block size, in bytes, where workers read one file in blocks (worker/parse-in-blocks.ts); default: GPU_AUDIT_BLOCK_BYTES, else PARSE_BLOCK_BYTES. */
  parseBlockBytes?: number;
  /**
   * Called once, before the input with which the inputs reach LARGE_READ_BYTES in all is read,
   * so that a program can prepare for a long read (the CLI tunes V8's garbage collection for
   * memory then). A thousand small host snapshots are as long a read as one large log.
   */
  onLargeInput?: (ref: string) => void;
  /**
   * Called once the analysis of the input files is done and has let go of its per-device state,
   * before the report is built (the CLI collects garbage there after a long read). Not called
   * for --prometheus, whose aggregates come whole from the server.
   */
  onAnalysisDone?: () => void;
}

export interface AuditResult {
  report: Report;
  /** Inputs that could not be read (only with keepGoing; otherwise the first one is thrown). */
  failures: InputError[];
  /** With --prometheus: requests made and bytes received. */
  transfer?: TransferStats;
}

/** Warning messages kept per source; the rest are counted so a broken log cannot flood the report. */
const MAX_WARNINGS_PER_SOURCE = 50;

export async function runAudit(options: AuditOptions): Promise<AuditResult> {
  if (options.inputs.includes(STDIN_REF) && (options.kubernetesFiles?.includes(STDIN_REF) ?? false)) {
    throw new InputError('standard input (-) can be read once: give it to the sources or to --k8s, not both');
  }
  // kubectl runs beside the telemetry: it mostly waits on the API server. Kubernetes files are
  // parsed once the telemetry is analysed: parsed beside it, their inventory and its garbage sat
  // on top of the analysis state at its largest (the 1 GB DCGM log with the 191 MB list of its
  // cluster peaked at 312-321 MiB, 274-291 so), for 1.1 s saved on two cores busy with the telemetry.
  // finishAudit awaits both (so their errors come after the telemetry's); a failed audit stops them.
  const stop = new AbortController();
  const kubectl = options.kubectl === undefined ? undefined : readKubernetesInputs({ kubectl: options.kubectl, signal: stop.signal });
  kubectl?.catch(() => undefined);
  const kubernetes = async (): Promise<KubernetesSourceRead[]> => [
    ...(await readKubernetesInputs({ files: options.kubernetesFiles, stdin: options.stdin, signal: stop.signal })),
    ...((await kubectl) ?? []),
  ];
  try {
    if (options.prometheus !== undefined) return await finishAudit(await readPrometheusProfile(options, options.prometheus), [], options, kubernetes);
    return await readFilesAndFinish(options, kubernetes);
  } catch (error) {
    stop.abort();
    throw error;
  }
}

async function readFilesAndFinish(options: AuditOptions, kubernetes: () => Promise<KubernetesSourceRead[]>): Promise<AuditResult> {
  const inputs = await resolveInputs(options.inputs, options.inputRefs);
  if (inputs.length === 0) throw new InputError('no input given: name files, directories, globs or - for stdin');
  // Samples stamped after the audit's now (a clock set ahead) are dropped with a warning.
  const nowMs = (options.now?.() ?? new Date()).getTime();
  const analyzer = createFleetAnalyzer({ idleThresholdPct: options.idleThresholdPct, timeZone: options.timeZone, nowMs });
  const sources: SourceSummary[] = [];
  const failures: InputError[] = [];

  // Each input is opened (its head read) while the one before is parsed: a directory of many
  // small files otherwise waits on the file system for every one of them in turn.
  let opening: Promise<OpenedInput> | undefined = openAhead(inputs[0]!, options);
  let bytesOpened = 0;
  try {
    for (const [index, input] of inputs.entries()) {
      options.onInput?.(input.ref, index, inputs.length);
      const thisOne: Promise<OpenedInput> = opening!;
      opening = index + 1 < inputs.length ? openAhead(inputs[index + 1]!, options) : undefined;
      try {
        const opened = await thisOne;
        const before = bytesOpened;
        bytesOpened += inputBytes(opened);
        if (before < LARGE_READ_BYTES && bytesOpened >= LARGE_READ_BYTES) options.onLargeInput?.(input.ref);
        const summary = await readInput(input, options, analyzer, opened);
        if (summary !== undefined) sources.push(summary);
      } catch (error) {
        if (!(error instanceof InputError) || !options.keepGoing) throw error;
        failures.push(error);
        sources.push({ ref: input.ref, format: 'unreadable', records: 0, warnings: [error.describe()] });
      }
    }
  } finally {
    // Stopped early: the input opened ahead is not read.
    opening?.then((opened) => opened.close(), () => undefined);
  }
  if (sources.every((source) => source.records === 0)) {
    throw new InputError('no GPU data found in the inputs', { file: inputs.length === 1 ? inputs[0]!.ref : undefined });
  }

  const profile = analyzer.finish();
  options.onAnalysisDone?.();
  for (const warning of profile.warnings) {
    sources.find((source) => source.ref === warning.source)?.warnings.push(warning.message);
  }
  return finishAudit({ profile, sources }, failures, options, kubernetes);
}

/** What either kind of source hands to the rest of the pipeline. */
interface ReadProfile {
  profile: Pick<FleetProfile, 'gpus' | 'window' | 'deviceFacts'> & Partial<Pick<FleetProfile, 'podAssignments' | 'cpu' | 'processCpu'>>;
  sources: SourceSummary[];
  transfer?: TransferStats;
}

/**
 * Prometheus: aggregates pushed down to the server, made into the same GpuEntries
 * (analysis/aggregates.ts); the collected devices' type is checked against the analysis' here.
 */
async function readPrometheusProfile(options: AuditOptions, prometheus: NonNullable<AuditOptions['prometheus']>): Promise<ReadProfile> {
  const nowMs = (options.now?.() ?? new Date()).getTime();
  const read = await readPrometheus({ ...prometheus, idleThresholdPct: options.idleThresholdPct, nowMs });
  const devices: readonly DeviceAggregates[] = read.devices;
  if (devices.length === 0) throw new InputError('no GPU data found in the window', { file: read.summary.ref });
  const profile = gpuEntriesFromAggregates(devices, { timeZone: options.timeZone, window: read.window });
  const cpu = { hosts: read.cpu.hosts.flatMap(hostCpuFromTotals), containers: read.cpu.containers.map(containerCpuFromTotals) };
  return {
    profile: { ...profile, deviceFacts: new Map(), ...(cpu.hosts.length + cpu.containers.length === 0 ? {} : { cpu }) },
    sources: [read.summary],
    transfer: read.stats,
  };
}

async function finishAudit(
  { profile, sources, transfer }: ReadProfile,
  failures: InputError[],
  options: AuditOptions,
  kubernetesRead: () => Promise<KubernetesSourceRead[]>,
): Promise<AuditResult> {
  const kubernetesReads = await kubernetesRead();
  const inventory = mergeInventories(kubernetesReads);
  const nodeOfHost = nodesByHost(inventory.nodes, new Set(profile.gpus.map((gpu) => gpu.host)));
  const catalog = options.catalog ?? (await loadCatalog());
  const withModels = applyModelKeys(profile.gpus, (model, pciDeviceId) => modelKeyOf(model, pciDeviceId), profile.deviceFacts);
  const withProfiles = withModels.map((gpu) =>
    gpu.parentId === null || gpu.migProfile !== null
      ? gpu
      : {
          ...gpu,
          migProfile:
            inferMigProfile(gpu.modelKey, {
              memoryTotalMiB: gpu.memoryTotalMiB,
              multiprocessorCount: profile.deviceFacts.get(gpu.id)?.multiprocessorCount,
            }) ?? null,
        },
  );
  const gpus = priceGpus(withProfiles, catalog, options, nodeOfHost);
  const kubernetes = kubernetesReads.length === 0 ? undefined : attributeKubernetes({
    inventory,
    gpus,
    podAssignments: profile.podAssignments ?? new Map(),
    idleThresholdPct: options.idleThresholdPct,
    modelKeyOf: (product) => modelKeyOf(product),
  });
  const workloads = options.workloads === undefined || options.workloads.length === 0
    ? []
    : profileWorkloads(gpus, options.workloads, {
      vramHeadroomPct: options.vramHeadroomPct,
      podsByDevice: podsOnDevices(profile.podAssignments ?? new Map(), inventory.pods),
      pipeline: pipelineInputs({
        ...(profile.cpu === undefined ? {} : { cpu: profile.cpu }),
        ...(profile.processCpu === undefined ? {} : { processCpu: profile.processCpu }),
        inventory, nodeOfHost, gpus, idleThresholdPct: options.idleThresholdPct,
      }),
    });
  const reserved1yDiscountPct = options.commitmentDiscountPct?.['reserved-1y'];
  const advice = recommendForFleet({ gpus, workloads, definitions: options.workloads ?? [] }, {
    ...DEFAULT_RECOMMEND_SETTINGS,
    catalog,
    pricing: options.pricing,
    providers: options.provider === undefined ? undefined : [options.provider],
    region: options.region,
    idleThresholdPct: options.idleThresholdPct,
    ...(options.vramHeadroomPct === undefined ? {} : { vramHeadroom: options.vramHeadroomPct / 100 }),
    ...(reserved1yDiscountPct === undefined ? {} : { commitment: { fraction: reserved1yDiscountPct / 100, source: 'gpu-audit.yaml pricing.discounts.reserved1yPct' } }),
  });
  const findings = [
    ...gpuFindings(gpus, profile.window.seconds, { idleThresholdPct: options.idleThresholdPct }),
    ...advice.findings,
    ...(kubernetes?.findings ?? []),
  ];
  const summary = summarizeFleet(gpus, advice.potentialMonthlySavingsUsd);

  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    window: {
      start: profile.window.startMs === null ? null : new Date(profile.window.startMs).toISOString(),
      end: profile.window.endMs === null ? null : new Date(profile.window.endMs).toISOString(),
      seconds: profile.window.seconds,
      timezone: options.timeZone,
    },
    settings: {
      idleThresholdPct: options.idleThresholdPct,
      pricing: options.pricing,
      provider: options.provider ?? null,
      region: options.region ?? null,
    },
    sources: [...sources, ...kubernetesSources(kubernetesReads, kubernetes?.notes ?? [])],
    catalog: { name: catalog.name, asOf: catalog.asOf, source: catalog.origin, ageDays: catalog.ageDays },
    gpus,
    workloads,
    findings,
    recommendations: advice.recommendations,
    summary,
    ...(kubernetes === undefined ? {} : { kubernetes: kubernetes.section }),
  };
  return transfer === undefined ? { report, failures } : { report, failures, transfer };
}

/** Bytes of input from which an audit is a long read (see AuditOptions.onLargeInput): where a parse worker starts to pay. */
export const LARGE_READ_BYTES = PARSE_WORKER_MIN_BYTES;

/** An input's size; one whose size is unknown (stdin) counts as large once it outgrows its head. */
function inputBytes(opened: OpenedInput): number {
  return opened.bytes ?? (opened.head.length < HEAD_CHARS ? opened.head.length : LARGE_READ_BYTES);
}

/** `openInput`, its failure held until the input's turn (a failure nobody awaits is not an unhandled rejection). */
function openAhead(input: InputRef, options: AuditOptions): Promise<OpenedInput> {
  const opening = openInput(input, options.stdin);
  opening.catch(() => undefined);
  return opening;
}

async function readInput(
  input: InputRef,
  options: AuditOptions,
  sink: ObservationSink & { beginSource(ref: string): void },
  opened: OpenedInput,
): Promise<SourceSummary | undefined> {
  try {
    let parser;
    try {
      parser = requireParser(opened.head, input.ref);
    } catch (error) {
      // A file found by walking a directory may be anything (a README, a help text): skip it, say so.
      if (input.discovered && error instanceof InputError) {
        return { ref: input.ref, format: 'skipped', records: 0, warnings: [`skipped: ${error.message}`] };
      }
      throw error;
    }
    opened.setTextPieceBytes(parser.textPieceBytes);
    const warnings: string[] = [];
    let warningCount = 0;
    const sourceSink = withWarnings(sink, (warning) => {
      warningCount += 1;
      if (warnings.length < MAX_WARNINGS_PER_SOURCE) warnings.push(`${warning.location}: ${warning.message}`);
    });
    sink.beginSource(input.ref);
    const context = { ref: input.ref, host: hostForInput(input, options.host), timeZone: options.timeZone };
    const mode = options.parseWorkers ?? parseWorkerModeOf(process.env);
    const bytes = opened.bytes;
    const inWorker = parsesInWorker(bytes, mode);
    let result;
    // A file that sends everything at its end (one scrape) is read here: a worker would overlap nothing.
    const allAtEnd = mode === 'auto' && inWorker && !opened.compressed && input.path !== undefined && bytes !== undefined
      && parser.sendsAllAtEnd?.(opened.head, await readTail(input.path, bytes)) === true;
    const worker = inWorker && !allAtEnd ? await import('./sources/worker/parse-in-worker.js') : undefined;
    if (worker?.parseWorkerInstalled() === true) {
      // The worker reads the file itself: this thread's stream was only for the head.
      opened.close();
      if (parser.blocks !== undefined && !opened.compressed && input.path !== undefined && bytes !== undefined) {
        const { parseInBlocks } = await import('./sources/worker/parse-in-blocks.js');
        const request = { input, context, path: input.path, fileBytes: bytes, blockBytes: options.parseBlockBytes ?? parseBlockBytesOf(process.env), workers: blockWorkerCount() };
        result = await parseInBlocks(request, parser, opened.head, sourceSink);
      } else {
        result = await worker.parseInWorker({ input, format: parser.format, context }, sourceSink);
      }
    } else {
      result = await parser.parse(opened.chunks, { ...context, reread: rereadOf(input, opened, parser.textPieceBytes) }, sourceSink);
    }
    if (warningCount > warnings.length) warnings.push(`… and ${warningCount - warnings.length} more warnings`);
    return { ref: input.ref, format: parser.format, records: result.records, warnings };
  } finally {
    opened.close();
  }
}

/** The Kubernetes inputs as `sources[]` entries; the attribution's notes go with the first. */
function kubernetesSources(reads: readonly KubernetesSourceRead[], notes: readonly string[]): SourceSummary[] {
  return reads.map((read, index) => ({
    ref: read.ref,
    format: 'kubernetes',
    records: read.records,
    warnings: index === 0 ? [...read.warnings, ...notes] : [...read.warnings],
  }));
}

/**
 * Maps each host to an instance type (flag, else its Kubernetes node's instance-type label,
 * else inferred from GPU model x count) and prices its GPUs.
 */
function priceGpus(gpus: GpuEntry[], catalog: InstanceCatalog, options: AuditOptions, nodeOfHost: ReadonlyMap<string, NodeInfo>): GpuEntry[] {
  const physicalByHost = new Map<string, GpuEntry[]>();
  for (const gpu of gpus) {
    if (gpu.parentId !== null) continue;
    const list = physicalByHost.get(gpu.host) ?? [];
    list.push(gpu);
    physicalByHost.set(gpu.host, list);
  }
  const perHost = new Map<string, { instanceType: string; basis: InstanceTypeBasis; hourlyUsdPerGpu: number | null }>();
  for (const [host, hostGpus] of physicalByHost) {
    const node = nodeOfHost.get(host);
    const telemetryModelKey = mostCommon(hostGpus.map((gpu) => gpu.modelKey));
    // GPU feature discovery's product label names the model where the telemetry does not.
    const modelKey = telemetryModelKey === UNKNOWN_GPU_KEY && node?.gpuProduct !== undefined ? modelKeyOf(node.gpuProduct) : telemetryModelKey;
    const configType = options.hostInstanceTypes?.find((entry) => matchesGlob(entry.host, host))?.instanceType;
    const resolved = resolveInstanceType(catalog, {
      explicitType: options.instanceType ?? configType,
      explicitBasis: options.instanceType === undefined && configType !== undefined ? 'config' : 'flag',
      nodeLabelType: node?.instanceType,
      modelKey,
      gpuCount: hostGpus.length,
      provider: options.provider,
      region: options.region,
    });
    if (resolved === undefined) continue;
    perHost.set(host, {
      instanceType: resolved.instance.name,
      basis: resolved.basis,
      hourlyUsdPerGpu: devicePrice(resolved.instance, options),
    });
  }
  return applyGpuCosts(gpus, (gpu) => perHost.get(gpu.host));
}

/** Price per device-hour at the pricing model in force; a configured commitment discount applies to the on-demand price. */
function devicePrice(instance: InstanceType, options: AuditOptions): number | null {
  const discountPct = options.pricing === 'reserved-1y' || options.pricing === 'reserved-3y' ? options.commitmentDiscountPct?.[options.pricing] : undefined;
  if (discountPct === undefined) return pricePerDeviceHour(instance, options.pricing);
  const onDemand = pricePerDeviceHour(instance, 'on-demand');
  return onDemand === null ? null : onDemand * (1 - discountPct / 100);
}

/** The containers seen on each device, with their pod's labels where the Kubernetes inventory has the pod. */
function podsOnDevices(
  assignments: ReadonlyMap<string, readonly PodAssignmentRecord[]>,
  pods: readonly { namespace: string; name: string; labels: Readonly<Record<string, string>> }[],
): Map<string, PodOnDevice[]> {
  const labelsOf = new Map(pods.map((pod) => [`${pod.namespace}/${pod.name}`, pod.labels]));
  const result = new Map<string, PodOnDevice[]>();
  for (const [deviceId, records] of assignments) {
    result.set(deviceId, records.map((record) => ({
      namespace: record.namespace,
      pod: record.pod,
      ...(record.container === null ? {} : { container: record.container }),
      labels: { ...labelsOf.get(`${record.namespace}/${record.pod}`) },
    })));
  }
  return result;
}

function mostCommon(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best = 'unknown';
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

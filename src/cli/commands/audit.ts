import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { runAudit, type AuditOptions, type AuditResult, type Provider } from '../../engine/index.js';
import { InputError } from '../../support/index.js';
import { renderReportOutput, type OutputFormat } from '../../render/index.js';
import { runCheck } from '../../check/index.js';
import { DEFAULT_IDLE_THRESHOLD_PCT, NO_THRESHOLDS, type CheckReport, type PricingModel, type Report } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { reportClock } from '../io.js';
import { flagOverConfig, loadAuditConfig, settingsOf, type ConfigSettings } from '../../config/index.js';
import { addAnalysisOptions, addKubernetesOptions, addPrometheusOptions, addReportOutputOptions, addReportRenderOptions } from '../options.js';
import { redactKeyFromEnv, redactReport } from '../../render/index.js';
import { emitTargets } from '../output.js';
import { commandLineNotice } from '../notices.js';
import { outputTargets, type OutputTarget } from '../output-targets.js';
import { demoConfigFile, demoFleetFiles, demoFleetRefs } from '../paths.js';
import { startProgress } from '../progress.js';
import { collectAfterLongRead, tuneHeapsForLargeInput } from '../heap.js';
import { snapshotThisMachine } from '../live.js';
import { bundleTimeZone, parseBlockBytesOf, parseWorkerModeOf, type InputLimits } from '../../sources/index.js';
import { discoverConfigFile } from '../../config/index.js';
import { refuseOutputOntoReads, type ReadPath } from '../output-guard.js';

export interface AuditCommandOptions {
  format: OutputFormat;
  width?: number;
  /** -o, repeatable: one file per format (src/cli/output-targets.ts). */
  output?: string[];
  quiet?: boolean;
  color?: boolean;
  debug?: boolean;
  demo?: boolean;
  idleThreshold: number;
  timezone: string;
  host?: string;
  provider?: Provider;
  region?: string;
  pricing: PricingModel;
  instanceType?: string;
  keepGoing?: boolean;
  inputLimit?: Partial<InputLimits>;
  /** --prometheus and its window (src/cli/options.ts addPrometheusOptions); absent on commands without them. */
  prometheus?: string;
  since?: string;
  until?: string;
  step?: string;
  selector?: string;
  prometheusTimeout?: number;
  prometheusMaxAnswerMib?: number;
  prometheusQueryPoints?: number;
  prometheusQuerySamples?: number;
  prometheusConcurrency?: number;
  prometheusClusterLabel?: string;
  prometheusHeader?: string[];
  prometheusCaFile?: string;
  prometheusClientCert?: string;
  prometheusClientKey?: string;
  prometheusInsecureSkipVerify?: boolean;
  prometheusSigv4?: string;
  /** --k8s files, --kubectl and its --kube-context (addKubernetesOptions); absent on commands without them. */
  k8s?: string[];
  kubectl?: boolean;
  kubeContext?: string;
  /** --config FILE: gpu-audit.yaml to use instead of the discovered one. */
  config?: string;
  /** `init`: read no gpu-audit.yaml at all (the file it is about to replace may be stale or broken). */
  skipConfig?: boolean;
  /** --redact: names replaced by stable hashes in every format (src/render/redact.ts). */
  redact?: boolean;
}

/** Options the config may also set; the config applies where the user did not type the flag. */
export type ConfigurableOption = 'idleThreshold' | 'timezone' | 'pricing' | 'provider' | 'region';

/**
 * Without commander's answer (`getOptionValueSource`), a flag counts as typed when it differs
 * from its default: good enough for in-process callers that build the options themselves.
 */
function typedUnlessDefault(options: Omit<AuditCommandOptions, 'format'>): (option: ConfigurableOption) => boolean {
  return (option) => {
    if (option === 'idleThreshold') return options.idleThreshold !== DEFAULT_IDLE_THRESHOLD_PCT;
    if (option === 'pricing') return options.pricing !== 'on-demand';
    if (option === 'timezone') return true;
    return options[option] !== undefined;
  };
}

/** JUnit and SARIF of an audit (or a saved report): its findings, at their levels, under no limits. */
export function findingsCheck(report: Report, skippedInputs: readonly string[] = []): CheckReport {
  return { report, check: runCheck(report, { thresholds: NO_THRESHOLDS, skippedInputs: [...skippedInputs] }) };
}

/** Exit code of a finished audit: 2 when --keep-going skipped broken inputs (as `make -k` does). */
export type AuditOutcome = { exitCode: 0 | 2 };

export function auditCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const command = new Command('audit')
    .description('read GPU telemetry, profile every GPU and print the fleet report')
    .argument('[sources...]', 'files, directories (recursive), globs, or - for stdin; .gz is read transparently')
    .option('--demo', 'audit the bundled demo fleet (26 h of nvidia-smi logs of four nodes and the metrics of its vLLM servers)');
  addAnalysisOptions(command);
  addPrometheusOptions(command);
  addKubernetesOptions(command);
  addReportOutputOptions(command);
  addReportRenderOptions(command);
  command.addHelpText('after', `
Examples:
  $ gpu-audit audit --demo
  $ gpu-audit audit node-07.xml                       # nvidia-smi -q -x (one snapshot or a -l log)
  $ gpu-audit audit logs/ --timezone Europe/Berlin    # every file below logs/, local times read in Berlin time
  $ gpu-audit audit 'logs/*.csv.gz' --format json -o report.json
  $ gpu-audit audit logs/ -o report.json -o report.md -o report.html   # one run, a format per extension
  $ nvidia-smi -q -x | gpu-audit audit - --host gpu-node-3 --format markdown
  $ gpu-audit audit --prometheus http://prometheus:9090 --since 7d --selector '{namespace="ml"}'
  $ gpu-audit audit scrapes/ --k8s cluster.json        # cluster.json: kubectl get pods,nodes -A -o json
  $ gpu-audit audit scrapes/ --kubectl --kube-context prod

With no sources and no --demo, gpu-audit takes one nvidia-smi snapshot of this machine.
Input formats are detected by content: nvidia-smi -q -x XML (snapshots and -l logs),
--query-gpu and --query-compute-apps CSV, dmon and pmon text.`);

  command.action(async (sources: string[], options: AuditCommandOptions, self: Command) => {
    const timezoneGiven = self.getOptionValueSource('timezone') === 'cli';
    const targets = outputTargets(options, self.getOptionValueSource('format') === 'cli');
    const outcome = await runAuditCommand(sources, options, targets, io, timezoneGiven, (option) => self.getOptionValueSource(option) === 'cli');
    setExitCode(outcome.exitCode);
  });
  return command;
}

/**
 * The AuditOptions of `audit` and `check` alike, from the shared analysis options: --demo,
 * a live snapshot of this machine when no source is named, or the sources as given.
 */
export async function buildAuditOptions(
  sources: string[],
  options: Omit<AuditCommandOptions, 'format'>,
  io: CliIo,
  timezoneGiven = true,
  typed: (option: ConfigurableOption) => boolean = typedUnlessDefault(options),
): Promise<AuditOptions> {
  const auditOptions: AuditOptions = {
    inputs: sources,
    host: options.host,
    timeZone: options.timezone,
    idleThresholdPct: options.idleThreshold,
    keepGoing: options.keepGoing === true,
    ...(options.inputLimit === undefined ? {} : { inputLimits: options.inputLimit }),
    provider: options.provider,
    region: options.region,
    pricing: options.pricing,
    instanceType: options.instanceType,
    stdin: io.stdin as Readable,
  };
  auditOptions.performance = { parseWorkers: parseWorkerModeOf(io.env), parseBlockBytes: parseBlockBytesOf(io.env) };
  const clock = reportClock(io.env);
  if (clock !== undefined) auditOptions.now = clock;
  if (options.prometheus !== undefined) {
    if (sources.length > 0 || options.demo === true) throw new InputError('--prometheus takes no sources and no --demo: audit one or the other');
    auditOptions.inputs = [];
    auditOptions.prometheus = {
      url: options.prometheus,
      since: options.since ?? '7d',
      ...(options.until === undefined ? {} : { until: options.until }),
      ...(options.step === undefined ? {} : { step: options.step }),
      ...(options.selector === undefined ? {} : { selector: options.selector }),
      ...(options.prometheusTimeout === undefined ? {} : { timeoutMs: options.prometheusTimeout * 1000 }),
      ...(options.prometheusMaxAnswerMib === undefined ? {} : { maxAnswerBytes: options.prometheusMaxAnswerMib * 1024 * 1024 }),
      ...(options.prometheusConcurrency === undefined ? {} : { concurrency: options.prometheusConcurrency }),
      budgets: {
        ...(options.prometheusQueryPoints === undefined ? {} : { points: options.prometheusQueryPoints }),
        ...(options.prometheusQuerySamples === undefined ? {} : { samples: options.prometheusQuerySamples }),
      },
      ...(options.prometheusClusterLabel === undefined ? {} : { clusterLabel: options.prometheusClusterLabel }),
      ...(options.prometheusSigv4 === undefined ? {} : { sigv4Region: options.prometheusSigv4 }),
      connection: {
        ...(options.prometheusHeader === undefined ? {} : { headers: options.prometheusHeader }),
        ...(options.prometheusCaFile === undefined ? {} : { caFile: options.prometheusCaFile }),
        ...(options.prometheusClientCert === undefined ? {} : { clientCertFile: options.prometheusClientCert }),
        ...(options.prometheusClientKey === undefined ? {} : { clientKeyFile: options.prometheusClientKey }),
        ...(options.prometheusInsecureSkipVerify === true ? { insecureSkipVerify: true } : {}),
      },
      env: io.env,
    };
    if (options.prometheusInsecureSkipVerify === true && options.quiet !== true) {
      io.stderr('gpu-audit: warning: --prometheus-insecure-skip-verify: the server\'s certificate is not checked, so the answers may come from anyone on the way\n');
    }
  } else if (options.demo === true) {
    if (sources.length > 0) throw new InputError('--demo takes no sources');
    auditOptions.inputs = demoFleetFiles;
    auditOptions.inputRefs = demoFleetRefs;
    // The demo logs were written in UTC wall-clock time; an explicit --timezone still wins.
    if (!timezoneGiven) auditOptions.timeZone = 'UTC';
  } else if (sources.length === 0) {
    const snapshot = await snapshotThisMachine();
    auditOptions.inputs = ['-'];
    auditOptions.stdin = Readable.from([snapshot]);
    auditOptions.host = options.host ?? hostname();
  }
  // A `gpu-audit collect` bundle records the zone its nvidia-smi printed times in; --timezone and gpu-audit.yaml still win.
  if (!timezoneGiven && options.prometheus === undefined && options.demo !== true) {
    const zone = await bundleTimeZone(auditOptions.inputs);
    if (zone !== undefined) auditOptions.timeZone = zone;
  }
  const loaded = options.skipConfig === true
    ? undefined
    : await loadAuditConfig({ explicitFile: options.config, demoFile: options.demo === true ? demoConfigFile : undefined, cwd: process.cwd() });
  if (loaded !== undefined) applyConfig(auditOptions, settingsOf(loaded.config), (option) => (option === 'timezone' ? timezoneGiven : typed(option)));
  if (options.kubeContext !== undefined && options.kubectl !== true) throw new InputError('--kube-context needs --kubectl');
  if (options.k8s !== undefined) auditOptions.kubernetesFiles = options.k8s;
  if (options.kubectl === true) auditOptions.kubectl = options.kubeContext === undefined ? {} : { context: options.kubeContext };
  return auditOptions;
}

/** What an audit run reads, as named on the command line (or found: the config, the demo files), for the -o check. */
export async function auditReads(sources: string[], options: Omit<AuditCommandOptions, 'format'>): Promise<ReadPath[]> {
  const named = options.demo === true ? demoFleetFiles : sources;
  const config = options.skipConfig === true
    ? undefined
    : options.config ?? (options.demo === true ? demoConfigFile : await discoverConfigFile(process.cwd()));
  return [
    ...named.map((file) => ({ path: file, role: 'a source' })),
    ...(options.k8s ?? []).map((file) => ({ path: file, role: 'a --k8s file' })),
    ...[options.prometheusCaFile, options.prometheusClientCert, options.prometheusClientKey].filter((file) => file !== undefined).map((file) => ({ path: file, role: 'a --prometheus TLS file' })),
    ...(config === undefined ? [] : [{ path: config, role: options.config === undefined ? 'the config in use' : 'the --config file' }]),
  ];
}

/** gpu-audit.yaml's settings under the flags: a typed flag wins, else the config, else the default already in place. */
function applyConfig(auditOptions: AuditOptions, settings: ConfigSettings, typed: (option: ConfigurableOption) => boolean): void {
  auditOptions.idleThresholdPct = flagOverConfig(auditOptions.idleThresholdPct, typed('idleThreshold'), settings.idleThresholdPct);
  auditOptions.timeZone = flagOverConfig(auditOptions.timeZone, typed('timezone'), settings.timezone);
  auditOptions.pricing = flagOverConfig(auditOptions.pricing, typed('pricing'), settings.pricing);
  auditOptions.provider = flagOverConfig(auditOptions.provider, typed('provider'), settings.provider);
  auditOptions.region = flagOverConfig(auditOptions.region, typed('region'), settings.region);
  auditOptions.workloads = settings.workloads;
  auditOptions.hostInstanceTypes = settings.hostInstanceTypes;
  auditOptions.commitmentDiscountPct = settings.commitmentDiscountPct;
  auditOptions.spotInterruptionsPerMonthPct = settings.spotInterruptionsPerMonthPct;
  if (settings.planBasis !== undefined) auditOptions.planBasis = settings.planBasis;
  if (settings.vramHeadroomPct !== undefined) auditOptions.vramHeadroomPct = settings.vramHeadroomPct;
}

/** Runs the audit with a progress line on stderr (none with --quiet or off a terminal). */
export async function runAuditWithProgress(auditOptions: AuditOptions, io: CliIo, quiet: boolean): Promise<AuditResult> {
  const progress = startProgress(io, quiet);
  try {
    const prometheus = auditOptions.prometheus === undefined
      ? {}
      : { prometheus: { ...auditOptions.prometheus, onProgress: (done: number, planned: number) => progress.update(`querying Prometheus (${done}/${planned})`) } };
    return await runAudit({
      ...auditOptions,
      ...prometheus,
      onInput: (ref, index, total) => progress.update(`reading ${ref} (${index + 1}/${total})`),
      performance: {
        ...auditOptions.performance,
        onLargeInput: tuneHeapsForLargeInput,
        onAnalysisDone: collectAfterLongRead,
        onPlanDone: collectAfterLongRead,
      },
    });
  } finally {
    progress.stop();
  }
}

export async function runAuditCommand(
  sources: string[],
  options: AuditCommandOptions,
  targets: readonly OutputTarget[],
  io: CliIo,
  timezoneGiven = true,
  typed?: (option: ConfigurableOption) => boolean,
): Promise<AuditOutcome> {
  await refuseOutputOntoReads(targets.map((target) => target.file), await auditReads(sources, options));
  const auditOptions = await buildAuditOptions(sources, options, io, timezoneGiven, typed);
  const result = await runAuditWithProgress(auditOptions, io, options.quiet === true);

  // Redacted here, just before rendering, so every format (and -o) gets the same shareable report.
  const report = options.redact === true ? redactReport(result.report, { key: redactKeyFromEnv(io.env) }) : result.report;
  const skippedInputs = result.failures.map((failure) => failure.describe());
  await emitTargets(io, targets, options, (format, renderOptions) => renderReportOutput(report, format, renderOptions, () => findingsCheck(report, skippedInputs)));
  const notice = commandLineNotice(report, targets, options);
  if (notice !== undefined) io.stderr(notice);
  // An input skipped is why the run ends in 2: an error, printed under --quiet too.
  for (const failure of result.failures) io.stderr(`gpu-audit: skipped ${failure.describe()}\n`);
  if (options.debug === true && result.transfer !== undefined) {
    const { queries, retries, wireBytes, jsonBytes } = result.transfer;
    io.stderr(`gpu-audit: prometheus: ${queries} queries, ${retries} retries, ${wireBytes} bytes received (${jsonBytes} bytes of JSON)\n`);
  }
  return { exitCode: result.failures.length > 0 ? 2 : 0 };
}

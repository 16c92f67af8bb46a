/**
 * Options shared by several commands, declared once so help text, parsing and
 * defaults cannot drift between commands.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { TABLE_COLUMNS } from './io.js';
import { OUTPUT_FORMATS, usualExtensions } from '../render/index.js';
import { DEFAULT_IDLE_THRESHOLD_PCT, PRICING_MODELS, PROVIDERS } from '../model/index.js';
import { isValidTimeZone, localTimeZone } from '../sources/index.js';
import { DEFAULT_QUERY_BUDGETS, INPUT_LIMIT_ROWS, parseDurationSeconds, parseInputLimit, type InputLimits } from '../sources/index.js';


// Declared once, in the config schema, so gpu-audit.yaml and the flags accept the same values.
export { PRICING_MODELS, PROVIDERS };


function percent(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0 || parsed > 100) {
    throw new InvalidArgumentError('expected a percentage from 0 to 100');
  }
  return parsed;
}

function timeZone(value: string): string {
  if (!isValidTimeZone(value)) throw new InvalidArgumentError('expected an IANA time zone such as UTC or Europe/Berlin');
  return value;
}

/** `--format` (choices: the formats of the command's renderers), `-o`, `--quiet`, `--no-color`, `--debug`. */
export function addOutputOptions(command: Command, formats: readonly string[]): Command {
  command
    .addOption(new Option('-f, --format <format>', 'output format').choices(formats).default('table'))
    .addOption(new Option('-o, --output <file>', 'write the output to FILE (atomically) instead of stdout'));
  return addTerminalOptions(command);
}

/**
 * The output options of audit, check and report: every format, and `-o` repeatable, each
 * file in the format of its extension (src/cli/output-targets.ts).
 */
export function addReportOutputOptions(command: Command): Command {
  command
    .addOption(new Option('-f, --format <format>', 'output format (of stdout, or of a single -o FILE)').choices(OUTPUT_FORMATS).default('table'))
    .addOption(new Option('-o, --output <file>', `write to FILE (atomically) instead of stdout; repeat to write several formats in one run, each from its extension (${usualExtensions()})`).argParser(collectFiles));
  return addTerminalOptions(command);
}

function addTerminalOptions(command: Command): Command {
  return command
    .addOption(new Option('-q, --quiet', 'print nothing but the output and errors (no progress, no notices)'))
    .addOption(new Option('--no-color', 'no colours (also: the NO_COLOR environment variable)'))
    .addOption(new Option('--debug', 'show stack traces of errors'));
}

function tableColumns(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || parsed < TABLE_COLUMNS.min || parsed > TABLE_COLUMNS.max) {
    throw new InvalidArgumentError(`expected a whole number of columns from ${TABLE_COLUMNS.min} to ${TABLE_COLUMNS.max}`);
  }
  return parsed;
}

/** What the commands that render a report (audit, check, report) share: `--width`, `--force` and `--redact` (src/render/redact.ts, SECURITY.md). */
export function addReportRenderOptions(command: Command): Command {
  command.addOption(new Option('--width <columns>', `width of text tables (default: the terminal's, ${TABLE_COLUMNS.default} when not a terminal or with -o)`).argParser(tableColumns));
  command.addOption(new Option('--force', 'print --format html to a terminal (without it, write it with -o)'));
  return command.addOption(new Option('--redact', 'replace host, pod, namespace, container, process and file names and GPU UUIDs by stable short hashes (key: GPU_AUDIT_REDACT_KEY)'));
}

export function addAnalysisOptions(command: Command): Command {
  return command
    .addOption(new Option('--idle-threshold <pct>', 'utilization below which a GPU counts as idle, %').argParser(percent).default(DEFAULT_IDLE_THRESHOLD_PCT))
    .addOption(new Option('--timezone <zone>', 'IANA zone of timestamps printed without one (nvidia-smi prints local time)').argParser(timeZone).default(localTimeZone(), 'this machine\'s zone'))
    .addOption(new Option('--host <name>', 'host name for inputs that name none (default: the file name)'))
    .addOption(new Option('--provider <cloud>', 'cloud whose prices apply').choices(PROVIDERS))
    .addOption(new Option('--region <region>', 'cloud region for prices'))
    .addOption(new Option('--pricing <model>', 'pricing model in force').choices(PRICING_MODELS).default('on-demand'))
    .addOption(new Option('--instance-type <type>', 'instance type of the audited hosts (else inferred from GPU model and count)'))
    .addOption(new Option('--keep-going', 'audit the readable inputs when some are broken; still exits 2'))
    .addOption(new Option('--input-limit <name=n>', `move a cap on what is read: ${INPUT_LIMIT_ROWS.map((row) => `${row.name} (${row.counts}, ${row.default})`).join('; ')}; repeatable`).argParser(inputLimit))
    .addOption(new Option('--config <file>', 'gpu-audit.yaml to use (default: gpu-audit.yaml, gpu-audit.yml or .gpu-audit.yaml here or in the nearest parent); flags win over it'));
}

/** One --input-limit NAME=N over those before it. */
function inputLimit(value: string, previous: Partial<InputLimits> | undefined): Partial<InputLimits> {
  try {
    return parseInputLimit(value, previous);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || parsed < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return parsed;
}

function durationOption(value: string): string {
  if (parseDurationSeconds(value) === undefined) throw new InvalidArgumentError('expected a duration such as 30s, 5m, 1h or 7d');
  return value;
}

/** `audit --prometheus URL` and its window; credentials come from the environment (README). */
export function addPrometheusOptions(command: Command): Command {
  return command
    .addOption(new Option('--prometheus <url>', 'audit the dcgm-exporter series of this Prometheus server (auth: GPU_AUDIT_PROMETHEUS_* variables)'))
    .addOption(new Option('--since <when>', 'start of the window: a duration before --until (7d, 36h) or an ISO time').default('7d'))
    .addOption(new Option('--until <when>', 'end of the window: a duration before now or an ISO time (default: now)'))
    .addOption(new Option('--step <duration>', 'resolution of time figures (observed and idle time)').argParser(durationOption).default('5m'))
    .addOption(new Option('--selector <matchers>', 'label matchers added to every query, e.g. \'{namespace="ml"}\''))
    .addOption(new Option('--prometheus-timeout <seconds>', 'deadline of each request, seconds').argParser(positiveInteger).default(120))
    .addOption(new Option('--prometheus-concurrency <n>', 'requests in flight at once').argParser(positiveInteger).default(4))
    .addOption(new Option('--prometheus-query-points <n>', 'most subquery points (series x steps) one query may evaluate: the query planner cuts the work to fit').argParser(positiveInteger).default(DEFAULT_QUERY_BUDGETS.points))
    .addOption(new Option('--prometheus-query-samples <n>', 'most stored samples one query may read: the query planner cuts the work to fit').argParser(positiveInteger).default(DEFAULT_QUERY_BUDGETS.samples))
    .addOption(new Option('--prometheus-max-answer-mib <mib>', 'largest answer read, MiB: a larger one ends the audit with advice').argParser(positiveInteger).default(256))
    .addOption(new Option('--prometheus-cluster-label <name>', 'one cluster of a multi-cluster Thanos or Mimir: NAME (matched on the label cluster) or LABEL=VALUE'))
    .addOption(new Option('--prometheus-header <header>', '\'Name: value\' sent with every request, e.g. X-Scope-OrgID for Mimir; repeatable (secrets: GPU_AUDIT_PROMETHEUS_HEADERS)').argParser(collectFiles))
    .addOption(new Option('--prometheus-ca-file <file>', 'PEM of the CA that signed the server\'s certificate (also: GPU_AUDIT_PROMETHEUS_CA_FILE)'))
    .addOption(new Option('--prometheus-client-cert <file>', 'PEM client certificate for a server that asks for one (mTLS), with --prometheus-client-key'))
    .addOption(new Option('--prometheus-client-key <file>', 'PEM private key of --prometheus-client-cert'))
    .addOption(new Option('--prometheus-insecure-skip-verify', 'accept any server certificate (encrypted, not authenticated: for a test server only)'))
    .addOption(new Option('--prometheus-sigv4 <region>', 'sign requests with AWS SigV4 for Amazon Managed Service for Prometheus in REGION (credentials: AWS_* variables or the default chain)'));
}

/** A repeatable option's values, in the order given. */
function collectFiles(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `--k8s FILE` (repeatable), `--kubectl`, `--kube-context`: attribute GPUs to pods (src/sources/kubernetes). */
export function addKubernetesOptions(command: Command): Command {
  return command
    .addOption(new Option('--k8s <file>', 'Kubernetes pods and nodes (kubectl get pods,nodes -A -o json); repeat for separate pod and node lists').argParser(collectFiles))
    .addOption(new Option('--kubectl', 'ask the cluster for its pods and nodes with kubectl (your kubeconfig and current context)'))
    .addOption(new Option('--kube-context <name>', 'kubeconfig context for --kubectl'));
}

/**
 * `gpu-audit check`: the audit (same sources and options as `audit`, built by the same
 * buildAuditOptions), then the limits: exit 0 when all hold, 1 on a breach (with
 * --baseline: on a regression), 2 on bad usage or input, 3 when an upstream failed.
 */
import { appendFile, open } from 'node:fs/promises';
import type { InputError } from '../../support/index.js';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_BASELINE_TOLERANCE, mergeThresholds, readComparedReport, runCheck, settingsDrift, thresholdsFromConfig, thresholdsFromFlags, unknownFindingCode, type ThresholdFlags } from '../../check/index.js';
import { FINDING_LEVELS, NO_THRESHOLDS, THRESHOLD_DEFINITIONS, type FindingLevel, type LimitDomain, type Thresholds } from '../../model/index.js';
import { loadAuditConfig } from '../../config/index.js';
import type { CheckReport } from '../../model/index.js';
import type { Report } from '../../model/index.js';
import { renderCheckOutput, type OutputFormat } from '../../render/index.js';
import type { CliIo } from '../io.js';
import { addAnalysisOptions, addKubernetesOptions, addPrometheusOptions, addReportOutputOptions, addReportRenderOptions } from '../options.js';
import { redactKeyFromEnv, redactReport, reportRedactor } from '../../render/index.js';
import { emitTargets } from '../output.js';
import { commandLineNotice } from '../notices.js';
import { outputTargets, type OutputTarget } from '../output-targets.js';
import { demoConfigFile } from '../paths.js';
import { annotationLines, checkAnnotations, isGitHubActions, stepSummaryText } from '../../render/index.js';
import { refuseOutputOntoReads } from '../output-guard.js';
import { auditReads, buildAuditOptions, runAuditWithProgress, type AuditCommandOptions } from './audit.js';

export type CheckCommandOptions = Omit<AuditCommandOptions, 'format'> &
  ThresholdFlags & {
    format: OutputFormat;
    baseline?: string;
    baselineTolerance: number;
  };

const LIMIT_PARSERS: Readonly<Record<LimitDomain, (value: string) => number>> = {
  percent: (value) => {
    // `20%` reads as 20, as --headroom does.
    const number = value.trim().replace(/%$/u, '');
    const parsed = Number(number);
    if (number === '' || !Number.isFinite(parsed) || parsed < 0 || parsed > 100) throw new InvalidArgumentError('expected a percentage from 0 to 100');
    return parsed;
  },
  'non-negative': (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError('expected a number >= 0');
    return parsed;
  },
};

const VALUE_NAMES = { '%': 'pct', h: 'hours', 'USD/month': 'usd' } as const;

/** `--finding-level idle-gpu=error`, repeatable: collected into one code -> level map. */
function collectFindingLevel(value: string, previous: Record<string, FindingLevel> | undefined): Record<string, FindingLevel> {
  const match = /^([a-z0-9][a-z0-9-]*)=([a-z]+)$/u.exec(value.trim());
  const level = match?.[2];
  if (match === null || level === undefined || !(FINDING_LEVELS as readonly string[]).includes(level)) {
    throw new InvalidArgumentError(`expected CODE=LEVEL with LEVEL one of ${FINDING_LEVELS.join(', ')} (e.g. idle-gpu=error)`);
  }
  const problem = unknownFindingCode(match[1]!);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return { ...previous, [match[1]!]: level as FindingLevel };
}

function addThresholdOptions(command: Command): Command {
  for (const definition of THRESHOLD_DEFINITIONS) {
    const scope = definition.scope === 'gpu' ? ', checked per GPU' : '';
    command.addOption(
      new Option(`--${definition.name} <${VALUE_NAMES[definition.unit]}>`, `fail unless ${definition.description}${scope}; reads ${definition.figure}, ${definition.unit}`).argParser(
        LIMIT_PARSERS[definition.domain],
      ),
    );
  }
  return command
    .addOption(new Option('--finding-level <code=level>', `treat findings of CODE as error (fails), warn (reported) or off; repeatable; default warn`).argParser(collectFindingLevel))
    .addOption(new Option('--baseline <report.json>', 'a saved JSON report (audit or check --format json): fail only on regressions since then'))
    .addOption(
      new Option('--baseline-tolerance <points>', 'how far a figure may worsen before it is a regression: percentage points (money: percent)')
        .argParser(LIMIT_PARSERS['non-negative'])
        .default(DEFAULT_BASELINE_TOLERANCE),
    );
}

export function checkCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const command = new Command('check')
    .description('audit, then fail (exit 1) when a limit is breached or, with --baseline, when the fleet got worse')
    .argument('[sources...]', 'files, directories (recursive), globs, or - for stdin; .gz is read transparently')
    .option('--demo', 'check the bundled demo fleet');
  addThresholdOptions(command);
  addAnalysisOptions(command);
  addPrometheusOptions(command);
  addKubernetesOptions(command);
  addReportOutputOptions(command);
  addReportRenderOptions(command);
  command.addHelpText('after', `
Examples:
  $ gpu-audit check --demo --max-waste-pct 10                 # exit 1: the demo fleet wastes ~60%
  $ gpu-audit check logs/ --max-waste-pct 30 --min-utilization 40 --min-vram-headroom-pct 5
  $ gpu-audit check logs/ --finding-level idle-gpu=error --finding-level vram-overprovisioned=off
  $ gpu-audit check logs/ --format junit -o gpu-audit.junit.xml    # CI test report
  $ gpu-audit check logs/ --format sarif -o gpu-audit.sarif        # code scanning
  $ gpu-audit check logs/ --max-waste-pct 30 -o report.json -o gpu-audit.sarif -o gpu-audit.junit.xml -o summary.md
  $ gpu-audit check report.json --max-waste-pct 30                 # a saved JSON report, checked as it is
  $ gpu-audit audit logs/ --format json -o baseline.json           # later:
  $ gpu-audit check logs/ --baseline baseline.json --baseline-tolerance 2

Exit codes: 0 every limit holds (with --baseline: no regression); 1 a limit breached, an
error-level finding, or a regression; 2 usage or input error, or inputs skipped with
--keep-going and nothing failed; 3 Prometheus or a cloud API failed.
Findings are reported but do not fail the check unless their code is set to error.
With GITHUB_ACTIONS=true, annotations go to stderr; with GITHUB_STEP_SUMMARY set, the
verdict is appended to that file as Markdown.`);

  command.action(async (sources: string[], options: CheckCommandOptions, self: Command) => {
    const timezoneGiven = self.getOptionValueSource('timezone') === 'cli';
    const targets = outputTargets(options, self.getOptionValueSource('format') === 'cli');
    setExitCode(await runCheckCommand(sources, options, targets, io, timezoneGiven));
  });
  return command;
}

/** `thresholds:` of gpu-audit.yaml (the file the audit reads too) under the flags: a flag wins, key by key. */
async function thresholdsInForce(options: CheckCommandOptions): Promise<Thresholds> {
  const loaded = await loadAuditConfig({ explicitFile: options.config, demoFile: options.demo === true ? demoConfigFile : undefined, cwd: process.cwd() });
  const fromConfig = loaded?.config.thresholds === undefined ? NO_THRESHOLDS : thresholdsFromConfig(loaded.config.thresholds, loaded.file);
  return mergeThresholds(fromConfig, thresholdsFromFlags(options));
}

export async function runCheckCommand(sources: string[], options: CheckCommandOptions, targets: readonly OutputTarget[], io: CliIo, timezoneGiven = true): Promise<number> {
  const reads = await auditReads(sources, options);
  await refuseOutputOntoReads(targets.map((target) => target.file), options.baseline === undefined ? reads : [...reads, { path: options.baseline, role: 'the --baseline report' }]);
  const thresholds = await thresholdsInForce(options);
  // Read the baseline before the audit: a bad file is a usage error, found in a second, not after a long audit.
  let baseline: { report: Report; ref: string; tolerance: number } | undefined;
  // The saved-report reader brings zod: load it only when a baseline is given.
  if (options.baseline !== undefined) {
    baseline = { report: await readComparedReport(options.baseline), ref: options.baseline, tolerance: options.baselineTolerance };
  }
  const quiet = options.quiet === true;
  if (!quiet && baseline === undefined && Object.keys(thresholds.limits).length === 0 && !Object.values(thresholds.findingLevels).includes('error')) {
    io.stderr('gpu-audit: no limit set (--max-waste-pct, --min-utilization, ... or --baseline): the check can only pass\n');
  }

  // A saved report (audit or check --format json) is checked as it is: CI audits once and gates on the file.
  const saved = await savedReportInput(sources, options);
  const result = saved !== undefined
    ? { report: saved, failures: [] as InputError[] }
    : await runAuditWithProgress(await buildAuditOptions(sources, options, io, timezoneGiven), io, quiet);
  // --redact before the comparison: the verdict, annotations and every format then name only hashes.
  // Redaction is idempotent, so a baseline saved with --redact still matches GPU by GPU.
  const redactor = options.redact === true ? reportRedactor(result.report, { key: redactKeyFromEnv(io.env) }) : undefined;
  const current = redactor?.report ?? result.report;
  if (baseline !== undefined && redactor !== undefined) baseline = { ...baseline, report: redactReport(baseline.report, { key: redactKeyFromEnv(io.env) }) };
  const skippedInputs = result.failures.map((failure) => redactor?.text(failure.describe()) ?? failure.describe());
  if (!quiet && baseline !== undefined) for (const line of settingsDrift(baseline.report, current, baseline.ref)) io.stderr(`gpu-audit: ${line}\n`);
  const check: CheckReport = {
    report: current,
    check: runCheck(current, { thresholds, baseline, skippedInputs }),
  };

  await emitTargets(io, targets, options, (format, renderOptions) => renderCheckOutput(check, format, renderOptions));
  const notice = commandLineNotice(current, targets, options);
  if (notice !== undefined) io.stderr(notice);
  // An input skipped is why the run ends in 2: an error, printed under --quiet too.
  for (const failure of result.failures) io.stderr(`gpu-audit: skipped ${failure.describe()}\n`);
  await reportToGitHub(check, io, quiet);
  return check.check.exitCode;
}

/** Bytes enough to see a report's head: `{"schemaVersion": N, "generatedAt": ..., "tool": {"name": "gpu-audit"`. */
const REPORT_HEAD_BYTES = 512;

/** The one input, where it is a saved gpu-audit JSON report rather than telemetry. */
async function savedReportInput(sources: readonly string[], options: CheckCommandOptions): Promise<Report | undefined> {
  if (sources.length !== 1 || options.demo === true || options.prometheus !== undefined || !sources[0]!.toLowerCase().endsWith('.json')) return undefined;
  let head: string;
  try {
    const file = await open(sources[0]!, 'r');
    try {
      const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(REPORT_HEAD_BYTES), position: 0 });
      head = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch {
    return undefined; // not readable as a file: the audit names the problem
  }
  if (!/^\s*\{\s*"schemaVersion"\s*:/u.test(head) || !/"name"\s*:\s*"gpu-audit"/u.test(head)) return undefined;
  const { readReportStreamed } = await import('../../model/report-reader-streamed.js');
  return readReportStreamed(sources[0]!);
}

/** Annotations and the step summary; a summary file that cannot be written is a warning, not a changed verdict. */
async function reportToGitHub(check: CheckReport, io: CliIo, quiet: boolean): Promise<void> {
  if (isGitHubActions(io.env)) {
    for (const line of annotationLines(checkAnnotations(check), { errorsOnly: quiet })) io.stderr(`${line}\n`);
  }
  const summaryFile = io.env.GITHUB_STEP_SUMMARY;
  if (summaryFile !== undefined && summaryFile !== '') {
    // Appended: several steps, or several checks in one step, share the file.
    try {
      await appendFile(summaryFile, stepSummaryText(check), 'utf8');
    } catch (error) {
      io.stderr(`gpu-audit: warning: ${summaryFile}: cannot append the step summary (${(error as NodeJS.ErrnoException).code ?? String(error)})\n`);
    }
  }
}

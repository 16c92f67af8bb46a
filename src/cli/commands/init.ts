/**
 * `gpu-audit init [sources...]`: audits the sources, proposes a workload per program (and
 * per pod controller) found on the GPUs, asks the user to name them, and writes a
 * gpu-audit.yaml that `audit` accepts. `--yes` takes every proposal without asking (for
 * scripts); an existing file is replaced only when the user says so (or with --force).
 */
import { Command, Option } from 'commander';
import type { GpuAuditConfig } from '../../config/index.js';
import { InputError } from '../../support/index.js';
import { inquirerPrompter, isPromptCancelled, type Prompter } from '../init/prompter.js';
import { writeFileAtomic } from '../../support/index.js';
import type { CliIo } from '../io.js';
import { addAnalysisOptions, addKubernetesOptions, addPrometheusOptions } from '../options.js';
import { refuseOutputOntoReads } from '../output-guard.js';
import { auditReads, buildAuditOptions, runAuditWithProgress, type AuditCommandOptions, type ConfigurableOption } from './audit.js';
import { pathExists } from '../../support/index.js';

export const DEFAULT_CONFIG_OUTPUT = 'gpu-audit.yaml';

export interface InitCommandOptions extends Omit<AuditCommandOptions, 'format' | 'output'> {
  output: string;
  yes?: boolean;
  force?: boolean;
}

/** How init reaches the user and the clock; tests replace the prompter with scripted answers. */
export interface InitEnvironment {
  openPrompter: () => Promise<Prompter>;
  now: () => Date;
}

const REAL_ENVIRONMENT: InitEnvironment = { openPrompter: inquirerPrompter, now: () => new Date() };

export function initCommand(io: CliIo, setExitCode: (code: number) => void, environment: InitEnvironment = REAL_ENVIRONMENT): Command {
  const command = new Command('init')
    .description('propose workloads from an audit, ask about them, and write gpu-audit.yaml')
    .argument('[sources...]', 'telemetry to audit, as for `audit` (none: a snapshot of this machine)')
    .option('--demo', 'propose from the bundled demo fleet')
    .addOption(new Option('-o, --output <file>', 'the config to write').default(DEFAULT_CONFIG_OUTPUT))
    .option('-y, --yes', 'ask nothing: accept every proposal (for scripts; no terminal needed)')
    .option('--force', 'replace an existing output file without asking')
    .option('-q, --quiet', 'print nothing but the questions and errors');
  addAnalysisOptions(command);
  addPrometheusOptions(command);
  addKubernetesOptions(command);
  command.addHelpText('after', `
Examples:
  $ gpu-audit init logs/                   # audit logs/, then answer a few questions per workload
  $ gpu-audit init --demo -o demo.yaml
  $ gpu-audit init logs/ --yes --force     # no questions: every proposal as it is, replacing the file

init reads no existing gpu-audit.yaml (it may be the one being replaced).`);
  command.action(async (sources: string[], options: InitCommandOptions, self: Command) => {
    const typed = (option: ConfigurableOption) => self.getOptionValueSource(option) === 'cli';
    setExitCode(await runInitCommand(sources, options, io, environment, typed('timezone')));
  });
  return command;
}

function isTerminal(stream: NodeJS.ReadableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Ctrl-C in a prompt ends init without writing anything; it is the user's choice, not a bug. */
async function asking<T>(question: () => Promise<T>): Promise<T> {
  try {
    return await question();
  } catch (error) {
    if (isPromptCancelled(error)) throw new InputError('init cancelled: nothing was written');
    throw error;
  }
}

/** Runs init and returns its exit code: 0 written (or the user kept the existing file), 2 skipped inputs with --keep-going. */
export async function runInitCommand(
  sources: string[],
  options: InitCommandOptions,
  io: CliIo,
  environment: InitEnvironment = REAL_ENVIRONMENT,
  timezoneGiven = true,
): Promise<number> {
  if (options.config !== undefined) throw new InputError('init reads no config: drop --config (name the file to write with -o)');
  const interactive = options.yes !== true;
  if (interactive && !(io.stdoutIsTty && isTerminal(io.stdin))) {
    throw new InputError('init asks questions and needs a terminal: run it in one, or pass --yes to accept every proposal');
  }
  const target = options.output;
  await refuseOutputOntoReads(target, await auditReads(sources, { ...options, output: undefined, skipConfig: true }));
  const prompter = interactive ? await environment.openPrompter() : undefined;
  if (options.force !== true && (await pathExists(target))) {
    if (prompter === undefined) throw new InputError('the file exists: pass --force to replace it, or name another with -o', { file: target });
    const replace = await asking(() => prompter.confirm({ message: `${target} exists. Replace it?`, default: false }));
    if (!replace) {
      io.stderr(`gpu-audit: kept ${target}; nothing was written\n`);
      return 0;
    }
  }

  const auditOptions = await buildAuditOptions(sources, { ...options, output: undefined, skipConfig: true }, io, timezoneGiven);
  const result = await runAuditWithProgress(auditOptions, io, options.quiet === true);
  // The YAML writer loads only here: other commands never need it.
  const init = await import('../init/index.js');
  const proposals = init.proposeWorkloads(result.report);
  const thresholds = init.proposeThresholds(result.report);
  const defaults = { provider: auditOptions.provider, pricing: auditOptions.pricing };
  let config: GpuAuditConfig;
  if (prompter === undefined) {
    config = init.acceptProposals(proposals, thresholds, defaults);
  } else {
    const { gpuCount, migDeviceCount, hostCount } = result.report.summary;
    const mig = migDeviceCount > 0 ? ` (${migDeviceCount} MIG devices)` : '';
    io.stdout(`Audited ${gpuCount} GPUs${mig} on ${hostCount} hosts: ${proposals.length} workload${proposals.length === 1 ? '' : 's'} to name. Enter keeps a proposal.\n`);
    config = await asking(() => init.runWizard(prompter, proposals, thresholds, defaults));
  }
  const text = init.configText(config, environment.now(), target);
  await writeFileAtomic(target, text);
  if (options.quiet !== true) {
    for (const failure of result.failures) io.stderr(`gpu-audit: skipped ${failure.describe()}\n`);
    const count = config.workloads?.length ?? 0;
    io.stderr(`gpu-audit: wrote ${target} (${count} workload${count === 1 ? '' : 's'}); see what each holds with: gpu-audit audit <sources> --config ${target}\n`);
  }
  return result.failures.length > 0 ? 2 : 0;
}

/**
 * Options shared by several commands, declared once so help text, parsing and
 * defaults cannot drift between commands.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { isValidTimeZone, localTimeZone } from '../sources/index.js';

export const OUTPUT_FORMATS = ['table', 'json', 'markdown'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const PRICING_MODELS = ['on-demand', 'spot', 'reserved-1y', 'reserved-3y'] as const;
export const PROVIDERS = ['aws', 'azure', 'gcp'] as const;

export const DEFAULT_IDLE_THRESHOLD_PCT = 5;

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

export function addOutputOptions(command: Command, formats: readonly string[] = OUTPUT_FORMATS): Command {
  return command
    .addOption(new Option('-f, --format <format>', 'output format').choices(formats).default('table'))
    .addOption(new Option('-o, --output <file>', 'write the output to FILE (atomically) instead of stdout'))
    .addOption(new Option('-q, --quiet', 'print nothing but the output and errors (no progress, no notices)'))
    .addOption(new Option('--no-color', 'no colours (also: the NO_COLOR environment variable)'))
    .addOption(new Option('--debug', 'show stack traces of errors'));
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
    .addOption(new Option('--keep-going', 'audit the readable inputs when some are broken; still exits 2'));
}

/**
 * Flags that would be read quietly in a way the user did not mean, refused before the command
 * runs (exit 2, one line): a second `-f` (the last one would win), HTML to a terminal without
 * `--force`, and Prometheus window flags given without `--prometheus` (file inputs are audited
 * over the window they hold).
 */
import type { Command } from 'commander';
import { InputError } from '../support/index.js';
import { outputFiles } from './output-targets.js';

const PROMETHEUS_ONLY = [
  'since', 'until', 'step', 'selector', 'prometheusTimeout', 'prometheusMaxAnswerMib', 'prometheusQueryPoints', 'prometheusQuerySamples', 'prometheusConcurrency', 'prometheusClusterLabel', 'prometheusHeader',
  'prometheusCaFile', 'prometheusClientCert', 'prometheusClientKey', 'prometheusInsecureSkipVerify', 'prometheusSigv4',
] as const;

/** `--prometheus-timeout` for `prometheusTimeout`. */
function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** How often the user wrote `-f`/`--format` (in any spelling) before a `--`. */
export function formatFlagCount(argv: readonly string[]): number {
  let count = 0;
  for (const token of argv) {
    if (token === '--') break;
    if (token === '-f' || token === '--format' || token.startsWith('--format=') || /^-f[^-]/.test(token)) count += 1;
  }
  return count;
}

/** No -o (or `-o -`): the output goes to stdout. */
function toStdout(output: unknown): boolean {
  return outputFiles(output).every((file) => file === undefined || file === '-');
}

export function refuseMisleadingFlags(command: Command, argv: readonly string[], stdoutIsTty: boolean): void {
  const options = command.opts();
  if ('format' in options && formatFlagCount(argv) > 1) {
    throw new InputError('-f/--format given more than once (the last would win): for several formats in one run, give -o once per file, each named by its extension (-o report.json -o report.sarif)');
  }
  // A whole HTML document (charts and all) scrolling past is never what a terminal user wanted.
  if (options.format === 'html' && toStdout(options.output) && stdoutIsTty && options.force !== true) {
    throw new InputError('--format html to a terminal: write it with -o report.html (or add --force to print it here)');
  }
  if (!command.options.some((option) => option.attributeName() === 'prometheus') || options.prometheus !== undefined) return;
  const given = PROMETHEUS_ONLY.filter((key) => command.getOptionValueSource(key) === 'cli');
  if (given.length > 0) {
    throw new InputError(`${given.map(flagName).join(', ')} appl${given.length === 1 ? 'ies' : 'y'} only with --prometheus: file inputs are audited over the whole window they hold`);
  }
}

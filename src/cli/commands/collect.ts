/**
 * `gpu-audit collect`: samples this machine (nvidia-smi, /proc) into a bundle directory
 * that `gpu-audit audit DIR` reads. Ctrl-C or SIGTERM ends sampling early and still
 * leaves a complete bundle; the signal handlers live here, the collector takes a signal.
 */
import { hostname } from 'node:os';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { collect, type CollectProgress } from '../../collect/index.js';
import { localTimeZone } from '../../sources/index.js';
import { parseDurationSeconds } from '../../sources/index.js';
import type { CliIo } from '../io.js';
import { startProgress } from '../progress.js';

export interface CollectCommandOptions {
  duration: number;
  interval: number;
  output?: string;
  quiet?: boolean;
  debug?: boolean;
}

function duration(value: string): number {
  const seconds = parseDurationSeconds(value);
  if (seconds === undefined) throw new InvalidArgumentError('expected a duration such as 30s, 10m, 2h or 1h30m');
  return seconds;
}

/** `gpu-audit-bundle-<host>-<UTC start>`: sorts by time, and is a safe file name whatever the host is called. */
export function defaultBundleName(host: string, start: Date): string {
  const safeHost = host.replace(/[^A-Za-z0-9._-]/g, '_') || 'host';
  const stamp = start.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
  return `gpu-audit-bundle-${safeHost}-${stamp}`;
}

function clock(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

export function collectCommand(io: CliIo): Command {
  const command = new Command('collect')
    .description('sample this machine (nvidia-smi, CPU of GPU processes) into a bundle that `audit` reads')
    .addOption(new Option('--duration <time>', 'how long to sample: 30s, 10m, 2h, 1h30m').argParser(duration).default(600, '10m'))
    .addOption(new Option('--interval <time>', 'time between samples').argParser(duration).default(5, '5s'))
    .addOption(new Option('-o, --output <dir>', 'bundle directory to create (new or empty; default ./gpu-audit-bundle-<host>-<UTC start>)'))
    .addOption(new Option('-q, --quiet', 'no progress display'))
    .addOption(new Option('--debug', 'show stack traces of errors'));
  command.addHelpText('after', `
Examples:
  $ gpu-audit collect                                  # 10 minutes, a sample every 5 s
  $ gpu-audit collect --duration 1h --interval 10s -o run-42/
  $ gpu-audit audit run-42/                            # audit the bundle (host and time zone from its manifest)

Ctrl-C or SIGTERM stops sampling early and still writes a complete bundle.
Needs nvidia-smi on PATH; exits 2 when it is missing or fails on the first sample.`);
  command.action(async (options: CollectCommandOptions) => {
    await runCollectCommand(options, io);
  });
  return command;
}

export async function runCollectCommand(options: CollectCommandOptions, io: CliIo): Promise<void> {
  const host = hostname();
  const directory = options.output ?? defaultBundleName(host, new Date());
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  // Once: a second Ctrl-C finds no handler and ends the process the usual way.
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const progress = startProgress(io, options.quiet === true);
  const total = clock(options.duration);
  progress.update(`sampling: starting (Ctrl-C to stop early and keep the samples)`);
  const onSample = (state: CollectProgress): void => {
    const failed = state.failed > 0 ? `, ${state.failed} failed` : '';
    progress.update(`sampling ${directory}: ${state.kept} sample${state.kept === 1 ? '' : 's'}${failed}, ${clock(state.elapsedSeconds)} of ${total} (Ctrl-C to stop early)`);
  };
  try {
    const { manifest } = await collect({
      directory,
      durationSeconds: options.duration,
      intervalSeconds: options.interval,
      host,
      timeZone: localTimeZone(),
      signal: controller.signal,
      onSample,
    });
    progress.stop();
    const { kept, failed, lastError } = manifest.samples;
    const early = manifest.stoppedBy === 'signal' ? ' (stopped early)' : '';
    io.stdout(`gpu-audit: wrote ${directory}: ${kept} sample${kept === 1 ? '' : 's'} kept${early}\n`);
    if (failed > 0) io.stderr(`gpu-audit: ${failed} sample${failed === 1 ? '' : 's'} failed; the last: ${lastError ?? 'unknown'}\n`);
    if (options.quiet !== true) io.stderr(`gpu-audit: audit it with: gpu-audit audit ${quoteForShell(directory)}\n`);
  } finally {
    progress.stop();
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
}

/** The path as a user can paste it into a POSIX shell. */
function quoteForShell(directory: string): string {
  const shown = path.normalize(directory);
  return /^[A-Za-z0-9._/+-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs one benchmark command and measures it: wall time from spawn to exit (this process's
 * clock) and the peak resident set size of the command and its children (GNU time's `%M`,
 * from wait4's rusage). Output goes to /dev/null, as a user's `> /dev/null` would send it;
 * stderr is kept (bounded) to explain a failure.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const GNU_TIME = '/usr/bin/time';
const STDERR_KEPT_CHARS = 2000;

export interface Command {
  argv: readonly string[];
  /** A file fed to stdin (promtool reads the page from stdin). */
  stdinFile?: string;
  /** Exit codes that mean the command did its work (promtool exits 3 on lint findings). */
  okExitCodes?: readonly number[];
  env?: NodeJS.ProcessEnv;
}

export interface Measurement {
  wallSeconds: number;
  peakRssKiB: number;
  exitCode: number;
}

export class CommandFailed extends Error {
  constructor(readonly command: Command, readonly exitCode: number, readonly stderr: string) {
    super(`${command.argv.join(' ')} exited with ${exitCode}: ${CommandFailed.gist(stderr)}`);
  }

  /** The line that says what went wrong (a thrown error's first line), else the last lines. */
  private static gist(stderr: string): string {
    const lines = stderr.trim().split('\n');
    return lines.find((line) => /^\w*Error\b|^gpu-audit: /.test(line)) ?? lines.slice(-3).join(' | ');
  }
}

export async function measure(command: Command): Promise<Measurement> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'gpu-audit-bench-'));
  const rusageFile = path.join(scratch, 'rusage');
  const devNull = openSync('/dev/null', 'w');
  const stdin = command.stdinFile === undefined ? 'ignore' : openSync(command.stdinFile, 'r');
  try {
    const started = process.hrtime.bigint();
    const child = spawn(GNU_TIME, ['-f', '%M', '-o', rusageFile, ...command.argv], {
      stdio: [stdin, devNull, 'pipe'],
      env: command.env ?? process.env,
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_KEPT_CHARS);
    });
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code ?? -1));
    });
    const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (!(command.okExitCodes ?? [0]).includes(exitCode)) throw new CommandFailed(command, exitCode, stderr);
    // GNU time writes "Command exited with non-zero status N" before the figure when N != 0.
    const lines = readFileSync(rusageFile, 'utf8').trim().split('\n');
    const peakRssKiB = Number(lines[lines.length - 1]);
    if (!Number.isFinite(peakRssKiB)) throw new Error(`${GNU_TIME} gave no peak RSS for ${command.argv.join(' ')}`);
    return { wallSeconds, peakRssKiB, exitCode };
  } finally {
    closeSync(devNull);
    if (typeof stdin === 'number') closeSync(stdin);
    rmSync(scratch, { recursive: true, force: true });
  }
}

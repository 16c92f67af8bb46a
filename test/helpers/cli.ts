import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { repoRoot } from './corpus.js';

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (bin/gpu-audit.js -> dist/) as a user would. `npm test` builds first. */
export function runBuiltCli(args: string[], options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliRun {
  const result = spawnSync(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), ...args], {
    cwd: options.cwd ?? repoRoot,
    input: options.input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, CI: '1', ...options.env },
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the CLI in this process (no build needed), off a terminal, without colour, with a fresh catalog cache. */
export async function runCliInProcess(args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    stdoutIsTty: false,
    stderrIsTty: false,
    env: { NO_COLOR: '1', GPU_AUDIT_CACHE_DIR: mkdtempSync(path.join(tmpdir(), 'gpu-audit-cache-')) },
    stdin: Readable.from([]),
  };
  const status = await runCli(args, io);
  return { status, stdout: out.join(''), stderr: err.join('') };
}

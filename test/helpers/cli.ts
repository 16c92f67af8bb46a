import { spawnSync } from 'node:child_process';
import path from 'node:path';
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

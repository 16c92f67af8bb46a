/** What the benchmark ran on: the numbers mean little without it. */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROMTOOL, PYTHON, repoRoot } from './contenders.js';

export interface Machine {
  cpuModel: string;
  logicalCores: number;
  memoryGiB: number;
  os: string;
  node: string;
  python: string;
  promtool: string;
  /** Load average when the run started: the benchmark shares the machine with whatever else runs. */
  loadAverage1m: number;
  commit: string;
  /** When the CLI bundle (what the benchmark runs) was built: it may be older than the working tree. */
  distBuiltAt: string;
}

function firstLine(command: string, args: string[]): string {
  try {
    const output = execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: repoRoot });
    return output.trim().split('\n')[0] ?? 'unknown';
  } catch {
    return 'unavailable';
  }
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    logicalCores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    python: firstLine(PYTHON, ['--version']),
    promtool: firstLine(PROMTOOL, ['--version']).replace(/\s*\(branch.*$/, ''),
    loadAverage1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    commit: firstLine('git', ['rev-parse', '--short', 'HEAD']),
    distBuiltAt: statSync(path.join(repoRoot, 'dist/bundle/gpu-audit.cjs')).mtime.toISOString(),
  };
}

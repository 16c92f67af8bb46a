/**
 * `gpu-audit collect`, built, run as a user runs it, with a fake nvidia-smi first on PATH
 * (test/fixtures/fake-nvidia-smi) that prints a corpus document stamped with the current
 * local time. The bundle it writes is then audited by the built CLI.
 * Timing assertions are tolerant: a slow CI machine may skip a sampling slot.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import type { BundleManifest } from '../../src/model/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { corpusPath, repoRoot } from '../helpers/corpus.js';

const FAKE_DIR = path.join(repoRoot, 'test/fixtures/fake-nvidia-smi');
const A10G = corpusPath('nvidia-smi-xml', 'telegraf-a10g.xml');
/**
 * nvidia-smi and the CLI run in Honolulu time (UTC-10, no DST); the audit runs without TZ, so
 * only the manifest can tell it. A zone west of UTC, so that reading the wall clock as UTC
 * moves the samples into the past, not into the future (where the audit would drop them).
 */
const fakeEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: `${FAKE_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
  FAKE_NVIDIA_SMI_DOCUMENT: A10G,
  TZ: 'Pacific/Honolulu',
  ...extra,
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gpu-audit-collect-e2e-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function manifestOf(bundle: string): BundleManifest {
  return JSON.parse(readFileSync(path.join(bundle, 'manifest.json'), 'utf8')) as BundleManifest;
}

function documentsIn(bundle: string): number {
  return (readFileSync(path.join(bundle, 'nvidia-smi.xml'), 'utf8').match(/<nvidia_smi_log>/g) ?? []).length;
}

function auditJson(bundle: string, ...args: string[]): Report {
  const run = runBuiltCli(['audit', bundle, '--format', 'json', ...args], { env: { TZ: 'UTC' } });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Report;
}

describe('gpu-audit collect', () => {
  it('samples for --duration at --interval and writes a bundle that audit reads with the manifest\'s host and zone', () => {
    const bundle = path.join(root, 'bundle');
    const run = runBuiltCli(['collect', '--duration', '3s', '--interval', '1s', '-o', bundle], { env: fakeEnv() });
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^gpu-audit: wrote .*bundle: \d samples? kept\n$/);

    const manifest = manifestOf(bundle);
    // Slots at 0, 1 and 2 s; the 3 s mark is the end. A slow machine may skip one.
    expect(manifest.samples.kept).toBeGreaterThanOrEqual(2);
    expect(manifest.samples.kept).toBeLessThanOrEqual(3);
    expect(documentsIn(bundle)).toBe(manifest.samples.kept);
    expect(manifest).toMatchObject({ host: hostname(), timezone: 'Pacific/Honolulu', complete: true, stoppedBy: 'duration', intervalSeconds: 1, durationSeconds: 3 });
    expect(manifest.nvidiaSmi).toEqual({ driverVersion: '515.105.01', cudaVersion: '11.7' });

    const report = auditJson(bundle);
    // One proc-stat.csv row per sample too (this machine has procfs): the host CPU ticks.
    // processes.csv has a row per live GPU process per sample: the fake's pids (from the corpus)
    // are usually not running here, so its count is whatever this machine happens to have.
    expect(report.sources.map((source) => [path.basename(source.ref), source.format])).toEqual([
      ['nvidia-smi.xml', 'nvidia-smi-xml'],
      ['proc-stat.csv', 'proc-stat-csv'],
      ['processes.csv', 'process-cpu-csv'],
    ]);
    expect(report.sources.slice(0, 2).map((source) => source.records)).toEqual([manifest.samples.kept, manifest.samples.kept]);
    expect(report.gpus.map((gpu) => gpu.host)).toEqual([hostname()]);
    // The documents say e.g. "Sun Nov 29 06:33:24" (Honolulu); read in the manifest's zone that
    // is 16:33:24 UTC, the collector's own start time to the second (nvidia-smi prints whole seconds).
    expect(report.window.timezone).toBe('Pacific/Honolulu');
    const startedMs = Date.parse(manifest.startedAt);
    expect(Math.abs(Date.parse(report.window.start!) - startedMs)).toBeLessThan(2_000);

    // An explicit --timezone still wins: the same wall-clock read as UTC lands 10 h earlier.
    const asUtc = auditJson(bundle, '--timezone', 'UTC');
    expect(Date.parse(report.window.start!) - Date.parse(asUtc.window.start!)).toBe(10 * 3_600_000);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stopped by %s after about a second, still writes a complete bundle and exits 0', async (signal) => {
    const bundle = path.join(root, 'bundle');
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), 'collect', '--duration', '10m', '--interval', '1s', '-o', bundle], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1', CI: '1', ...fakeEnv() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = once(child, 'exit');
    // The manifest appears with the first sample; stop about 1.2 s after that.
    for (let waited = 0; !existsSync(path.join(bundle, 'manifest.json')) && waited < 30_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    child.kill(signal);
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);

    const manifest = manifestOf(bundle);
    expect(manifest).toMatchObject({ complete: true, stoppedBy: 'signal' });
    expect(manifest.endedAt).not.toBeNull();
    expect(manifest.samples.kept).toBeGreaterThanOrEqual(1);
    expect(documentsIn(bundle)).toBe(manifest.samples.kept);
    expect(stdout).toBe(`gpu-audit: wrote ${bundle}: ${manifest.samples.kept} sample${manifest.samples.kept === 1 ? '' : 's'} kept (stopped early)\n`);
    expect(auditJson(bundle).gpus.map((gpu) => gpu.host)).toEqual([hostname()]);
  }, 60_000);

  it('exits 2 with a clear message when nvidia-smi is not on PATH, and writes nothing', () => {
    const bundle = path.join(root, 'bundle');
    // The CLI is started by absolute path; an empty PATH holds no nvidia-smi.
    const run = runBuiltCli(['collect', '--duration', '3s', '--interval', '1s', '-o', bundle], { env: { PATH: root } });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('gpu-audit: nvidia-smi not found on PATH: collect needs an NVIDIA driver; audit saved files instead\n');
    expect(existsSync(bundle)).toBe(false);
  });

  it('exits 2 naming nvidia-smi\'s own complaint when it fails', () => {
    const bundle = path.join(root, 'bundle');
    const run = runBuiltCli(['collect', '--duration', '3s', '--interval', '1s', '-o', bundle], { env: fakeEnv({ FAKE_NVIDIA_SMI_FAIL: '1' }) });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^gpu-audit: nvidia-smi failed: .*exit code 9.*couldn't communicate with the NVIDIA driver/);
    expect(existsSync(bundle)).toBe(false);
  });

  it('rejects a duration it cannot read and an interval longer than the duration (exit 2)', () => {
    const bad = runBuiltCli(['collect', '--duration', 'ten minutes'], { env: fakeEnv() });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/expected a duration such as 30s, 10m, 2h or 1h30m/);
    const inverted = runBuiltCli(['collect', '--duration', '2s', '--interval', '5s', '-o', path.join(root, 'b')], { env: fakeEnv() });
    expect(inverted.status).toBe(2);
    expect(inverted.stderr).toMatch(/--interval is longer than --duration/);
  });
});

/**
 * The sampling loop and the bundle it writes, in process: snapshots come from corpus
 * documents through the SnapshotTaker seam, /proc is this machine's. The built CLI with a
 * fake nvidia-smi on PATH is test/e2e/collect.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collect, snapshotFacts, type SnapshotTaker } from '../../src/collect/index.js';
import { PROCESSES_HEADER, PROC_STAT_HEADER } from '../../src/collect/bundle-writer.js';
import { SnapshotCanceled } from '../../src/collect/nvidia-smi.js';
import { InputError } from '../../src/support/errors.js';
import { readBundleManifest } from '../../src/sources/bundle.js';
import { hostForInput, resolveInputs } from '../../src/sources/index.js';
import { corpusPath } from '../helpers/corpus.js';

const T4 = readFileSync(corpusPath('nvidia-smi-xml', 'telegraf-tesla-t4.xml'), 'utf8');
/** The T4 document with its two process pids replaced by this test process, so the tree has something to follow. */
const T4_OWN_PID = T4.replace(/<pid>\d+<\/pid>/g, `<pid>${process.pid}</pid>`);

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gpu-audit-collect-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const base = (directory: string) => ({ directory, host: 'node-07', timeZone: 'Europe/Berlin', procRoot: '/proc' });

describe('snapshotFacts', () => {
  it('reads the GPU process pids, driver and CUDA version of a corpus document', () => {
    // telegraf-tesla-t4.xml: <pid>675</pid>, <pid>5762</pid>, driver 515.105.01, CUDA 11.7.
    expect(snapshotFacts(T4)).toEqual({ gpuPids: [675, 5762], driverVersion: '515.105.01', cudaVersion: '11.7' });
  });
});

describe('collect', () => {
  it('keeps every sample until stopped, then writes a complete manifest the audit reads', async () => {
    const controller = new AbortController();
    const directory = path.join(root, 'bundle');
    const seen: number[] = [];
    const result = await collect({
      ...base(directory),
      durationSeconds: 60,
      intervalSeconds: 0.05,
      snapshot: async () => T4_OWN_PID,
      signal: controller.signal,
      // Stopping from the progress callback after the 3rd sample makes the count exact.
      onSample: (progress) => {
        seen.push(progress.kept);
        if (progress.kept === 3) controller.abort();
      },
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(result.manifest).toMatchObject({
      schemaVersion: 1, kind: 'gpu-audit-bundle', host: 'node-07', timezone: 'Europe/Berlin', complete: true, stoppedBy: 'signal',
      intervalSeconds: 0.05, durationSeconds: 60, nvidiaSmi: { driverVersion: '515.105.01', cudaVersion: '11.7' },
      samples: { kept: 3, failed: 0, lastError: null },
    });
    expect(result.manifest.files.map((file) => file.name)).toEqual(['nvidia-smi.xml', 'proc-stat.csv', 'processes.csv']);

    // The manifest on disk is the one returned, and it validates.
    expect(await readBundleManifest(directory)).toEqual(result.manifest);
    const xml = readFileSync(path.join(directory, 'nvidia-smi.xml'), 'utf8');
    expect(xml.match(/<nvidia_smi_log>/g)).toHaveLength(3);

    // One /proc/stat row per sample; this process (the "GPU process") in every processes sample.
    const procRows = readFileSync(path.join(directory, 'proc-stat.csv'), 'utf8').trim().split('\n');
    expect(procRows[0]).toBe(PROC_STAT_HEADER.join(','));
    expect(procRows).toHaveLength(1 + 3);
    const processRows = readFileSync(path.join(directory, 'processes.csv'), 'utf8').trim().split('\n');
    expect(processRows[0]).toBe(PROCESSES_HEADER.join(','));
    const own = processRows.slice(1).filter((row) => row.split(',')[2] === String(process.pid));
    expect(own).toHaveLength(3);
    expect(own[0]!.split(',')[1]).toBe(String(process.pid)); // gpu_pid: its own tree

    // audit: the directory yields the XML log, the host CPU ticks and the process CPU ticks,
    // all credited to the manifest's host.
    const inputs = await resolveInputs([directory]);
    expect(inputs.map((input) => path.basename(input.ref))).toEqual(['nvidia-smi.xml', 'proc-stat.csv', 'processes.csv']);
    expect(inputs.map((input) => hostForInput(input, undefined))).toEqual(['node-07', 'node-07', 'node-07']);
    expect(hostForInput(inputs[0]!, 'explicit')).toBe('explicit');
    // Named as a file, the XML still takes its host from the manifest beside it.
    const [asFile] = await resolveInputs([path.join(directory, 'nvidia-smi.xml')]);
    expect(hostForInput(asFile!, undefined)).toBe('node-07');
  });

  it('samples on the interval grid and stops at the duration: 0.3 s every 0.1 s is 3 samples at most', async () => {
    const result = await collect({ ...base(path.join(root, 'b')), durationSeconds: 0.3, intervalSeconds: 0.1, snapshot: async () => T4 });
    // Slots at 0, 0.1 and 0.2 s; a slow machine may skip a slot, never add one.
    expect(result.manifest.samples.kept).toBeGreaterThanOrEqual(1);
    expect(result.manifest.samples.kept).toBeLessThanOrEqual(3);
    expect(result.manifest.stoppedBy).toBe('duration');
  });

  it('fails before writing anything when the first snapshot fails', async () => {
    const directory = path.join(root, 'never');
    const failing: SnapshotTaker = async () => {
      throw new InputError('nvidia-smi not found on PATH: collect needs an NVIDIA driver; audit saved files instead');
    };
    await expect(collect({ ...base(directory), durationSeconds: 1, intervalSeconds: 0.1, snapshot: failing })).rejects.toThrow(/nvidia-smi not found on PATH/);
    expect(existsSync(directory)).toBe(false);
  });

  it('counts a later failed sample in the manifest and goes on sampling', async () => {
    let calls = 0;
    const flaky: SnapshotTaker = async () => {
      calls += 1;
      if (calls === 2) throw new InputError('nvidia-smi failed: Command failed with exit code 9');
      return T4;
    };
    const controller = new AbortController();
    const result = await collect({
      ...base(path.join(root, 'flaky')), durationSeconds: 60, intervalSeconds: 0.05, snapshot: flaky, signal: controller.signal,
      onSample: (progress) => {
        if (progress.kept === 2) controller.abort();
      },
    });
    expect(result.manifest.samples).toEqual({ kept: 2, failed: 1, lastError: 'nvidia-smi failed: Command failed with exit code 9' });
  });

  it('drops a snapshot still in flight when stopped, and keeps the ones taken', async () => {
    const controller = new AbortController();
    let calls = 0;
    // The second snapshot hangs until the signal cancels it, as execa's cancelSignal does to nvidia-smi.
    const hanging: SnapshotTaker = async (signal) => {
      calls += 1;
      if (calls === 1) return T4;
      setTimeout(() => controller.abort(), 20);
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new SnapshotCanceled())));
    };
    const directory = path.join(root, 'inflight');
    const result = await collect({ ...base(directory), durationSeconds: 60, intervalSeconds: 0.05, snapshot: hanging, signal: controller.signal });
    expect(result.manifest).toMatchObject({ complete: true, stoppedBy: 'signal', samples: { kept: 1, failed: 0 } });
    expect(readFileSync(path.join(directory, 'nvidia-smi.xml'), 'utf8').match(/<nvidia_smi_log>/g)).toHaveLength(1);
  });

  it('never writes into a directory that already holds files', async () => {
    const directory = path.join(root, 'used');
    await mkdir(directory);
    writeFileSync(path.join(directory, 'notes.txt'), 'mine');
    await expect(collect({ ...base(directory), durationSeconds: 1, intervalSeconds: 0.5, snapshot: async () => T4 })).rejects.toThrow(/already exists and is not empty/);
    expect(readFileSync(path.join(directory, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('rejects an interval longer than the duration', async () => {
    await expect(collect({ ...base(path.join(root, 'x')), durationSeconds: 1, intervalSeconds: 5, snapshot: async () => T4 })).rejects.toThrow(/--interval is longer than --duration/);
  });

  it('writes only the XML where there is no procfs (the bundle stays readable)', async () => {
    const directory = path.join(root, 'noproc');
    const result = await collect({ ...base(directory), procRoot: path.join(root, 'no-such-proc'), durationSeconds: 0.1, intervalSeconds: 0.1, snapshot: async () => T4 });
    expect(result.manifest.files.map((file) => file.name)).toEqual(['nvidia-smi.xml']);
    expect(existsSync(path.join(directory, 'proc-stat.csv'))).toBe(false);
  });
});

describe('readBundleManifest', () => {
  it('is undefined for a directory that is no bundle, and an error for a manifest of ours that does not validate', async () => {
    expect(await readBundleManifest(root)).toBeUndefined();
    writeFileSync(path.join(root, 'manifest.json'), JSON.stringify({ kind: 'something-else' }));
    expect(await readBundleManifest(root)).toBeUndefined();
    writeFileSync(path.join(root, 'manifest.json'), JSON.stringify({ kind: 'gpu-audit-bundle', schemaVersion: 1 }));
    await expect(readBundleManifest(root)).rejects.toThrow(/not a valid gpu-audit bundle manifest/);
  });
});

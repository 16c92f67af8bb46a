/**
 * runAudit reads the Kubernetes inputs beside the telemetry, not after it: a kubectl run
 * mostly waits on the API server. Shown without timing: the telemetry comes on standard input,
 * which the test writes only once a fake kubectl has started, so an audit that ran kubectl
 * after the telemetry would wait for it in vain.
 */
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runAudit, type AuditOptions } from '../../src/engine/run-audit.js';
import { LARGE_READ_BYTES } from '../../src/sources/index.js';
import { bundledCatalog } from '../../src/catalog/index.js';
import { InputError } from '../../src/support/errors.js';
import { HEAD_CHARS } from '../../src/sources/index.js';
import { corpusPath, repoRoot } from '../helpers/corpus.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

const SCRAPES = path.join(repoRoot, 'test/fixtures/kubernetes/scrapes.prom');
const CLUSTER = path.join(repoRoot, 'test/fixtures/kubernetes/cluster.json');
const WAIT_MS = 20_000;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A fake kubectl that writes `started` (its pid) in `dir`, then does `then`. */
function fakeKubectl(then: string): { executable: string; started: string } {
  dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-audit-'));
  const executable = path.join(dir, 'kubectl');
  const started = path.join(dir, 'started');
  writeFileSync(executable, `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(started)}, String(process.pid));\n${then}\n`);
  chmodSync(executable, 0o755);
  return { executable, started };
}

async function waitFor(file: string): Promise<boolean> {
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline;) {
    if (existsSync(file)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

const options = (stdin: PassThrough, executable: string): AuditOptions => ({
  inputs: ['-'], stdin, kubectl: { executable }, ...AUDIT_DEFAULTS, catalog: bundledCatalog(),
});

describe('runAudit with --kubectl', () => {
  it('runs kubectl while the telemetry is still being read', async () => {
    const { executable, started } = fakeKubectl(`process.stdout.write(require('node:fs').readFileSync(${JSON.stringify(CLUSTER)}, 'utf8'));`);
    const stdin = new PassThrough();
    const audit = runAudit(options(stdin, executable));
    const kubectlStarted = await waitFor(started);
    // The telemetry either way, so that an audit waiting for it ends.
    stdin.end(readFileSync(SCRAPES));
    expect(kubectlStarted, 'kubectl did not start before the telemetry was read').toBe(true);
    const { report } = await audit;
    expect([report.kubernetes?.pods.length, report.kubernetes?.nodes.length]).toEqual([4, 2]);
  });

  it('stops kubectl when the telemetry cannot be read', async () => {
    const { executable, started } = fakeKubectl('setTimeout(() => {}, 60_000);');
    const stdin = new PassThrough();
    const audit = runAudit(options(stdin, executable));
    const kubectlStarted = await waitFor(started);
    stdin.end('not a metric line at all\n');
    await expect(audit).rejects.toThrow(InputError);
    expect(kubectlStarted).toBe(true);
    const pid = Number(readFileSync(started, 'utf8'));
    const stopped = async (): Promise<boolean> => {
      for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline;) {
        try {
          process.kill(pid, 0);
        } catch {
          return true;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return false;
    };
    expect(await stopped(), 'kubectl still runs after the audit failed').toBe(true);
  });
});

describe('runAudit with --k8s files', () => {
  it('reads them once the telemetry is analysed, so that their inventory never sits on top of the analysis', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-audit-'));
    const list = path.join(dir, 'cluster.json');
    // The list exists only from the end of the analysis on: read any earlier, it would be missing.
    const { report } = await runAudit({
      inputs: [SCRAPES], kubernetesFiles: [list], ...AUDIT_DEFAULTS, catalog: bundledCatalog(),
      performance: { onAnalysisDone: () => copyFileSync(CLUSTER, list) },
    });
    expect([report.kubernetes?.pods.length, report.kubernetes?.nodes.length]).toEqual([4, 2]);
  });
});

describe('runAudit over several inputs', () => {
  // Each input is opened while the one before is read; what happens to one still happens at its turn.
  const snapshot = readFileSync(corpusPath('nvidia-smi-xml', 'netdata-rtx-3060.xml'));
  const threeFiles = (): string[] => {
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-inputs-'));
    return ['node-a.xml', 'node-b.xml', 'node-c.xml'].map((name) => {
      writeFileSync(path.join(dir, name), snapshot);
      return path.join(dir, name);
    });
  };
  const base = { timeZone: 'UTC', idleThresholdPct: 5, pricing: 'on-demand', catalog: bundledCatalog() } as const;

  it('reports an input that vanished before its turn in its place (--keep-going)', async () => {
    const files = threeFiles();
    // Removed as the first input is read, before the third is opened.
    const onInput = (_ref: string, index: number): void => {
      if (index === 0) rmSync(files[2]!);
    };
    const { report, failures } = await runAudit({ ...base, inputs: files, keepGoing: true, onInput });
    expect(report.sources.map((source) => [path.basename(source.ref), source.format])).toEqual([
      ['node-a.xml', 'nvidia-smi-xml'], ['node-b.xml', 'nvidia-smi-xml'], ['node-c.xml', 'unreadable'],
    ]);
    expect(failures.map((failure) => failure.message)).toEqual(['cannot read (ENOENT)']);
  });

  it('stops at the first input that cannot be read; the failure of the one opened ahead goes nowhere', async () => {
    const files = threeFiles();
    writeFileSync(files[0]!, 'not telemetry\n');
    const onInput = (_ref: string, index: number): void => {
      if (index === 0) rmSync(files[1]!);
    };
    // Were the second input's failure (opened while the first is read) unhandled, vitest would fail the run.
    await expect(runAudit({ ...base, inputs: files, keepGoing: false, onInput })).rejects.toThrow(/^unrecognised format/);
  });

  it('calls onLargeInput once, before the input with which the inputs reach 32 MiB in all', async () => {
    const [snapshotFile] = threeFiles();
    // Sparse files (their size counts, their bytes take no disk), read as binary data and skipped with --keep-going.
    const parts = ['part-1.bin', 'part-2.bin', 'part-3.bin'].map((name) => {
      const file = path.join(dir, name);
      writeFileSync(file, '');
      truncateSync(file, Math.ceil(LARGE_READ_BYTES / 3) - 1);
      return file;
    });
    const large: string[] = [];
    await runAudit({ ...base, inputs: [snapshotFile!, ...parts, snapshotFile!], keepGoing: true, performance: { onLargeInput: (ref) => large.push(ref) } });
    expect(LARGE_READ_BYTES).toBe(32 * 1024 * 1024);
    expect(large).toEqual([parts[2]]);
    const small: string[] = [];
    await runAudit({ ...base, inputs: [snapshotFile!, parts[0]!], keepGoing: true, performance: { onLargeInput: (ref) => small.push(ref) } });
    expect(small).toEqual([]);
  });

  it('counts standard input as large once it outgrows the head read for its format', async () => {
    const large: string[] = [];
    // A `-l` log of the same document, longer than the head.
    const log = snapshot.toString('utf8').repeat(Math.ceil((2 * HEAD_CHARS) / snapshot.length));
    await runAudit({ ...base, inputs: ['-'], stdin: Readable.from([log]), keepGoing: false, performance: { onLargeInput: (ref) => large.push(ref) } });
    expect(large).toEqual(['-']);
  });

  it('calls onAnalysisDone once, after the last input is read', async () => {
    const files = threeFiles();
    const events: string[] = [];
    const { report } = await runAudit({
      ...base, inputs: files, keepGoing: false,
      onInput: (ref) => events.push(`input ${path.basename(ref)}`),
      performance: { onAnalysisDone: () => events.push('analysis done') },
    });
    expect(events).toEqual(['input node-a.xml', 'input node-b.xml', 'input node-c.xml', 'analysis done']);
    expect(report.gpus.length).toBeGreaterThan(0);
  });
});


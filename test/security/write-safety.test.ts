/**
 * Nothing the user gave is overwritten or lost by `-o` (src/cli/output-guard.ts,
 * src/support/atomic-write.ts), run as a user would, through the built CLI:
 * - an output that is an input of the same run, in any disguise, is refused with exit 2 before
 *   anything is read, and the input is left byte for byte;
 * - a device, a FIFO or a link to stdout is written in place, never replaced by a file;
 * - a writer killed by SIGKILL mid-write leaves a temporary file that the next run sweeps;
 * - a stdout that cannot be written ends with one line and exit 2.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpusPath, repoRoot } from '../helpers/corpus.js';
import { runBuiltCli } from '../helpers/cli.js';

const SNAPSHOT = corpusPath('nvidia-smi-xml', 'telegraf-rtx-3080-v12.xml');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-write-safety-'));
  copyFileSync(SNAPSHOT, path.join(dir, 'in.xml'));
  chmodSync(path.join(dir, 'in.xml'), 0o644);
});
afterEach(() => {
  spawnSync('rm', ['-rf', dir]);
});

function run(args: string[]): ReturnType<typeof runBuiltCli> {
  return runBuiltCli(args, { cwd: dir });
}

/** The refusal: exit 2, one line naming the output and why, nothing on stdout, the input untouched. */
function expectRefused(args: string[], output: string, reason: RegExp, untouched: string[]): void {
  const before = untouched.map((file) => readFileSync(path.join(dir, file)));
  const result = run(args);
  expect(result.status).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`gpu-audit: ${output}: -o would overwrite what this run reads`);
  expect(lines[0]).toMatch(reason);
  untouched.forEach((file, index) => expect(readFileSync(path.join(dir, file)).equals(before[index]!)).toBe(true));
}

describe('-o naming an input of the same run', () => {
  it('refuses the source itself', () => {
    expectRefused(['audit', 'in.xml', '-o', 'in.xml'], 'in.xml', /it is a source/, ['in.xml']);
  });

  it('refuses a link to a source, and a source reached through a link', () => {
    symlinkSync('in.xml', path.join(dir, 'link.xml'));
    expectRefused(['audit', 'link.xml', '-o', 'in.xml'], 'in.xml', /it is a source/, ['in.xml']);
    expectRefused(['audit', 'in.xml', '-o', 'link.xml'], 'link.xml', /it is a source/, ['in.xml']);
    expect(lstatSync(path.join(dir, 'link.xml')).isSymbolicLink()).toBe(true);
  });

  it('refuses a file inside a source directory, whether it exists yet or not', () => {
    mkdirSync(path.join(dir, 'logs'));
    copyFileSync(SNAPSHOT, path.join(dir, 'logs/a.xml'));
    expectRefused(['audit', 'logs', '-o', 'logs/a.xml'], 'logs/a.xml', /inside logs, a source that is read as a whole/, ['logs/a.xml']);
    expectRefused(['audit', 'logs/', '-f', 'json', '-o', 'logs/new.json'], 'logs/new.json', /inside logs\//, ['logs/a.xml']);
    expect(readdirSync(path.join(dir, 'logs'))).toEqual(['a.xml']);
  });

  it('refuses a file that a source directory reaches through a link, and one a glob matches', () => {
    mkdirSync(path.join(dir, 'logs'));
    symlinkSync('../in.xml', path.join(dir, 'logs/linked.xml'));
    expectRefused(['audit', 'logs', '-o', 'in.xml'], 'in.xml', /found through a source logs/, ['in.xml']);
    expectRefused(['audit', '*.xml', '-o', 'in.xml'], 'in.xml', /it is in\.xml, found through a source \*\.xml/, ['in.xml']);
  });

  it('refuses the saved report of `report`, the baseline of `check`, the --k8s file and the --config file', () => {
    expect(run(['audit', 'in.xml', '-f', 'json', '-o', 'r.json', '-q']).status).toBe(0);
    expectRefused(['report', 'r.json', '-o', 'r.json'], 'r.json', /the report being rendered/, ['r.json']);
    expectRefused(['check', 'in.xml', '--baseline', 'r.json', '-f', 'json', '-o', 'r.json'], 'r.json', /the --baseline report/, ['r.json']);
    copyFileSync(path.join(repoRoot, 'test/fixtures/kubernetes/cluster.json'), path.join(dir, 'k.json'));
    expectRefused(['audit', 'in.xml', '--k8s', 'k.json', '-o', 'k.json'], 'k.json', /a --k8s file/, ['k.json']);
    writeFileSync(path.join(dir, 'c.yaml'), 'idleThresholdPct: 5\n');
    expectRefused(['audit', 'in.xml', '--config', 'c.yaml', '-o', 'c.yaml'], 'c.yaml', /the --config file/, ['c.yaml']);
  });

  it('refuses the config found in the working directory, which `init -o` may replace only as its own output', () => {
    writeFileSync(path.join(dir, 'gpu-audit.yaml'), 'idleThresholdPct: 5\n');
    expectRefused(['audit', 'in.xml', '-o', 'gpu-audit.yaml'], 'gpu-audit.yaml', /the config in use/, ['gpu-audit.yaml']);
    expectRefused(['init', 'in.xml', '--yes', '--force', '-o', 'in.xml'], 'in.xml', /it is a source/, ['in.xml']);
  });
});

describe('-o onto something that is not a regular file', () => {
  it('writes a FIFO in place: the reader gets the report, the FIFO stays a FIFO', async () => {
    const fifo = path.join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('cat', [fifo]);
    let read = '';
    reader.stdout.on('data', (chunk: Buffer) => (read += chunk.toString()));
    const readerDone = new Promise((resolve) => reader.on('exit', resolve));
    const result = run(['audit', 'in.xml', '-f', 'json', '-o', 'fifo', '-q']);
    await readerDone;
    expect(result.status).toBe(0);
    expect(JSON.parse(read).schemaVersion).toBeTypeOf('number');
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('writes through a link to /proc/self/fd/1 into the pipe it names, and keeps the link', () => {
    symlinkSync('/proc/self/fd/1', path.join(dir, 'out'));
    // A shell pipe (Node gives a child a socket, not a pipe).
    const result = spawnSync('bash', ['-c', `"${process.execPath}" "${path.join(repoRoot, 'bin/gpu-audit.js')}" audit in.xml -f json -o out -q | cat`], { cwd: dir, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).schemaVersion).toBeTypeOf('number');
    expect(lstatSync(path.join(dir, 'out')).isSymbolicLink()).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)('writes a character device in place (a null device made for the test), which stays a device', () => {
    const device = path.join(dir, 'null');
    expect(spawnSync('mknod', [device, 'c', '1', '3']).status).toBe(0);
    expect(run(['audit', 'in.xml', '-o', 'null', '-q']).status).toBe(0);
    expect(statSync(device).isCharacterDevice()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['in.xml', 'null']);
  });

  it('says in one line that a full device cannot take the report, with exit 2 (-o and stdout alike)', () => {
    const onFile = run(['audit', 'in.xml', '-o', '/dev/full']);
    expect(onFile.status).toBe(2);
    expect(onFile.stderr).toBe('gpu-audit: /dev/full: cannot write this file: no space left on the device (ENOSPC)\n');
    const onStdout = spawnSync('sh', ['-c', `"${process.execPath}" "${path.join(repoRoot, 'bin/gpu-audit.js')}" audit in.xml > /dev/full`], { cwd: dir, encoding: 'utf8' });
    expect(onStdout.status).toBe(2);
    expect(onStdout.stderr).toBe('gpu-audit: cannot write to standard output: no space left on the device (ENOSPC)\n');
  });

  it('stops silently with exit 0 when the reader of stdout goes away', () => {
    const result = spawnSync('bash', ['-c', `"${process.execPath}" "${path.join(repoRoot, 'bin/gpu-audit.js')}" audit --demo --format json | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`], { cwd: dir, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('0\n');
  });
});

describe('temporary files of a writer killed with SIGKILL', () => {
  it('are left by the kill (no handler runs) and swept by the next run that writes beside the same target', async () => {
    const target = path.join(dir, 'report.html');
    writeFileSync(target, 'old\n');
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), 'audit', '--demo', '--format', 'html', '-o', target, '-q'], { stdio: 'ignore' });
    await new Promise<void>((resolve) => {
      const watcher = watch(dir, (_event, name) => {
        if (name !== null && name.endsWith('.tmp')) {
          watcher.close();
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((resolve) => child.on('exit', resolve));
    const left = readdirSync(dir).filter((name) => name.endsWith('.tmp'));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.report\.html\.[0-9a-f]{12}\.tmp$/);
    // Another program's file with a similar name, and a leftover of another target, are kept.
    writeFileSync(path.join(dir, '.report.html.notours.tmp'), '');
    writeFileSync(path.join(dir, '.other.html.0123456789ab.tmp'), '');
    const past = new Date(Date.now() - 60_000);
    for (const name of readdirSync(dir)) utimesSync(path.join(dir, name), past, past);

    expect(run(['audit', 'in.xml', '-o', 'report.html', '-q']).status).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['.other.html.0123456789ab.tmp', '.report.html.notours.tmp', 'in.xml', 'report.html']);
  }, 60_000);

  it('are swept at the start of a run, even one that then fails on its input', () => {
    writeFileSync(path.join(dir, 'bad.xml'), '<nvidia_smi_log><gpu>');
    const leftover = path.join(dir, '.report.json.00112233aabb.tmp');
    writeFileSync(leftover, 'partial');
    const past = new Date(Date.now() - 60_000);
    utimesSync(leftover, past, past);
    expect(run(['audit', 'bad.xml', '-o', 'report.json']).status).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(['bad.xml', 'in.xml']);
  });
});

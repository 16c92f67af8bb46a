/**
 * `gpu-audit init` end to end: the wizard driven by scripted answers (in process, through the
 * command's own code) and by a real pseudo-terminal (the built CLI with @inquirer/prompts),
 * `--yes` for scripts, and the rules about existing files and terminals. Every file written
 * is then audited by the built CLI with `--config`, which must accept it. `npm test` builds
 * dist/ first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runInitCommand, type InitCommandOptions } from '../../src/cli/commands/init.js';
import type { CliIo } from '../../src/cli/io.js';
import { parseConfig } from '../../src/config/document/index.js';
import { InputError } from '../../src/support/errors.js';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { DEFAULT, scriptedPrompter, type ScriptedAnswer } from '../cli/init/scripted-prompter.js';

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'gpu-audit-init-'));
}

/** The demo audited with `file` as its config, through the built CLI. */
function auditDemoWith(file: string): Report {
  const run = runBuiltCli(['audit', '--demo', '--config', file, '--format', 'json']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Report;
}

/** A terminal as init sees it: output collected, stdin a TTY. */
function terminalIo(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  return { out, err, stdout: (text) => out.push(text), stderr: (text) => err.push(text), stdoutIsTty: true, stderrIsTty: false, env: {}, stdin };
}

const demoOptions = (output: string): InitCommandOptions => ({ demo: true, output, idleThreshold: 5, timezone: 'UTC', pricing: 'on-demand', quiet: true });

/** Answers for the demo's seven proposals (test/config/propose.test.ts lists them). */
const DEMO_SCRIPT: ScriptedAnswer[] = [
  { confirm: true, about: /vllm/ }, { input: 'chat' }, { select: DEFAULT }, { input: 'product-a' }, { number: 800, about: /p95/ },
  { confirm: true, about: /tritonserver/ }, { input: 'rerank-triton' }, { select: DEFAULT }, { input: 'product-a' }, { number: 50 },
  { confirm: true, about: /embed_batch/ }, { input: DEFAULT }, { select: DEFAULT }, { input: 'product-b' },
  { confirm: true, about: /pytest/ }, { input: 'gpu-ci' }, { select: DEFAULT }, { input: 'platform' },
  { confirm: true, about: /nightly_eval/ }, { input: 'nightly-eval' }, { select: DEFAULT }, { input: 'research' },
  { confirm: true, about: /ipykernel/ }, { input: 'notebooks' }, { select: DEFAULT }, { input: 'research' },
  { confirm: true, about: /train\.py/ }, { input: 'llama-pretrain' }, { select: DEFAULT }, { input: 'foundation' },
  { number: DEFAULT, about: /waste/ }, { number: DEFAULT, about: /utilization/ },
  { select: 'aws' }, { select: DEFAULT },
];

describe('init with scripted answers', () => {
  const directory = tempDir();
  const file = path.join(directory, 'gpu-audit.yaml');

  it('writes the config the answers describe, and audit accepts it', async () => {
    const prompter = scriptedPrompter(DEMO_SCRIPT);
    const io = terminalIo();
    const code = await runInitCommand([], demoOptions(file), io, { openPrompter: () => Promise.resolve(prompter), now: () => new Date('2026-11-29T12:00:00Z') }, false);
    expect(code).toBe(0);
    expect(prompter.remaining()).toBe(0);
    // fixtures/demo/README.md: 8 H100 + 2 H200 + 2 A100 (with 6 MIG devices) + 4 A10G = 16 GPUs.
    expect(io.out.join('')).toBe('Audited 16 GPUs (6 MIG devices) on 4 hosts: 7 workloads to name. Enter keeps a proposal.\n');
    const config = parseConfig(readFileSync(file, 'utf8'), file);
    expect(config.workloads?.map((workload) => [workload.name, workload.kind, workload.tenant, workload.slo?.p95Ms])).toEqual([
      ['chat', 'inference', 'product-a', 800],
      ['rerank-triton', 'inference', 'product-a', 50],
      ['embed_batch', 'batch', 'product-b', undefined],
      ['gpu-ci', 'batch', 'platform', undefined],
      ['nightly-eval', 'batch', 'research', undefined],
      ['notebooks', 'interactive', 'research', undefined],
      ['llama-pretrain', 'training', 'foundation', undefined],
    ]);
    // The demo wastes 63.4 % (up to 65) at a mean compute of 33.3 % (down to 30).
    expect(config.thresholds).toEqual({ 'max-waste-pct': 65, 'min-utilization': 30 });
    expect(config.pricing).toEqual({ provider: 'aws', model: 'on-demand' });

    const report = auditDemoWith(file);
    // Every device that ran a process belongs to a named workload; only the two MIG devices that
    // never ran anything (mig-a100-01 GPU 0 GI 10, GPU 1 GI 2) are left unassigned.
    const unassigned = report.workloads.find((workload) => workload.name === 'unassigned');
    const busy = report.gpus.filter((gpu) => gpu.processes.length > 0);
    expect(busy).toHaveLength(18);
    for (const gpu of busy) expect(unassigned?.gpus ?? [], gpu.id).not.toContain(gpu.id);
    expect(unassigned?.gpus).toEqual(['GPU-0239aaaf-0832-ac72-e990-1c0dca98e074/10', 'GPU-021f10fe-121f-0b74-16cc-3795f287b5dd/2']);
    expect(report.workloads.find((workload) => workload.name === 'chat')).toMatchObject({ kind: 'inference', tenant: 'product-a', gpus: ['GPU-de5502a7-95c6-3d52-ef82-4158f0f42ce9', 'GPU-717c8486-a1d3-e4cd-a22e-e8a74c52ba89'] });
  });

  it('asks before replacing an existing file, No by default: the file stays as it was', async () => {
    writeFileSync(file, 'workloads: []\n');
    const prompter = scriptedPrompter([{ confirm: DEFAULT, about: /exists\. Replace it\?/ }]);
    const io = terminalIo();
    expect(await runInitCommand([], demoOptions(file), io, { openPrompter: () => Promise.resolve(prompter), now: () => new Date() }, false)).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('workloads: []\n');
    expect(io.err.join('')).toContain('nothing was written');
  });

  it('replaces it when the user says yes', async () => {
    const prompter = scriptedPrompter([{ confirm: true, about: /exists/ }, ...DEMO_SCRIPT]);
    expect(await runInitCommand([], demoOptions(file), terminalIo(), { openPrompter: () => Promise.resolve(prompter), now: () => new Date() }, false)).toBe(0);
    expect(parseConfig(readFileSync(file, 'utf8'), file).workloads).toHaveLength(7);
  });
});

describe('init cancelled with Ctrl-C', () => {
  it('ends with an input error (exit 2) and writes nothing', async () => {
    const file = path.join(tempDir(), 'gpu-audit.yaml');
    // What @inquirer/prompts throws when the user presses Ctrl-C in a prompt.
    const cancelled = Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' });
    const prompter = { ...scriptedPrompter([]), confirm: () => Promise.reject(cancelled) };
    const run = runInitCommand([], demoOptions(file), terminalIo(), { openPrompter: () => Promise.resolve(prompter), now: () => new Date() }, false);
    await expect(run).rejects.toThrow(InputError);
    await expect(run).rejects.toThrow('init cancelled: nothing was written');
    expect(existsSync(file)).toBe(false);
  });
});

describe('init --yes (built CLI)', () => {
  it('writes every proposal without a terminal; audit accepts the file', () => {
    const file = path.join(tempDir(), 'fleet.yaml');
    const run = runBuiltCli(['init', '--demo', '--yes', '-o', file]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`wrote ${file} (7 workloads)`);
    const report = auditDemoWith(file);
    expect(report.workloads.map((workload) => workload.name)).toEqual(['vllm', 'tritonserver', 'embed_batch', 'pytest', 'nightly_eval', 'ipykernel_launcher', 'train', 'unassigned']);
  });

  it('refuses to replace an existing file unless --force', () => {
    const directory = tempDir();
    const file = path.join(directory, 'gpu-audit.yaml');
    writeFileSync(file, '# mine\n');
    const refused = runBuiltCli(['init', '--demo', '--yes'], { cwd: directory });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe('gpu-audit: gpu-audit.yaml: the file exists: pass --force to replace it, or name another with -o\n');
    expect(readFileSync(file, 'utf8')).toBe('# mine\n');
    const forced = runBuiltCli(['init', '--demo', '--yes', '--force', '--quiet'], { cwd: directory });
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^# yaml-language-server: \$schema=/);
  });

  it('reads no existing config: a broken gpu-audit.yaml can be replaced', () => {
    const directory = tempDir();
    writeFileSync(path.join(directory, 'gpu-audit.yaml'), 'workloads: [\n');
    const run = runBuiltCli(['init', '--demo', '--yes', '--force', '--quiet'], { cwd: directory });
    expect(run.status, run.stderr).toBe(0);
  });

  it('exits 2 without a terminal and without --yes, writing nothing', () => {
    const directory = tempDir();
    const run = runBuiltCli(['init', '--demo'], { cwd: directory });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('gpu-audit: init asks questions and needs a terminal: run it in one, or pass --yes to accept every proposal\n');
    expect(existsSync(path.join(directory, 'gpu-audit.yaml'))).toBe(false);
  });
});

/**
 * Drives the built CLI through a pseudo-terminal with Python's pty module: whenever the
 * screen has been still for a moment, it presses Enter. Every answer is then the default.
 */
const PTY_DRIVER = `
import os, pty, select, sys, time
import fcntl, struct, termios
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
# A terminal of 40 rows and 120 columns (a fresh pseudo-terminal has none).
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
deadline = time.time() + 100
last = time.time()
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.1)
    if ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        sys.stdout.buffer.write(data)
        last = time.time()
    elif time.time() - last > 0.25:
        os.write(fd, b'\\r')
        last = time.time()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;

describe.skipIf(spawnSync('python3', ['--version']).status !== 0)('init in a real terminal (pseudo-terminal, @inquirer/prompts)', () => {
  it('pressing Enter at every question writes what --yes writes', () => {
    const directory = tempDir();
    const driver = path.join(directory, 'drive.py');
    writeFileSync(driver, PTY_DRIVER);
    const run = spawnSync('python3', [driver, process.execPath, path.join(repoRoot, 'bin/gpu-audit.js'), 'init', '--demo', '-o', 'tty.yaml'], {
      cwd: directory, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', CI: undefined },
    });
    expect(run.status, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/Keep workload .*vllm/);
    expect(run.stdout).toMatch(/p95 latency objective/);
    const yes = runBuiltCli(['init', '--demo', '--yes', '-o', 'yes.yaml'], { cwd: directory });
    expect(yes.status, yes.stderr).toBe(0);
    const read = (name: string) => parseConfig(readFileSync(path.join(directory, name), 'utf8'), name);
    expect(read('tty.yaml')).toEqual(read('yes.yaml'));
  });
});

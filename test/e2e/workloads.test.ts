/**
 * Workloads through the built CLI: the demo's config assigns every process and device, the
 * table has a per-workload section, config errors exit 2 with the exact path, and flags win
 * over the config. `npm test` builds dist/ first.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';

const NOTEBOOK_LOG = path.join(repoRoot, 'fixtures/demo/notebook-a10g-01.xml.gz');

/** A directory holding a repository root (.git) and these files; returns its path. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'gpu-audit-workloads-'));
  mkdirSync(path.join(root, '.git'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), content);
  }
  return root;
}

function jsonReport(args: string[], cwd?: string): Report {
  const run = runBuiltCli([...args, '--format', 'json'], cwd === undefined ? {} : { cwd });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Report;
}

describe('audit --demo with the demo fleet\'s gpu-audit.yaml', () => {
  const report = jsonReport(['audit', '--demo']);

  it('writes workloads that validate against the shipped report schema', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(repoRoot, 'schema/report.schema.json'), 'utf8')) as object);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  });

  it('assigns every process and every device to a configured workload: nothing is unassigned', () => {
    expect(report.workloads.map((workload) => workload.name)).toEqual([
      'llama-pretrain', 'chat-8b', 'code-13b', 'rerank-triton', 'embed-batch', 'gpu-ci', 'nightly-eval', 'notebooks',
    ]);
    const assigned = new Set(report.workloads.flatMap((workload) => workload.gpus));
    const boards = new Set(report.gpus.map((gpu) => gpu.parentId).filter((id) => id !== null));
    const devices = report.gpus.filter((gpu) => !boards.has(gpu.id));
    expect(devices).toHaveLength(20); // 14 GPUs without MIG + 6 MIG instances
    for (const device of devices) expect(assigned.has(device.id), device.id).toBe(true);
    expect(report.gpus.filter((gpu) => gpu.processes.length > 0).every((gpu) => assigned.has(gpu.id))).toBe(true);
  });

  it('profiles the vLLM servers from their model facts, not from what vLLM reserved', () => {
    const chat = report.workloads.find((workload) => workload.name === 'chat-8b')!;
    expect(chat).toMatchObject({ kind: 'inference', tenant: 'product-a', version: '2026.11.1', gpus: ['GPU-de5502a7-95c6-3d52-ef82-4158f0f42ce9'] });
    expect(chat.vram).toMatchObject({ peakMiB: 62_418, basis: 'estimated', preallocating: true, preallocatingServer: 'vLLM' });
    // 8.03e9 x 2 B = 15,316.01 MiB + KV 16,384 MiB + 1,024 + 1,531.60 = 34,255.61 MiB; x 1.15 = 39,393.95 MiB
    expect(chat.vram.requiredMiB).toBeCloseTo(39_393.95, 1);
    expect(chat.vram.estimate!.terms.map((term) => term.term)).toEqual(['weights', 'kv-cache', 'runtime-overhead']);
  });

  it('prices the training job from the catalog and charges its nights as idle waste', () => {
    const training = report.workloads.find((workload) => workload.name === 'llama-pretrain')!;
    const h100 = report.gpus.filter((gpu) => gpu.host === 'train-h100-01');
    const hourly = h100.reduce((sum, gpu) => sum + gpu.hourlyCostUsd!, 0);
    expect(training.gpus).toHaveLength(8);
    expect(training.cost.hourlyUsd).toBeCloseTo(hourly, 9);
    expect(training.cost.monthlyUsd).toBeCloseTo(hourly * 730, 6);
    // Needs 72,788 x 1.15 = 83,706 MiB > 81,559: no VRAM waste; idle 120 of 312 samples.
    expect(training.vram.basis).toBe('measured');
    expect(training.cost.wasteBreakdown!.vramOverprovisionMonthlyUsd).toBe(0);
    expect(training.compute.idleFraction).toBeCloseTo(120 / 312, 3);
  });

  it('prints a per-workload table within 100 columns', () => {
    const run = runBuiltCli(['audit', '--demo']);
    expect(run.status, run.stderr).toBe(0);
    const section = run.stdout.slice(run.stdout.indexOf('Workloads (8)'));
    expect(section).toMatch(/^workload\s+kind\s+GPUs\s+peak\s+need\s+VRAM\s+comp\s+mean\s+busy\s+CPU\s+sidecar\s+cost\s+waste/m);
    expect(section).toMatch(/^llama-pretrain\s+training\s+8\s+71\.1\s+81\.7\s+meas\s+util\s+57\.7\s+61\.5\s+unknown\s+-\s+\$[\d,]+\s+\$[\d,]+$/m);
    expect(section).toMatch(/^chat-8b\s+inference\s+1\s+61\.0\s+38\.5\s+est\s+util/m);
    for (const line of section.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });

  it('lists the VRAM estimates term by term in Markdown', () => {
    const run = runBuiltCli(['audit', '--demo', '--format', 'markdown']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('**VRAM estimate** (weights + KV cache + runtime overhead per GPU, from the model facts in gpu-audit.yaml): 53,899 MiB per GPU');
    expect(run.stdout).toContain('2 x 40 layers x 40 KV heads x 128 head dim x 2 B (bf16) x 32,768 tokens (4,096 context x 8 concurrent) = 25,600 MiB');
  });
});

describe('config errors end in one message naming the file, line and path, and exit code 2', () => {
  it.each([
    ['a typo in a key', 'workloads:\n  - name: a\n    kind: batch\n    tennant: x\n    match: { hosts: [h] }\n', 'line 4: workloads[0].tennant: unknown key `tennant`; did you mean `tenant`?'],
    ['a wrong type', 'workloads:\n  - name: a\n    kind: inference\n    match: { hosts: [h] }\n    slo: { p95Ms: fast }\n', 'line 5: workloads[0].slo.p95Ms: expected a positive number, got the string "fast"'],
    ['an invalid regular expression', 'workloads:\n  - name: a\n    kind: batch\n    match:\n      process: "[unclosed"\n', 'line 5: workloads[0].match.process: expected a valid regular expression (JavaScript syntax)'],
    ['a top-level typo', 'workload: []\n', 'line 1: workload: unknown key `workload`; did you mean `workloads`?'],
  ])('%s', (_name, yaml, expected) => {
    const root = project({ 'gpu-audit.yaml': yaml });
    const run = runBuiltCli(['audit', NOTEBOOK_LOG], { cwd: root });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`gpu-audit: ${path.join(root, 'gpu-audit.yaml')}: ${expected}\n`);
  });

  it('a YAML syntax error', () => {
    const root = project({ 'bad.yaml': 'workloads:\n  - name: a\n   kind: batch\n' });
    const run = runBuiltCli(['audit', '--demo', '--config', path.join(root, 'bad.yaml')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^gpu-audit: .*bad\.yaml: line 3: YAML syntax: /);
  });

  it('a --config file that does not exist', () => {
    const run = runBuiltCli(['audit', '--demo', '--config', 'no-such-gpu-audit.yaml']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('gpu-audit: no-such-gpu-audit.yaml: cannot read the config: no such file\n');
  });
});

describe('where the config comes from', () => {
  const NOTEBOOKS = 'workloads:\n  - name: jupyter\n    kind: interactive\n    tenant: research\n    match: { process: ipykernel }\n';

  it('is discovered in a parent directory of the working directory', () => {
    const root = project({ 'gpu-audit.yaml': NOTEBOOKS, 'logs/readme.txt': '' });
    const report = jsonReport(['audit', NOTEBOOK_LOG, '--timezone', 'UTC'], path.join(root, 'logs'));
    expect(report.workloads.map((workload) => [workload.name, workload.gpus.length])).toEqual([['jupyter', 4]]);
  });

  it('groups what no workload matches as unassigned', () => {
    const root = project({ 'gpu-audit.yaml': 'workloads:\n  - name: other\n    kind: batch\n    match: { process: nothing-like-this }\n' });
    const report = jsonReport(['audit', NOTEBOOK_LOG, '--timezone', 'UTC'], root);
    expect(report.workloads.map((workload) => [workload.name, workload.kind, workload.gpus.length])).toEqual([['other', 'batch', 0], ['unassigned', 'unknown', 4]]);
  });

  it('is the --config file when one is named, also with --demo', () => {
    const root = project({ 'mine.yaml': NOTEBOOKS });
    const report = jsonReport(['audit', '--demo', '--config', path.join(root, 'mine.yaml')]);
    expect(report.workloads.map((workload) => workload.name)).toEqual(['jupyter', 'unassigned']);
  });

  it('yields to the flags the user typed', () => {
    const root = project({ 'gpu-audit.yaml': `${NOTEBOOKS}idleThresholdPct: 50\npricing: { model: spot }\nhosts:\n  notebook-*: { instanceType: g5.48xlarge }\n` });
    const fromConfig = jsonReport(['audit', NOTEBOOK_LOG, '--timezone', 'UTC'], root);
    expect(fromConfig.settings).toMatchObject({ idleThresholdPct: 50, pricing: 'spot' });
    expect(fromConfig.gpus[0]).toMatchObject({ instanceType: 'g5.48xlarge', instanceTypeBasis: 'config' });
    // --idle-threshold 5 is the default value, typed: it still wins.
    const fromFlags = jsonReport(['audit', NOTEBOOK_LOG, '--timezone', 'UTC', '--idle-threshold', '5', '--pricing', 'on-demand', '--instance-type', 'g5.12xlarge'], root);
    expect(fromFlags.settings).toMatchObject({ idleThresholdPct: 5, pricing: 'on-demand' });
    expect(fromFlags.gpus[0]).toMatchObject({ instanceType: 'g5.12xlarge', instanceTypeBasis: 'flag' });
  });
});

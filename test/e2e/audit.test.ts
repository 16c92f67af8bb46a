/**
 * The built CLI, run as a user runs it. `npm test` builds dist/ first.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { REPORT_SCHEMA_VERSION } from '../../src/model/report-constants.js';
import { runBuiltCli } from '../helpers/cli.js';
import { corpusPath, repoRoot } from '../helpers/corpus.js';

function validator(): (data: unknown) => boolean {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema/report.schema.json'), 'utf8')) as object;
  const validate = ajv.compile(schema);
  return (data) => {
    const ok = validate(data);
    if (!ok) console.error(validate.errors);
    return ok;
  };
}

function tempFile(name: string, content: string | Buffer): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-e2e-'));
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

function countMatches(text: string, pattern: RegExp): number {
  return [...text.matchAll(pattern)].length;
}

describe('gpu-audit audit on the corpus', () => {
  it('reports every GPU and MIG device of the 24 nvidia-smi XML files', () => {
    const folder = corpusPath('nvidia-smi-xml');
    const run = runBuiltCli(['audit', folder, '--format', 'json', '--timezone', 'UTC']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(validator()(report)).toBe(true);

    const files = readdirSync(folder).sort();
    expect(report.sources.map((source) => path.basename(source.ref))).toEqual(files);
    let physical = 0;
    let mig = 0;
    for (const file of files) {
      const xml = readFileSync(path.join(folder, file), 'utf8');
      physical += countMatches(xml, /<gpu id="/g);
      mig += countMatches(xml, /<mig_device>/g);
    }
    expect(report.gpus.filter((gpu) => gpu.parentId === null)).toHaveLength(physical);
    expect(report.gpus.filter((gpu) => gpu.parentId !== null)).toHaveLength(mig);
    expect(report.summary.gpuCount).toBe(physical);
    expect(report.sources.every((source) => source.format === 'nvidia-smi-xml')).toBe(true);
  });

  it('reads every nvidia-smi CSV, dmon and pmon file and skips the help text', () => {
    for (const folder of ['nvidia-smi-csv', 'nvidia-smi-dmon']) {
      const run = runBuiltCli(['audit', corpusPath(folder), '--format', 'json', '--timezone', 'UTC']);
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as Report;
      expect(validator()(report)).toBe(true);
      const skipped = report.sources.filter((source) => source.format === 'skipped').map((source) => path.basename(source.ref));
      expect(skipped).toEqual(folder === 'nvidia-smi-csv' ? ['netdata-help-query-gpu.txt'] : []);
      expect(report.gpus.length).toBeGreaterThan(0);
    }
  });
});

describe('gpu-audit audit --demo', () => {
  it('prints a readable table of the demo fleet', () => {
    const run = runBuiltCli(['audit', '--demo']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/H100/);
    expect(run.stdout).toMatch(/H200/);
    expect(run.stdout).toMatch(/A100/);
    for (const line of run.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    expect(run.stdout).not.toContain('\u001b[');
  });

  it('draws its tables at --width: no line past 80 columns at 80, and wider ones at 160', () => {
    const narrow = runBuiltCli(['audit', '--demo', '--width', '80']);
    expect(narrow.status, narrow.stderr).toBe(0);
    expect(Math.max(...narrow.stdout.split('\n').map((line) => [...line].length))).toBe(80);
    const wide = runBuiltCli(['audit', '--demo', '--width', '160']);
    expect(Math.max(...wide.stdout.split('\n').map((line) => [...line].length))).toBeGreaterThan(100);
    expect(runBuiltCli(['audit', '--demo', '--width', '20']).status).toBe(2);
  });

  it('writes JSON that validates against the shipped schema', () => {
    const run = runBuiltCli(['audit', '--demo', '--format', 'json']);
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(validator()(report)).toBe(true);
    expect(report.window.seconds).toBeGreaterThanOrEqual(24 * 3600);
    expect(report.summary.gpuHours).toBeGreaterThan(0);
  });

  it('renders Markdown', () => {
    const run = runBuiltCli(['audit', '--demo', '--format', 'markdown']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^# /m);
    expect(run.stdout).toMatch(/^\|.*\|$/m);
  });

  it('writes -o FILE and leaves stdout empty', () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'gpu-audit-out-')), 'report.json');
    const run = runBuiltCli(['audit', '--demo', '--format', 'json', '-o', out]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect((JSON.parse(readFileSync(out, 'utf8')) as Report).schemaVersion).toBe(REPORT_SCHEMA_VERSION);
  });
});

describe('bad input ends in one line naming the file, and exit code 2', () => {
  const cases: Array<[string, string | Buffer]> = [
    ['random.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))],
    ['empty.xml', ''],
    ['truncated.xml', '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n<nvidia_smi_log>\n\t<timestamp>Mon Aug  7 11:10:06 2023</timestamp>\n\t<gpu id="00000000:01:00.0">\n\t\t<product_name>NVIDIA A10'],
    ['wrong-header.csv', 'host, cpu, load\nnode1, 3, 0.5\n'],
  ];
  for (const [name, content] of cases) {
    it(name, () => {
      const file = tempFile(name, content);
      const run = runBuiltCli(['audit', file]);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(file);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('with --keep-going audits the good files, names the bad one and still exits 2', () => {
    const bad = tempFile('empty.xml', '');
    const good = corpusPath('nvidia-smi-xml', 'telegraf-tesla-t4.xml');
    const run = runBuiltCli(['audit', bad, good, '--keep-going', '--format', 'json']);
    expect(run.status).toBe(2);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.gpus).toHaveLength(1);
    expect(run.stderr).toContain(bad);
    // --quiet drops progress and notices, never the error that makes the exit code 2.
    const quiet = runBuiltCli(['audit', bad, good, '--keep-going', '-q', '--format', 'json']);
    expect(quiet.status).toBe(2);
    expect(quiet.stderr).toBe(`gpu-audit: skipped ${bad}: ${quiet.stderr.split(`${bad}: `)[1]}`);
    expect(quiet.stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
  });

  it('--input-limit moves a cap: past it the run is refused with exit 2 and the flag that reads more; a bad one is a usage error', () => {
    const directory = corpusPath('nvidia-smi-xml');
    const refused = runBuiltCli(['audit', directory, '--input-limit', 'files=2', '--format', 'json']);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/: more than 2 input files \(directories and globs expanded\); nothing was read: audit fewer at once, or read more with --input-limit files=N\n$/u);
    const good = corpusPath('nvidia-smi-xml', 'telegraf-tesla-t4.xml');
    expect(runBuiltCli(['audit', good, '--input-limit', 'files=1', '--input-limit', 'labels=8', '--format', 'json']).status).toBe(0);
    const usage = runBuiltCli(['audit', good, '--input-limit', 'lines=5']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('expected NAME=N with N a whole number of at least 1 and NAME one of labels, label-chars, series, files');
  });

  it('a usage error exits 2', () => {
    const run = runBuiltCli(['audit', '--format', 'pdf', '--demo']);
    expect(run.status).toBe(2);
  });
});

describe('help', () => {
  it('every command has help with examples', () => {
    for (const args of [['--help'], ['audit', '--help'], ['catalog', '--help']]) {
      const run = runBuiltCli(args);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('Examples:');
    }
  });
});

/**
 * `gpu-audit report REPORT.json`: re-rendering a saved report through the built CLI, without
 * the raw telemetry. `npm test` builds dist/ first.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli } from '../helpers/cli.js';

const temp = mkdtempSync(path.join(tmpdir(), 'gpu-audit-e2e-report-'));
const file = (name: string): string => path.join(temp, name);
let saved = '';
let savedText = '';

beforeAll(() => {
  saved = file('report.json');
  expect(runBuiltCli(['audit', '--demo', '--format', 'json', '-o', saved]).status).toBe(0);
  savedText = readFileSync(saved, 'utf8');
});

describe('gpu-audit report', () => {
  it('writes back the same JSON it read', () => {
    const run = runBuiltCli(['report', saved, '--format', 'json']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(savedText);
  });

  it('renders Markdown exactly as the audit would have, but for the time it was generated', () => {
    const run = runBuiltCli(['report', saved, '--format', 'markdown']);
    expect(run.status).toBe(0);
    const audited = runBuiltCli(['audit', '--demo', '--format', 'markdown']);
    const withoutTime = (text: string): string => text.replace(/^Generated .*$/mu, 'Generated (time)');
    expect(withoutTime(run.stdout)).toBe(withoutTime(audited.stdout));
    expect(run.stdout).toContain(`Generated ${(JSON.parse(savedText) as Report).generatedAt.slice(0, 10)}`);
  });

  it('renders the table by default', () => {
    const run = runBuiltCli(['report', saved]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('GPU audit report');
    expect(run.stdout).toContain('waste      63.4% of GPU-hours idle');
  });

  it('renders CSV with one row per GPU and MIG device', () => {
    const out = file('gpus.csv');
    const run = runBuiltCli(['report', saved, '--format', 'csv', '-o', out]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    const records = readFileSync(out, 'utf8').split('\r\n').filter((line) => line !== '');
    const report = JSON.parse(savedText) as Report;
    expect(records).toHaveLength(1 + report.gpus.length);
    expect(records[0]!.startsWith('host,gpu_id,')).toBe(true);
  });

  it('exits 2 naming the file and the JSON path of a bad report', () => {
    const bad = file('bad.json');
    const broken = JSON.parse(savedText) as { summary: { wastePct: unknown } };
    broken.summary.wastePct = '59.8%';
    writeFileSync(bad, JSON.stringify(broken));
    const run = runBuiltCli(['report', bad]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`${bad}: $.summary.wastePct: not a gpu-audit JSON report`);
    expect(run.stdout).toBe('');

    writeFileSync(bad, '{"schemaVersion": 1');
    expect(runBuiltCli(['report', bad]).stderr).toBe(`gpu-audit: ${bad}: end of file (cut short): not JSON: Unexpected end of JSON input\n`);
    expect(runBuiltCli(['report', file('none.json')]).status).toBe(2);
  });

  it('has --help with examples', () => {
    const run = runBuiltCli(['report', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Examples:');
    expect(run.stdout).toMatch(/--format <format>.*csv/su);
  });
});

describe('gpu-audit report: JUnit and SARIF of a saved report', () => {
  it('renders the findings as JUnit and SARIF in one run (no limits: the saved report is rendered, not gated)', () => {
    const [junit, sarif] = [file('saved.junit.xml'), file('saved.sarif')];
    const run = runBuiltCli(['report', saved, '-o', junit, '-o', sarif]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    const junitText = readFileSync(junit, 'utf8');
    expect(junitText).toContain('<testsuite name="findings"');
    expect(junitText).toContain('failures="0"');
    const log = JSON.parse(readFileSync(sarif, 'utf8')) as { runs: { results: { ruleId: string }[] }[] };
    expect(log.runs[0]!.results.length).toBeGreaterThan(0);
    expect(log.runs[0]!.results.every((result) => !result.ruleId.startsWith('threshold/'))).toBe(true);
  });

  it('never writes over the report it renders, whichever -o names it', () => {
    const run = runBuiltCli(['report', saved, '-o', file('other.md'), '-o', saved]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('-o would overwrite what this run reads (it is the report being rendered)');
    expect(readFileSync(saved, 'utf8')).toBe(savedText);
  });
});


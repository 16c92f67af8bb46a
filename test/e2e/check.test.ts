/**
 * `gpu-audit check` through the built CLI, as a CI job runs it. `npm test` builds dist/ first.
 * The demo fleet wastes 63.4 % of its GPU-hours (264.1 idle of 416.5, idle MIG slices included): see `audit --demo`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/model/check-report.js';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { sarifValidator } from '../render/sarif-validator.js';

const temp = mkdtempSync(path.join(tmpdir(), 'gpu-audit-e2e-check-'));
const file = (name: string): string => path.join(temp, name);
/** Runs outside GitHub Actions unless a test says otherwise. */
const local = { GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined };
const check = (args: string[], env: NodeJS.ProcessEnv = {}) => runBuiltCli(['check', ...args], { env: { ...local, ...env } });

let demoReportFile = '';
let demoReport: Report;

beforeAll(() => {
  demoReportFile = file('demo.json');
  const run = runBuiltCli(['audit', '--demo', '--format', 'json', '-o', demoReportFile]);
  expect(run.status).toBe(0);
  demoReport = JSON.parse(readFileSync(demoReportFile, 'utf8')) as Report;
});

describe('gpu-audit check: limits', () => {
  it('exits 1 and names the breached limit with its actual value when --max-waste-pct 10 is breached', () => {
    const run = check(['--demo', '--max-waste-pct', '10']);
    expect(run.status).toBe(1);
    const [headline, limit] = run.stdout.split('\n');
    expect(headline).toBe('gpu-audit check FAILED: 1 limit(s) breached, 0 error-level finding(s)');
    expect(limit!.split(/\s+/u).filter(Boolean)).toEqual(['FAIL', 'max-waste-pct', 'fleet', '63.4', '%', 'limit', '<=', '10', '%']);
    expect(run.stdout).toContain('GPU audit report'); // the summary follows the verdict
    expect(run.stderr).toBe('');
  });

  it('gates on the plan\'s savings with --max-savings-usd', () => {
    const limit = Math.floor(demoReport.plan!.monthlySavingsUsd) - 1;
    const run = check(['--demo', '--max-savings-usd', String(limit)]);
    expect(run.status).toBe(1);
    const shown = `$${Math.round(demoReport.plan!.monthlySavingsUsd).toLocaleString('en-US')}/month`;
    expect(run.stdout.split('\n')[1]!.split(/\s+/u).filter(Boolean)).toEqual(['FAIL', 'max-savings-usd', 'fleet', shown, 'limit', '<=', `$${limit.toLocaleString('en-US')}/month`]);
    expect(check(['--demo', '--max-savings-usd', String(limit + 2)]).status).toBe(0);
  });

  it('exits 0 with --max-waste-pct 99', () => {
    const run = check(['--demo', '--max-waste-pct', '99']);
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('gpu-audit check PASSED: 0 limit(s) breached, 0 error-level finding(s)');
  });

  it('fails on findings only for codes set to error', () => {
    // The demo has idle-gpu findings (the four notebook A10Gs are idle the whole window).
    const run = check(['--demo', '--finding-level', 'idle-gpu=error', '--format', 'json']);
    expect(run.status).toBe(1);
    const output = JSON.parse(run.stdout) as CheckReport;
    expect(output.check.findings.filter((finding) => finding.failsCheck).map((finding) => finding.code)).toEqual(
      output.report.findings.filter((finding) => finding.code === 'idle-gpu').map(() => 'idle-gpu'),
    );
    expect(check(['--demo', '--finding-level', 'idle-gpu=warn']).status).toBe(0);
  });

  it('reads limits from thresholds: in gpu-audit.yaml, a flag winning over the file', () => {
    const config = file('gpu-audit.yaml');
    writeFileSync(config, 'thresholds:\n  max-waste-pct: 10\n  findings:\n    idle-gpu: warn\n');
    const fromFile = check(['--demo', '--config', config]);
    expect(fromFile.status).toBe(1);
    expect(fromFile.stdout.split('\n')[1]).toMatch(/^ {2}FAIL +max-waste-pct +fleet +63\.4 % +limit <= 10 %$/u);
    expect(check(['--demo', '--config', config, '--max-waste-pct', '99']).status).toBe(0);

    writeFileSync(config, 'thresholds:\n  max-wast-pct: 10\n');
    const typo = check(['--demo', '--config', config]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain(`${config}: line 2: thresholds["max-wast-pct"]: unknown key \`max-wast-pct\`; did you mean \`max-waste-pct\`?`);
  });

  it('exits 2 on a finding code that is not one, flag or config, instead of passing a gate nothing reads', () => {
    const flag = check(['--demo', '--finding-level', 'idle=error']);
    expect(flag.status).toBe(2);
    expect(flag.stdout).toBe('');
    expect(flag.stderr).toContain('unknown finding code `idle`; did you mean `idle-gpu`?');
    const config = file('gpu-audit.yaml');
    writeFileSync(config, 'thresholds:\n  findings: { idel-gpu: error }\n');
    const typo = check(['--demo', '--config', config]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain(`${config}: line 2: thresholds.findings["idel-gpu"]: unknown key \`idel-gpu\`; did you mean \`idle-gpu\`?`);
  });

  it('with --keep-going, exits 2 when inputs were skipped and nothing failed, 1 when something did', () => {
    const broken = file('broken.xml');
    writeFileSync(broken, '<?xml version="1.0"?>\n<nvidia_smi_log><gpu id="00000000:01:00.0"><uuid>cut');
    const training = path.join(repoRoot, 'fixtures/demo/train-h100-01.xml.gz');
    const incomplete = check([training, broken, '--keep-going', '--timezone', 'UTC', '--max-waste-pct', '99']);
    expect(incomplete.status).toBe(2);
    expect(incomplete.stdout.split('\n')[0]).toBe('gpu-audit check INCOMPLETE (inputs skipped): 0 limit(s) breached, 0 error-level finding(s)');
    expect(incomplete.stdout).toContain(`SKIPPED input ${broken}`);
    expect(incomplete.stderr).toContain(`gpu-audit: skipped ${broken}`);
    // The training node alone idles 38.5 % of its GPU-hours: a breach of 10 % whatever the broken file held.
    expect(check([training, broken, '--keep-going', '--timezone', 'UTC', '--max-waste-pct', '10']).status).toBe(1);
  });

  it('says on stderr when no limit is set, and passes', () => {
    const run = check(['--demo']);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('no limit set');
    expect(check(['--demo', '--quiet']).stderr).toBe('');
  });

  it.each([
    [['--max-waste-pct', '120'], 'expected a percentage from 0 to 100'],
    [['--max-idle-gpu-hours', '-1'], 'expected a number >= 0'],
    [['--finding-level', 'idle-gpu=fatal'], 'expected CODE=LEVEL'],
    [['--format', 'pdf'], 'pdf'],
  ])('exits 2 on a usage error: %j', (args, message) => {
    const run = check(['--demo', ...args]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('has --help with examples and the exit codes', () => {
    const run = runBuiltCli(['check', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Examples:');
    expect(run.stdout).toContain('--max-waste-pct <pct>');
    expect(run.stdout).toContain('--min-vram-headroom-pct <pct>');
    expect(run.stdout).toContain('Exit codes:');
  });
});

describe('gpu-audit check --baseline', () => {
  it('exits 0 against its own report', () => {
    const run = check(['--demo', '--baseline', demoReportFile]);
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(`gpu-audit check PASSED: 0 regression(s) since ${demoReportFile}`);
    expect(run.stdout).not.toContain('REGRESSED');
  });

  it('checks a saved report as it is, without auditing again: the same verdict as the audit it came from', () => {
    const fromFile = check([demoReportFile, '--max-waste-pct', '30', '--format', 'json']);
    const fromAudit = check(['--demo', '--max-waste-pct', '30', '--format', 'json']);
    expect(fromFile.status).toBe(1);
    expect(fromAudit.status).toBe(1);
    const verdict = (stdout: string): unknown => (JSON.parse(stdout) as { check: unknown }).check;
    expect(verdict(fromFile.stdout)).toEqual(verdict(fromAudit.stdout));
  });

  it('takes a percentage limit with its sign, as --headroom does', () => {
    expect(check(['--demo', '--max-waste-pct', '99%']).status).toBe(0);
    expect(check(['--demo', '--max-waste-pct', '10%']).status).toBe(1);
    expect(check(['--demo', '--max-waste-pct', '120%']).status).toBe(2);
  });

  it('says in one line when the baseline was made under another setting, and says nothing when it was not', () => {
    const other = file('other-threshold.json');
    expect(runBuiltCli(['audit', '--demo', '--idle-threshold', '10', '--format', 'json', '-o', other]).status).toBe(0);
    const run = check(['--demo', '--baseline', other]);
    expect(run.stderr).toContain(`gpu-audit: the baseline ${other} was made with --idle-threshold 10, this run with 5: figures compared across them move with the setting\n`);
    expect(check(['--demo', '--baseline', demoReportFile]).stderr).not.toContain('was made with');
  });

  it('exits 1 against the report of a better fleet and lists the regressions', () => {
    // The better fleet: the training node alone (its eight H100s idle 38.5 %, mean utilization 57.6 %).
    // The whole demo: waste 63.4 %, utilization 33.6 %: both worse by far more than 5 points.
    const better = file('better.json');
    expect(runBuiltCli(['audit', '--demo', '--format', 'json', '-o', better]).status).toBe(0);
    const betterReport = JSON.parse(readFileSync(better, 'utf8')) as Report;
    const training = betterReport.gpus.filter((gpu) => gpu.host === 'train-h100-01');
    const trainingHours = training.reduce((sum, gpu) => sum + gpu.gpuHours, 0);
    const trainingIdle = training.reduce((sum, gpu) => sum + gpu.idleHours, 0);
    betterReport.gpus = training;
    betterReport.findings = betterReport.findings.filter((finding) => training.some((gpu) => gpu.id === finding.target));
    betterReport.summary = {
      ...betterReport.summary,
      gpuCount: 8,
      migDeviceCount: 0,
      hostCount: 1,
      gpuHours: trainingHours,
      idleGpuHours: trainingIdle,
      wastePct: (trainingIdle / trainingHours) * 100,
      meanUtilization: training.reduce((sum, gpu) => sum + gpu.utilization!.mean * gpu.gpuHours, 0) / trainingHours,
    };
    writeFileSync(better, JSON.stringify(betterReport));

    const run = check(['--demo', '--baseline', better, '--format', 'json']);
    expect(run.status).toBe(1);
    const output = JSON.parse(run.stdout) as CheckReport;
    const regressions = output.check.baseline!.regressions;
    expect(regressions.map((change) => [change.kind, change.figure?.figure])).toEqual([
      ['figure-worsened', 'wastePct'],
      ['figure-worsened', 'meanUtilization'],
    ]);
    expect(regressions[0]!.figure!.baseline).toBeCloseTo(38.46, 1);
    expect(regressions[0]!.figure!.current).toBeCloseTo(demoReport.summary.wastePct!, 6);
    // The GPUs the baseline did not have are notes, not regressions.
    expect(output.check.baseline!.notes.filter((change) => change.kind === 'new-gpu')).toHaveLength(demoReport.gpus.length - 8);

    const table = check(['--demo', '--baseline', better]);
    expect(table.status).toBe(1);
    expect(table.stdout).toMatch(/REGRESSED wastePct of the fleet: 38\.5% -> 63\.4% \(\+24\.9 points; tolerance 5 points\)/u);
    // A wider tolerance forgives the utilization drop (24 points) but not the waste (21.4 points)... both under 30:
    expect(check(['--demo', '--baseline', better, '--baseline-tolerance', '30']).status).toBe(0);
  });

  it('reads a check --format json output as baseline too', () => {
    const saved = file('check-output.json');
    expect(check(['--demo', '--format', 'json', '-o', saved]).status).toBe(0);
    expect(check(['--demo', '--baseline', saved]).status).toBe(0);
  });

  it('exits 2 naming the file and the JSON path of a bad baseline, before auditing', () => {
    const bad = file('bad.json');
    const broken = structuredClone(demoReport) as unknown as { gpus: { idleHours: unknown }[] };
    broken.gpus[2]!.idleHours = 'lots';
    writeFileSync(bad, JSON.stringify(broken));
    const run = check(['--demo', '--baseline', bad]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^gpu-audit: ${bad.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}: \\$\\.gpus\\[2\\]\\.idleHours: not a gpu-audit JSON report`, 'u'));
    expect(run.stdout).toBe('');
    expect(check(['--demo', '--baseline', file('missing.json')]).stderr).toContain('missing.json: no such file');
  });
});

describe('gpu-audit check outputs for CI', () => {
  it('--format json is { report, check } on stdout alone, even with GitHub annotations on', () => {
    const run = check(['--demo', '--max-waste-pct', '10', '--format', 'json'], { GITHUB_ACTIONS: 'true' });
    expect(run.status).toBe(1);
    const output = JSON.parse(run.stdout) as CheckReport;
    expect(Object.keys(output)).toEqual(['report', 'check']);
    expect(output.check).toMatchObject({ verdict: 'fail', exitCode: 1 });
    expect(run.stderr.split('\n')[0]).toBe('::error title=gpu-audit check%3A max-waste-pct::max-waste-pct on fleet: 63.4 %25, limit <= 10 %25');
    expect(run.stderr).toMatch(/^::warning title=gpu-audit idle-gpu::/mu);
  });

  it('--quiet keeps only the error annotations', () => {
    const run = check(['--demo', '--max-waste-pct', '10', '--quiet'], { GITHUB_ACTIONS: 'true' });
    expect(run.stderr.trimEnd().split('\n')).toEqual(['::error title=gpu-audit check%3A max-waste-pct::max-waste-pct on fleet: 63.4 %25, limit <= 10 %25']);
  });

  it('appends the verdict to GITHUB_STEP_SUMMARY, run after run', () => {
    const summary = file('step-summary.md');
    writeFileSync(summary, '## build\n');
    expect(check(['--demo', '--max-waste-pct', '10', '-q'], { GITHUB_STEP_SUMMARY: summary }).status).toBe(1);
    expect(check(['--demo', '--max-waste-pct', '99', '-q'], { GITHUB_STEP_SUMMARY: summary }).status).toBe(0);
    const text = readFileSync(summary, 'utf8');
    expect(text.startsWith('## build\n')).toBe(true);
    expect(text).toContain('| FAIL | max-waste-pct | fleet | 63.4 % | ≤ 10 % |');
    expect(text).toContain('| PASS | max-waste-pct | fleet | 63.4 % | ≤ 99 % |');
  });

  it('warns in one line, and keeps the verdict, when the step summary cannot be appended to', () => {
    const summary = file('no-such-folder/step-summary.md');
    const run = check(['--demo', '--max-waste-pct', '99', '-q'], { GITHUB_STEP_SUMMARY: summary });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe(`gpu-audit: warning: ${summary}: cannot append the step summary (ENOENT)\n`);
  });

  it('--format junit is well-formed JUnit with a failing case for the breached limit', () => {
    const run = check(['--demo', '--max-waste-pct', '10', '--min-vram-headroom-pct', '5', '--format', 'junit']);
    expect(run.status).toBe(1);
    expect(XMLValidator.validate(run.stdout)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testsuite' || name === 'testcase' }).parse(run.stdout) as {
      testsuites: { failures: string; testsuite: { name: string; tests: string; testcase: { name: string; failure?: { type: string } }[] }[] };
    };
    const thresholds = parsed.testsuites.testsuite.find((suite) => suite.name === 'thresholds')!;
    // One case for max-waste-pct and one per checked device: the 16 GPUs and 6 MIG devices less the 2 MIG parents.
    expect(thresholds.testcase).toHaveLength(1 + demoReport.gpus.length - 2);
    expect(thresholds.testcase[0]).toMatchObject({ name: 'max-waste-pct', failure: { type: 'max-waste-pct' } });
    expect(parsed.testsuites.failures).toBe('1');
  });

  it('--format sarif validates against the SARIF 2.1.0 schema', () => {
    const run = check(['--demo', '--max-waste-pct', '10', '--format', 'sarif']);
    expect(run.status).toBe(1);
    const log = JSON.parse(run.stdout) as { runs: { results: { ruleId: string; level: string }[] }[] };
    expect(sarifValidator()(log)).toBe(true);
    expect(log.runs[0]!.results.filter((result) => result.level === 'error').map((result) => result.ruleId)).toEqual(['threshold/max-waste-pct']);
  });

  it('-o writes the output to the file and nothing to stdout', () => {
    const out = file('check.md');
    const run = check(['--demo', '--max-waste-pct', '10', '--format', 'markdown', '-o', out]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(readFileSync(out, 'utf8').startsWith('## gpu-audit check FAILED')).toBe(true);
  });
});

describe('gpu-audit check: one run, every CI output', () => {
  const pinned = { SOURCE_DATE_EPOCH: '1796169600' };
  const limits = ['--demo', '--max-waste-pct', '10'];

  it('writes JSON, SARIF, JUnit and Markdown from one audit, each as its own --format run would', () => {
    const outputs = { json: file('all.json'), sarif: file('all.sarif'), junit: file('all.junit.xml'), markdown: file('all.md') };
    const run = check([...limits, ...Object.values(outputs).flatMap((out) => ['-o', out])], pinned);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    for (const [format, out] of Object.entries(outputs)) {
      expect(readFileSync(out, 'utf8'), format).toBe(check([...limits, '--format', format], pinned).stdout);
    }
    expect((JSON.parse(readFileSync(outputs.json, 'utf8')) as CheckReport).check.verdict).toBe('fail');
    expect(sarifValidator()(JSON.parse(readFileSync(outputs.sarif, 'utf8')))).toBe(true);
    expect(XMLValidator.validate(readFileSync(outputs.junit, 'utf8'))).toBe(true);
  });

  it('writes HTML and CSV of the checked report too', () => {
    const run = check([...limits, '-o', file('all.html'), '-o', file('all.csv')], pinned);
    expect(run.status).toBe(1);
    expect(readFileSync(file('all.html'), 'utf8').startsWith('<!DOCTYPE html>')).toBe(true);
    expect(readFileSync(file('all.csv'), 'utf8')).toBe(runBuiltCli(['audit', '--demo', '--format', 'csv'], { env: pinned }).stdout);
  });

  it('refuses, before reading anything, an -o whose extension names no format and writes nothing', () => {
    const run = check([...limits, '-o', file('none.json'), '-o', file('none.xml')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^gpu-audit: -o .*none\.xml: with several -o the format comes from the extension, and this one names none; use one of \.txt table, /u);
    expect(() => readFileSync(file('none.json'))).toThrow();
  });
});


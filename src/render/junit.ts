/**
 * `check --format junit`: the check as JUnit XML, the shape CI servers read (Jenkins,
 * GitLab `artifacts:reports:junit`, Azure Pipelines, the Surefire report schema):
 * testsuites > testsuite@name,tests,failures,errors,skipped,time > testcase@classname,name,time
 * > failure@message,type | skipped@message. One test case per limit and GPU (a per-GPU limit
 * is one case per GPU), one per finding target (fleet, GPU, workload), and with a baseline
 * one per regression. A case fails exactly when it fails the check, so the CI page and
 * the exit code agree. Every string passes through escapeXml.
 */
import type { CheckReport, GatedFinding, ThresholdResult } from '../model/index.js';
import { formatLimit, formatWithUnit } from './check-verdict.js';
import { gpuNames, type GpuNames } from './gpu-labels.js';

// XML 1.0 forbids C0 controls other than tab, newline and carriage return, and U+FFFE/U+FFFF;
// lone surrogates cannot be encoded. None can be escaped: they are dropped.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;
const XML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

/** Text safe in an XML attribute value or element content (escapes `& < > " '` and CR, drops what XML cannot hold). */
export function escapeXml(value: string): string {
  return value.replace(NOT_XML_CHARACTERS, '').replace(/[&<>"'\r]/gu, (character) => XML_ENTITIES[character] ?? character);
}

interface TestCase {
  classname: string;
  name: string;
  failure?: { message: string; type: string; details: string };
  skipped?: string;
  /** Context for a passing case (warn-level findings), as <system-out>. */
  output?: string;
}

interface TestSuite {
  name: string;
  cases: TestCase[];
}

const COMPARISON_WORDS = { 'at-most': 'at most', 'at-least': 'at least' } as const;

function thresholdCase(result: ThresholdResult, names: GpuNames): TestCase {
  const where = result.target === 'fleet' ? 'fleet' : names.target(result.target);
  const testCase: TestCase = {
    classname: result.scope === 'fleet' ? 'gpu-audit.thresholds' : `gpu-audit.thresholds.${result.name}`,
    name: result.scope === 'fleet' ? result.name : where,
  };
  const actual = formatWithUnit(result.actual, result.unit);
  const limit = `${COMPARISON_WORDS[result.comparison]} ${formatLimit(result.limit, result.unit)}`;
  if (result.status === 'no-data') testCase.skipped = `${result.name}: the report has no value for ${result.figure} on ${where}`;
  else if (result.failsCheck) {
    testCase.failure = { message: `${result.name} on ${where}: ${actual}, limit ${limit}`, type: result.name, details: `figure: ${result.figure}\nactual: ${actual}\nlimit: ${limit}` };
  } else testCase.output = `${result.name} on ${where}: ${actual}, limit ${limit}${result.status === 'fail' ? ' (breached in the baseline too)' : ''}`;
  return testCase;
}

/** Fleet first, then each GPU and workload in report order; targets without findings pass. */
function findingCases(check: CheckReport, names: GpuNames): TestCase[] {
  const byTarget = new Map<string, GatedFinding[]>();
  for (const finding of check.check.findings) byTarget.set(finding.target, [...(byTarget.get(finding.target) ?? []), finding]);
  const targets: { classname: string; id: string; name: string }[] = [
    { classname: 'gpu-audit.findings.fleet', id: 'fleet', name: 'fleet' },
    ...check.report.gpus.map((gpu) => ({ classname: 'gpu-audit.findings.gpu', id: gpu.id, name: names.full(gpu) })),
    ...check.report.workloads.map((workload) => ({ classname: 'gpu-audit.findings.workload', id: workload.name, name: workload.name })),
  ];
  const known = new Set(targets.map((target) => target.id));
  // A finding whose target is neither a GPU nor a workload still gets a case of its own.
  for (const target of byTarget.keys()) if (!known.has(target)) targets.push({ classname: 'gpu-audit.findings.other', id: target, name: target });
  return targets.map(({ classname, id, name }) => {
    const findings = byTarget.get(id) ?? [];
    const testCase: TestCase = { classname, name };
    const failing = findings.filter((finding) => finding.failsCheck);
    const describe = (finding: GatedFinding): string => `${finding.level} ${finding.code}: ${finding.message}`;
    if (failing.length > 0) {
      testCase.failure = {
        message: failing.map((finding) => `${finding.code}: ${finding.message}`).join('; '),
        type: failing.map((finding) => finding.code).join(','),
        details: findings.map(describe).join('\n'),
      };
    } else if (findings.length > 0) testCase.output = findings.map(describe).join('\n');
    return testCase;
  });
}

function baselineCases(check: CheckReport): TestCase[] {
  const baseline = check.check.baseline;
  if (baseline === null) return [];
  if (baseline.regressions.length === 0) {
    return [{ classname: 'gpu-audit.baseline', name: `no regressions since ${baseline.ref}`, output: baseline.improvements.map((change) => `improved: ${change.summary}`).join('\n') }];
  }
  return baseline.regressions.map((change) => ({
    classname: 'gpu-audit.baseline',
    name: `${change.kind} ${change.figure?.figure ?? change.threshold ?? change.finding?.code ?? ''} on ${change.target}`.replace(/\s+/gu, ' '),
    failure: { message: change.summary, type: change.kind, details: change.summary },
  }));
}

function suites(check: CheckReport): TestSuite[] {
  const names = gpuNames(check.report.gpus);
  const list: TestSuite[] = [
    { name: 'thresholds', cases: check.check.thresholds.map((result) => thresholdCase(result, names)) },
    { name: 'findings', cases: findingCases(check, names) },
  ];
  if (check.check.baseline !== null) list.push({ name: 'baseline', cases: baselineCases(check) });
  if (check.check.skippedInputs.length > 0) {
    list.push({
      name: 'inputs',
      cases: check.check.skippedInputs.map((skipped) => ({ classname: 'gpu-audit.inputs', name: skipped, skipped: `input skipped (--keep-going): ${skipped}` })),
    });
  }
  return list;
}

function counts(cases: readonly TestCase[]): { tests: number; failures: number; skipped: number } {
  return {
    tests: cases.length,
    failures: cases.filter((testCase) => testCase.failure !== undefined).length,
    skipped: cases.filter((testCase) => testCase.skipped !== undefined).length,
  };
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key}="${escapeXml(String(value))}"`)
    .join(' ');
}

function renderCase(testCase: TestCase): string {
  const open = `    <testcase ${attributes({ classname: testCase.classname, name: testCase.name, time: 0 })}`;
  const body: string[] = [];
  if (testCase.failure !== undefined) {
    body.push(`      <failure ${attributes({ message: testCase.failure.message, type: testCase.failure.type })}>${escapeXml(testCase.failure.details)}</failure>`);
  }
  if (testCase.skipped !== undefined) body.push(`      <skipped ${attributes({ message: testCase.skipped })}/>`);
  if (testCase.output !== undefined && testCase.output !== '') body.push(`      <system-out>${escapeXml(testCase.output)}</system-out>`);
  return body.length === 0 ? `${open}/>` : [`${open}>`, ...body, '    </testcase>'].join('\n');
}

export function renderJunit(check: CheckReport): string {
  const all = suites(check);
  const total = counts(all.flatMap((suite) => suite.cases));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${attributes({ name: 'gpu-audit check', tests: total.tests, failures: total.failures, errors: 0, skipped: total.skipped, time: 0 })}>`,
  ];
  for (const suite of all) {
    const suiteCounts = counts(suite.cases);
    const header = attributes({
      name: suite.name,
      tests: suiteCounts.tests,
      failures: suiteCounts.failures,
      errors: 0,
      skipped: suiteCounts.skipped,
      time: 0,
      timestamp: check.report.generatedAt,
    });
    if (suite.cases.length === 0) {
      lines.push(`  <testsuite ${header}/>`);
      continue;
    }
    lines.push(`  <testsuite ${header}>`, ...suite.cases.map(renderCase), '  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

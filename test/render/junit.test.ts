import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/index.js';
import type { Thresholds } from '../../src/model/index.js';
import type { CheckReport } from '../../src/model/check-report.js';
import type { Report } from '../../src/model/report.js';
import { escapeXml, renderJunit } from '../../src/render/junit.js';
import { FINDINGS_AND_RECOMMENDATIONS, IDLE_L4_ID } from '../fixtures/reports/findings-and-recommendations.js';
import { A10G_ID, SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { copyOf } from './helpers.js';

interface Attributes {
  [name: `@_${string}`]: string;
}
interface TestCase extends Attributes {
  failure?: Attributes & { '#text'?: string };
  skipped?: Attributes;
  'system-out'?: string;
}
interface TestSuite extends Attributes {
  testcase?: TestCase[];
}
interface JunitDocument {
  testsuites: Attributes & { testsuite: TestSuite[] };
}

function parse(xml: string): JunitDocument {
  expect(XMLValidator.validate(xml)).toBe(true);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseAttributeValue: false,
    parseTagValue: false,
    isArray: (name) => name === 'testsuite' || name === 'testcase',
  });
  return parser.parse(xml) as JunitDocument;
}

function checkOf(report: Report, thresholds: Thresholds, baseline?: Report): CheckReport {
  return { report, check: runCheck(report, { thresholds, ...(baseline === undefined ? {} : { baseline: { report: baseline, ref: 'baseline.json', tolerance: 5 } }) }) };
}

const suite = (document: JunitDocument, name: string): TestSuite => document.testsuites.testsuite.find((entry) => entry['@_name'] === name)!;

describe('JUnit XML of a check', () => {
  // SMALL_FLEET: waste 41.67 % (limit 10: fail); headroom per device 0.64 / 47.37 / 7.09 / 91.11 % (limit >= 5: one fail).
  const thresholds: Thresholds = { limits: { maxWastePct: 10, minVramHeadroomPct: 5 }, findingLevels: {} };
  const document = parse(renderJunit(checkOf(SMALL_FLEET, thresholds)));

  it('has the Surefire/Jenkins shape: testsuites > testsuite > testcase with the counting attributes', () => {
    const root = document.testsuites;
    for (const attribute of ['@_name', '@_tests', '@_failures', '@_errors', '@_skipped', '@_time'] as const) expect(root[attribute]).toBeDefined();
    for (const entry of root.testsuite) {
      for (const attribute of ['@_name', '@_tests', '@_failures', '@_errors', '@_skipped', '@_time', '@_timestamp'] as const) expect(entry[attribute]).toBeDefined();
      for (const testCase of entry.testcase ?? []) {
        expect(testCase['@_classname']).toBeTruthy();
        expect(testCase['@_name']).toBeTruthy();
        expect(testCase['@_time']).toBe('0');
      }
    }
  });

  it('has one test case per limit and per GPU checked, and the counts add up', () => {
    const limits = suite(document, 'thresholds');
    // 1 fleet limit + 4 devices for the per-GPU limit (the MIG parent is not checked).
    expect(limits.testcase).toHaveLength(5);
    expect(limits['@_tests']).toBe('5');
    expect(limits['@_failures']).toBe('2');
    expect(limits.testcase!.map((testCase) => testCase['@_name'])).toEqual(['max-waste-pct', 'node-a #0 8f3c2a1b GI 1', 'node-a #0 8f3c2a1b GI 2', 'node-a #1 1a2b3c4d', 'node-b #0 5e6f7a8b']);
    const findings = suite(document, 'findings');
    // fleet + 5 GPU entries (the MIG parent too: findings may name it) + 0 workloads.
    expect(findings.testcase).toHaveLength(1 + SMALL_FLEET.gpus.length);
    const total = document.testsuites.testsuite.reduce((sum, entry) => sum + Number(entry['@_tests']), 0);
    expect(document.testsuites['@_tests']).toBe(String(total));
    expect(document.testsuites['@_failures']).toBe('2');
  });

  it('says in the failure what was breached, by how much, and which figure was read', () => {
    const [waste, migDevice] = suite(document, 'thresholds').testcase!;
    expect(waste!.failure!['@_type']).toBe('max-waste-pct');
    expect(waste!.failure!['@_message']).toBe('max-waste-pct on fleet: 41.7 %, limit at most 10 %');
    expect(waste!.failure!['#text']).toContain('figure: summary.wastePct');
    expect(waste!['@_classname']).toBe('gpu-audit.thresholds');
    expect(migDevice!['@_classname']).toBe('gpu-audit.thresholds.min-vram-headroom-pct');
    expect(migDevice!.failure!['@_message']).toBe('min-vram-headroom-pct on node-a #0 8f3c2a1b GI 1: 0.6 %, limit at least 5 %');
  });

  it('fails a GPU case for an error-level finding and keeps warn-level ones as output', () => {
    const strict = parse(renderJunit(checkOf(FINDINGS_AND_RECOMMENDATIONS, { limits: {}, findingLevels: { 'allocated-unused': 'error' } })));
    const cases = suite(strict, 'findings').testcase!;
    const idle = cases.find((testCase) => testCase['@_classname'] === 'gpu-audit.findings.gpu' && testCase.failure !== undefined)!;
    expect(idle.failure!['@_type']).toBe('allocated-unused');
    // The idle L4 also has a warn-level idle-gpu finding: listed in the details, not a failure type.
    expect(idle.failure!['#text']).toContain('warn idle-gpu');
    expect(cases.filter((testCase) => testCase.failure !== undefined)).toHaveLength(1);
    expect(cases.map((testCase) => testCase['@_classname'])).toContain('gpu-audit.findings.workload');
    expect(FINDINGS_AND_RECOMMENDATIONS.findings.find((finding) => finding.code === 'allocated-unused')?.target).toBe(IDLE_L4_ID);
  });

  it('marks a limit without data as skipped, not passed or failed', () => {
    const report = copyOf(SMALL_FLEET);
    report.summary.monthlyWasteUsd = null;
    const parsed = parse(renderJunit(checkOf(report, { limits: { maxMonthlyWasteUsd: 100 }, findingLevels: {} })));
    const [testCase] = suite(parsed, 'thresholds').testcase!;
    expect(testCase!.skipped!['@_message']).toContain('summary.monthlyWasteUsd');
    expect(suite(parsed, 'thresholds')['@_skipped']).toBe('1');
  });

  it('with a baseline, adds one failing case per regression and stops failing breaches that were there before', () => {
    const better = copyOf(SMALL_FLEET);
    better.gpus.find((gpu) => gpu.id === A10G_ID)!.idleFraction = 0.25;
    better.summary.wastePct = 20;
    const parsed = parse(renderJunit(checkOf(SMALL_FLEET, { limits: { maxWastePct: 10 }, findingLevels: {} }, better)));
    // Waste 41.7 % breaches 10 % now and (20 %) then: not a failure of this run.
    expect(suite(parsed, 'thresholds')['@_failures']).toBe('0');
    const regressions = suite(parsed, 'baseline').testcase!;
    expect(regressions.map((testCase) => testCase.failure!['@_type'])).toEqual(['figure-worsened', 'figure-worsened']);
    expect(parsed.testsuites['@_failures']).toBe('2');
  });

  it('escapes every string from the inputs', () => {
    const report = copyOf(SMALL_FLEET);
    report.gpus = report.gpus.map((gpu, position) => ({ ...gpu, host: `evil"<host>&\u0001'${position}` }));
    report.findings = [{ id: 'x:fleet', code: 'short-window', severity: 'info', target: 'fleet', message: ']]></system-out><injected/>', evidence: {} }];
    const xml = renderJunit(checkOf(report, { limits: { minVramHeadroomPct: 5 }, findingLevels: {} }));
    const parsed = parse(xml);
    expect(xml).not.toContain('<injected/>');
    expect(xml).not.toContain('\u0001');
    expect(xml).toContain('name="evil&quot;&lt;host&gt;&amp;&apos;0 #0 8f3c2a1b GI 1"');
    // The parser decodes what the renderer escaped: the name reads back as written (less the control character).
    expect(suite(parsed, 'thresholds').testcase![0]!['@_name']).toBe('evil"<host>&\'0 #0 8f3c2a1b GI 1');
    expect(escapeXml('a&b<c>"d\'e\rf\u0000')).toBe('a&amp;b&lt;c&gt;&quot;d&apos;e&#13;f');
    expect(escapeXml('lone \ud800 surrogate, pair \ud83d\ude00 kept')).toBe('lone  surrogate, pair \ud83d\ude00 kept');
  });
});

/**
 * `check --format sarif`: SARIF 2.1.0 for code-scanning dashboards (GitHub code scanning,
 * Azure DevOps, SonarQube import). Rule ids are stable keys: a finding's `code`
 * (idle-gpu, ...), `threshold/<name>` for a breached limit and `baseline/<kind>` for a
 * regression. A result's level is `error` when it fails the check, else `warning`
 * (`note` for an info finding). Locations are logical (the GPU, workload or fleet); a
 * physical location (the input file) is added where the report has exactly one file input,
 * the only case where every result certainly came from it.
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { CheckReport, GatedFinding, ThresholdResult } from '../model/index.js';
import { FINDING_CODES, THRESHOLD_DEFINITIONS } from '../model/index.js';
import type { Report } from '../model/index.js';
import { formatLimit, formatWithUnit } from './check-verdict.js';

export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

type SarifLevel = 'error' | 'warning' | 'note';

interface Rule {
  id: string;
  shortDescription: { text: string };
}

interface LogicalLocation {
  name: string;
  fullyQualifiedName: string;
  kind: 'resource';
}

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: SarifLevel;
  message: { text: string };
  locations: { logicalLocations: LogicalLocation[]; physicalLocation?: { artifactLocation: { uri: string } } }[];
  partialFingerprints: { 'gpuAuditId/v1': string };
}

const BASELINE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'figure-worsened': 'a figure worsened by more than the tolerance since the baseline',
  'threshold-newly-breached': 'a limit that held in the baseline is breached',
  'new-finding': 'an error-level finding that the baseline did not have',
};

/** A file input as a URI reference: relative paths stay relative (to the working directory), absolute ones become file: URIs. */
function artifactUri(ref: string): string | null {
  if (ref === '-' || /^[a-z][a-z0-9+.-]*:\/\//iu.test(ref)) return null;
  if (path.isAbsolute(ref)) return pathToFileURL(ref).href;
  return ref.split(/[\\/]/u).map(encodeURIComponent).join('/');
}

function singleArtifact(report: Report): string | null {
  const files = report.sources.filter((source) => source.records > 0).map((source) => artifactUri(source.ref));
  return files.length === 1 ? (files[0] ?? null) : null;
}

function logicalLocation(report: Report, target: string): LogicalLocation {
  const gpu = report.gpus.find((entry) => entry.id === target);
  if (gpu !== undefined) return { name: gpu.id, fullyQualifiedName: `${gpu.host}/${gpu.id}`, kind: 'resource' };
  return { name: target, fullyQualifiedName: target, kind: 'resource' };
}

interface Draft {
  ruleId: string;
  description: string;
  level: SarifLevel;
  message: string;
  target: string;
  fingerprint: string;
}

function thresholdDraft(result: ThresholdResult): Draft {
  const description = THRESHOLD_DEFINITIONS.find((definition) => definition.key === result.key)?.description ?? result.name;
  const limit = `${result.comparison === 'at-most' ? 'at most' : 'at least'} ${formatLimit(result.limit, result.unit)}`;
  return {
    ruleId: `threshold/${result.name}`,
    description,
    level: result.failsCheck ? 'error' : 'warning',
    message: `${result.name}: ${result.figure} is ${formatWithUnit(result.actual, result.unit)}, limit ${limit}${result.failsCheck ? '' : ' (breached in the baseline too)'}`,
    target: result.target,
    fingerprint: `threshold/${result.name}@${result.target}`,
  };
}

function findingDraft(finding: GatedFinding): Draft {
  return {
    ruleId: finding.code,
    description: FINDING_CODES[finding.code].rule,
    level: finding.failsCheck ? 'error' : finding.severity === 'info' ? 'note' : 'warning',
    message: finding.message,
    target: finding.target,
    fingerprint: finding.id,
  };
}

function drafts(check: CheckReport): Draft[] {
  const list = [
    ...check.check.thresholds.filter((result) => result.status === 'fail').map(thresholdDraft),
    ...check.check.findings.map(findingDraft),
  ];
  for (const change of check.check.baseline?.regressions ?? []) {
    // New findings and newly breached limits are already results above (at level error).
    if (change.kind !== 'figure-worsened') continue;
    list.push({
      ruleId: `baseline/${change.kind}`,
      description: BASELINE_DESCRIPTIONS[change.kind] ?? change.kind,
      level: 'error',
      message: change.summary,
      target: change.target,
      fingerprint: `baseline/${change.kind}/${change.figure?.figure ?? ''}@${change.target}`,
    });
  }
  return list;
}

export function renderSarif(check: CheckReport): string {
  const all = drafts(check);
  const rules: Rule[] = [];
  const ruleIndex = new Map<string, number>();
  for (const draft of [...all].sort((left, right) => left.ruleId.localeCompare(right.ruleId))) {
    if (ruleIndex.has(draft.ruleId)) continue;
    ruleIndex.set(draft.ruleId, rules.length);
    rules.push({ id: draft.ruleId, shortDescription: { text: draft.description } });
  }
  const artifact = singleArtifact(check.report);
  const results: SarifResult[] = all.map((draft) => ({
    ruleId: draft.ruleId,
    ruleIndex: ruleIndex.get(draft.ruleId)!,
    level: draft.level,
    message: { text: draft.message },
    locations: [
      {
        logicalLocations: [logicalLocation(check.report, draft.target)],
        ...(artifact === null ? {} : { physicalLocation: { artifactLocation: { uri: artifact } } }),
      },
    ],
    // Lets dashboards follow one GPU's finding from run to run.
    partialFingerprints: { 'gpuAuditId/v1': draft.fingerprint },
  }));
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: check.report.tool.name, version: check.report.tool.version, rules } },
        invocations: [{ executionSuccessful: true, exitCode: check.check.exitCode }],
        results,
        properties: { verdict: check.check.verdict, generatedAt: check.report.generatedAt },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

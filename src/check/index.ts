/**
 * `gpu-audit check` as a library: a Report and Thresholds in, a CheckResult out.
 * Pure; the CLI reads files (baseline), renders and sets the exit code.
 */
import type { Report } from '../model/index.js';
import { compareWithBaseline } from './baseline.js';
import { evaluateThresholds, gateFindings } from './evaluate.js';
import { checkExitCode } from './exit-code.js';
import type { Thresholds } from '../model/index.js';
import type { BaselineComparison, CheckResult, GatedFinding, ThresholdResult } from '../model/index.js';

export interface CheckOptions {
  thresholds: Thresholds;
  /** A saved report to compare with: only regressions fail. */
  baseline?: { report: Report; ref: string; tolerance: number };
  /** Inputs the audit could not read (--keep-going), as InputError descriptions. */
  skippedInputs?: string[];
}

const VERDICTS = { 0: 'pass', 1: 'fail', 2: 'incomplete' } as const satisfies Record<CheckResult['exitCode'], CheckResult['verdict']>;

export function runCheck(report: Report, options: CheckOptions): CheckResult {
  const thresholds = evaluateThresholds(report, options.thresholds);
  const findings = gateFindings(report, options.thresholds);
  const baseline =
    options.baseline === undefined
      ? null
      : compareWithBaseline(report, options.baseline.report, { ref: options.baseline.ref, tolerance: options.baseline.tolerance, thresholds: options.thresholds });
  const skippedInputs = options.skippedInputs ?? [];
  const exitCode = checkExitCode(thresholds, findings, baseline ?? undefined, skippedInputs.length);
  return {
    verdict: VERDICTS[exitCode],
    exitCode,
    thresholds: baseline === null ? thresholds : onlyNewBreachesFail(thresholds, baseline),
    findings: baseline === null ? findings : onlyNewFindingsFail(findings, baseline),
    baseline,
    skippedInputs,
  };
}

/** With a baseline, a breach fails only if it is new: renderers then agree with the exit code. */
function onlyNewBreachesFail(results: ThresholdResult[], baseline: BaselineComparison): ThresholdResult[] {
  const newlyBreached = new Set(
    baseline.regressions.flatMap((change) => (change.kind === 'threshold-newly-breached' ? [`${change.threshold ?? ''}@${change.target}`] : [])),
  );
  return results.map((result) => ({ ...result, failsCheck: newlyBreached.has(`${result.name}@${result.target}`) }));
}

function onlyNewFindingsFail(findings: GatedFinding[], baseline: BaselineComparison): GatedFinding[] {
  const newErrors = new Set(baseline.regressions.flatMap((change) => (change.kind === 'new-finding' && change.finding !== undefined ? [change.finding.id] : [])));
  return findings.map((finding) => ({ ...finding, failsCheck: newErrors.has(finding.id) }));
}

export { compareWithBaseline, DEFAULT_BASELINE_TOLERANCE } from './baseline.js';
export type { BaselineOptions } from './baseline.js';
export { checkedDevices, evaluateThresholds, gateFindings } from './evaluate.js';
export { checkExitCode } from './exit-code.js';
export { findingLevel, mergeThresholds, thresholdsFromConfig, thresholdsFromFlags, unknownFindingCode, withinLimit } from './thresholds.js';
export type { ThresholdFlags } from './thresholds.js';
export { comparedGpu, comparedPart } from './baseline.js';
export { readComparedReport } from './read-baseline.js';
export { settingsDrift } from './settings-drift.js';

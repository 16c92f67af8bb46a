/**
 * GitHub Actions integration of `gpu-audit check`:
 * - workflow-command annotations (`::error title=...::message`) when GITHUB_ACTIONS=true, so
 *   a breach shows on the run's summary page. They go to stderr: the runner reads workflow
 *   commands from both streams of a step (actions/runner, ScriptHandler.cs, wires its
 *   command manager to stdout and stderr), and stdout then carries nothing but the chosen
 *   output, so `--format json | jq` and `--format sarif > out.sarif` stay clean;
 * - the verdict and the fleet's money as Markdown appended to the file named by GITHUB_STEP_SUMMARY (appended:
 *   several steps, or several checks in one step, share that file).
 */
import type { CheckReport } from '../model/index.js';
import { formatLimit, formatWithUnit, renderCheckVerdictMarkdown } from './check-verdict.js';
import { gpuNames } from './gpu-labels.js';
import { fleetFiguresMarkdown } from './pr-comment.js';
import { toDisplayText } from '../support/index.js';

export type AnnotationKind = 'error' | 'warning' | 'notice';

export interface Annotation {
  kind: AnnotationKind;
  title: string;
  message: string;
}

/**
 * GitHub shows 10 annotations of each kind per step and 50 per job: more only bury the
 * failures. Failures come first, so they are the ones kept.
 */
export const MAX_ANNOTATIONS = 50;

export function isGitHubActions(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** A workflow command's message: `%`, CR and LF escaped as the runner unescapes them. */
export function escapeData(value: string): string {
  return value.replace(/%/gu, '%25').replace(/\r/gu, '%0D').replace(/\n/gu, '%0A');
}

/** A workflow command's property value: as data, plus `:` and `,` that end a property. */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/gu, '%3A').replace(/,/gu, '%2C');
}

export function formatAnnotation(annotation: Annotation): string {
  return `::${annotation.kind} title=${escapeProperty(annotation.title)}::${escapeData(annotation.message)}`;
}

const KIND_ORDER: Readonly<Record<AnnotationKind, number>> = { error: 0, warning: 1, notice: 2 };

/** The check as annotations: what fails is an error, breaches and findings that do not fail are warnings, info findings notices. */
export function checkAnnotations(check: CheckReport): Annotation[] {
  const names = gpuNames(check.report.gpus);
  const where = (target: string): string => (target === 'fleet' ? 'fleet' : names.target(target));
  const list: Annotation[] = [];
  for (const result of check.check.thresholds) {
    if (result.status === 'pass') continue;
    const actual = formatWithUnit(result.actual, result.unit);
    const comparison = result.comparison === 'at-most' ? '<=' : '>=';
    list.push({
      kind: result.failsCheck ? 'error' : result.status === 'fail' ? 'warning' : 'notice',
      title: `gpu-audit check: ${result.name}`,
      message: `${result.name} on ${where(result.target)}: ${actual}, limit ${comparison} ${formatLimit(result.limit, result.unit)}${result.status === 'fail' && !result.failsCheck ? ' (breached in the baseline too)' : ''}`,
    });
  }
  for (const finding of check.check.findings) {
    list.push({
      kind: finding.failsCheck ? 'error' : finding.severity === 'info' ? 'notice' : 'warning',
      title: `gpu-audit ${finding.code}`,
      message: `${where(finding.target)}: ${toDisplayText(finding.message)}`,
    });
  }
  for (const change of check.check.baseline?.regressions ?? []) {
    if (change.kind === 'figure-worsened') list.push({ kind: 'error', title: 'gpu-audit check: regression', message: toDisplayText(change.summary) });
  }
  return list.sort((left, right) => KIND_ORDER[left.kind] - KIND_ORDER[right.kind]);
}

/** The annotation lines to print, at most MAX_ANNOTATIONS plus a notice of how many were left out. */
export function annotationLines(annotations: readonly Annotation[], options: { errorsOnly: boolean }): string[] {
  const shown = options.errorsOnly ? annotations.filter((annotation) => annotation.kind === 'error') : annotations;
  const lines = shown.slice(0, MAX_ANNOTATIONS).map(formatAnnotation);
  if (shown.length > MAX_ANNOTATIONS) {
    lines.push(formatAnnotation({ kind: 'notice', title: 'gpu-audit check', message: `${shown.length - MAX_ANNOTATIONS} more annotations left out; see the step summary or --format markdown` }));
  }
  return lines;
}

/** What `check` appends to GITHUB_STEP_SUMMARY: the verdict and the fleet's money as Markdown. */
export function stepSummaryText(check: CheckReport): string {
  return `${renderCheckVerdictMarkdown(check)}\n${fleetFiguresMarkdown(check.report)}\n\n`;
}

/**
 * `gpu-audit check` for people: the verdict first (each limit with its actual value, unit
 * and PASS/FAIL; the findings that fail; what changed since the baseline), then the audit
 * report in the same format. Everything shown is in the CheckReport already.
 */
import { Chalk } from 'chalk';
import type { CheckReport, ThresholdResult } from '../model/index.js';
import { renderJsonPieces } from './json.js';
import { formatNumber, formatUsd } from './format.js';
import { gpuNames, type GpuNames } from './gpu-labels.js';
import { renderMarkdown } from './markdown.js';
import { escapeMarkdown, toDisplayText } from '../support/index.js';
import { renderTable } from './table.js';
import type { RenderOptions } from './types.js';

const COMPARISON_WORDS = { 'at-most': '<=', 'at-least': '>=' } as const;
/** `<=` would be escaped to `&lt;=` in Markdown source; the symbols read the same rendered and raw. */
const MARKDOWN_COMPARISON_WORDS = { 'at-most': '≤', 'at-least': '≥' } as const;
const STATUS_WORDS = { pass: 'PASS', fail: 'FAIL', 'no-data': 'NO DATA' } as const;

/** A limit or figure with its unit: `59.8 %`, `249.3 h`, `$31,391/month`. */
export function formatWithUnit(value: number | null, unit: string): string {
  if (value === null) return 'no data';
  if (unit === 'USD/month') return `${formatUsd(value, 0)}/month`;
  return `${formatNumber(value, 1)} ${unit}`;
}

/** A limit as the user typed it (`10 %`, `2.5 h`): no rounding, no padded decimals. */
export function formatLimit(value: number, unit: string): string {
  if (unit === 'USD/month') return `$${formatNumber(value, null)}/month`;
  return `${formatNumber(value, null)} ${unit}`;
}

function targetName(result: ThresholdResult, names: GpuNames): string {
  return result.target === 'fleet' ? 'fleet' : names.target(result.target);
}

/** What the line says about a result: a breach that no longer fails (baseline) is `FAIL (as before)`. */
function statusWord(result: ThresholdResult): string {
  if (result.status === 'fail' && !result.failsCheck) return 'FAIL (also in baseline)';
  return STATUS_WORDS[result.status];
}

function headline(check: CheckReport['check']): string {
  const failingLimits = check.thresholds.filter((result) => result.failsCheck).length;
  const failingFindings = check.findings.filter((finding) => finding.failsCheck).length;
  const regressions = check.baseline?.regressions.length ?? 0;
  const reasons =
    check.baseline === null
      ? `${failingLimits} limit(s) breached, ${failingFindings} error-level finding(s)`
      : `${regressions} regression(s) since ${toDisplayText(check.baseline.ref)}`;
  const word = { pass: 'PASSED', fail: 'FAILED', incomplete: 'INCOMPLETE (inputs skipped)' }[check.verdict];
  return `gpu-audit check ${word}: ${reasons}`;
}

/** Lists of changes and notes longer than this show their first entries and a count: a summary stays readable at 1,000 GPUs. */
export const MAX_LISTED = 20;

function capped<T>(items: readonly T[]): { shown: readonly T[]; more: number } {
  return { shown: items.slice(0, MAX_LISTED), more: Math.max(0, items.length - MAX_LISTED) };
}

interface GroupedThresholds {
  fleet: ThresholdResult[];
  /** Per-GPU limit name -> its results (one per GPU). */
  perGpu: Map<string, ThresholdResult[]>;
}

/** Fleet limits one by one; per-GPU limits grouped so a view can sum each up and list only the GPUs that breach. */
function groupThresholds(results: readonly ThresholdResult[]): GroupedThresholds {
  const grouped: GroupedThresholds = { fleet: [], perGpu: new Map() };
  for (const result of results) {
    if (result.scope === 'fleet' || result.target === 'fleet') grouped.fleet.push(result);
    else grouped.perGpu.set(result.name, [...(grouped.perGpu.get(result.name) ?? []), result]);
  }
  return grouped;
}

function perGpuSummary(results: readonly ThresholdResult[]): { breaching: ThresholdResult[]; word: string; text: string } {
  const breaching = results.filter((result) => result.status === 'fail');
  const word = breaching.length === 0 ? 'PASS' : breaching.some((result) => result.failsCheck) ? 'FAIL' : 'FAIL (also in baseline)';
  return { breaching, word, text: `${results.length - breaching.length} of ${results.length} GPUs within the limit` };
}

/** ` (sm-active basis)` where the figure depends on a signal the fleet chose, else nothing. */
function basisNote(result: ThresholdResult): string {
  return result.basis === undefined ? '' : ` (${result.basis} basis)`;
}

function thresholdLine(result: ThresholdResult, names: GpuNames): string {
  return [
    statusWord(result).padEnd(7),
    result.name.padEnd(22),
    targetName(result, names).padEnd(30),
    formatWithUnit(result.actual, result.unit).padStart(16),
    `  limit ${COMPARISON_WORDS[result.comparison]} ${formatLimit(result.limit, result.unit)}${basisNote(result)}`,
  ].join(' ');
}

/** Terminal verdict: fleet limits one line each; per-GPU limits list only the GPUs that breach, plus a count. */
function verdictLines(check: CheckReport, names: GpuNames, style: { fail: (text: string) => string; pass: (text: string) => string }): string[] {
  const { check: result } = check;
  const paint = (text: string, failed: boolean): string => (failed ? style.fail(text) : style.pass(text));
  const lines = [paint(headline(result), result.verdict !== 'pass')];
  const grouped = groupThresholds(result.thresholds);
  for (const threshold of grouped.fleet) lines.push(`  ${paint(thresholdLine(threshold, names), threshold.status === 'fail')}`);
  for (const [name, results] of grouped.perGpu) {
    const summary = perGpuSummary(results);
    lines.push(`  ${paint(`${summary.word.padEnd(7)} ${name}: ${summary.text}`, summary.breaching.length > 0)}`);
    for (const threshold of summary.breaching) lines.push(`    ${paint(thresholdLine(threshold, names), true)}`);
  }
  const failing = result.findings.filter((finding) => finding.failsCheck);
  const errorLevel = result.findings.filter((finding) => finding.level === 'error' && !finding.failsCheck);
  for (const finding of failing) lines.push(`  ${paint(`FAIL    finding ${finding.code} on ${names.target(finding.target)}: ${toDisplayText(finding.message)}`, true)}`);
  if (errorLevel.length > 0) lines.push(`  ${errorLevel.length} error-level finding(s) also in the baseline (not failing)`);
  const warnings = result.findings.filter((finding) => finding.level === 'warn').length;
  if (warnings > 0) lines.push(`  ${warnings} warn-level finding(s) reported, not failing (set a code to error with --finding-level CODE=error)`);
  if (result.baseline !== null) {
    const list = (label: string, changes: readonly { summary: string }[], style: (text: string) => string): void => {
      const { shown, more } = capped(changes);
      for (const change of shown) lines.push(`  ${style(`${label} ${toDisplayText(change.summary)}`)}`);
      if (more > 0) lines.push(`  ${style(`${label} ... and ${more} more (--format json lists all)`)}`);
    };
    list('REGRESSED', result.baseline.regressions, style.fail);
    list('IMPROVED ', result.baseline.improvements, style.pass);
    list('NOTE     ', result.baseline.notes, (text) => text);
  }
  for (const skipped of result.skippedInputs) lines.push(`  ${paint(`SKIPPED input ${toDisplayText(skipped)}`, true)}`);
  return lines;
}

export function renderCheckTable(check: CheckReport, options: RenderOptions): string {
  const chalk = new Chalk({ level: options.color ? 1 : 0 });
  const lines = verdictLines(check, gpuNames(check.report.gpus), { fail: chalk.red.bold, pass: chalk.green });
  return `${lines.join('\n')}\n\n${renderTable(check.report, options)}`;
}

function markdownRow(cells: readonly string[]): string {
  return `| ${cells.map(escapeMarkdown).join(' | ')} |`;
}

/** The verdict as Markdown (also the GitHub step summary), without the report after it. */
export function renderCheckVerdictMarkdown(check: CheckReport): string {
  const names = gpuNames(check.report.gpus);
  const { check: result } = check;
  const parts = [`## ${escapeMarkdown(headline(result))}`, ''];
  const limitCell = (threshold: ThresholdResult): string => `${MARKDOWN_COMPARISON_WORDS[threshold.comparison]} ${formatLimit(threshold.limit, threshold.unit)}`;
  const row = (threshold: ThresholdResult): string =>
    markdownRow([statusWord(threshold), threshold.name, targetName(threshold, names), `${formatWithUnit(threshold.actual, threshold.unit)}${basisNote(threshold)}`, limitCell(threshold)]);
  if (result.thresholds.length > 0) {
    const grouped = groupThresholds(result.thresholds);
    const rows = grouped.fleet.map(row);
    for (const [name, results] of grouped.perGpu) {
      const summary = perGpuSummary(results);
      rows.push(markdownRow([summary.word, name, summary.text, '', limitCell(results[0]!)]), ...summary.breaching.map(row));
    }
    parts.push(markdownRow(['result', 'threshold', 'target', 'actual', 'limit']), '| --- | --- | --- | ---: | ---: |', ...rows, '');
  } else {
    parts.push('No limits set.', '');
  }
  const errorLevel = result.findings.filter((finding) => finding.level === 'error');
  if (errorLevel.length > 0) {
    parts.push(
      markdownRow(['fails', 'code', 'target', 'message']),
      '| --- | --- | --- | --- |',
      ...errorLevel.map((finding) => markdownRow([finding.failsCheck ? 'yes' : 'no (also in baseline)', finding.code, names.target(finding.target), finding.message])),
      '',
    );
  }
  const warnings = result.findings.length - errorLevel.length;
  if (warnings > 0) parts.push(`${warnings} warn-level finding(s) reported, not failing.`, '');
  if (result.baseline !== null) {
    const section = (title: string, changes: readonly { summary: string }[]): string[] => {
      if (changes.length === 0) return [];
      const { shown, more } = capped(changes);
      return [`**${title}**`, '', ...shown.map((change) => `- ${escapeMarkdown(change.summary)}`), ...(more > 0 ? [`- … and ${more} more`] : []), ''];
    };
    parts.push(
      `Compared with ${escapeMarkdown(result.baseline.ref)} (generated ${escapeMarkdown(result.baseline.baselineGeneratedAt)}), tolerance ${escapeMarkdown(String(result.baseline.tolerance))}.`,
      '',
      ...section('Regressions', result.baseline.regressions),
      ...section('Improvements', result.baseline.improvements),
      ...section('Notes', result.baseline.notes),
    );
  }
  if (result.skippedInputs.length > 0) parts.push('**Skipped inputs**', '', ...result.skippedInputs.map((skipped) => `- ${escapeMarkdown(skipped)}`), '');
  return `${parts.join('\n').trimEnd()}\n`;
}

export function renderCheckMarkdown(check: CheckReport, options: RenderOptions): string {
  return `${renderCheckVerdictMarkdown(check)}\n${renderMarkdown(check.report, options)}`;
}

/**
 * `check --format json`: `{ "report": <the audit report, contract order>, "check": <CheckResult> }`.
 * The report is kept whole and apart so `jq .report` is a valid saved report, and
 * `check --baseline` and `gpu-audit report` read this output directly.
 */
export function renderCheckJson(check: CheckReport): string {
  return [...renderCheckJsonPieces(check)].join('');
}

/**
 * renderCheckJson in pieces, written as they are made (the report of a large fleet is tens of
 * megabytes): the report's pieces (./json.ts) one level deeper. Indenting every line break is
 * exact: a line break inside a JSON value is written `\n`, never as one.
 */
export function* renderCheckJsonPieces(check: CheckReport): Generator<string, void, undefined> {
  const deeper = (text: string): string => text.replaceAll('\n', '\n  ');
  yield '{\n  "report": ';
  let previous: string | undefined;
  for (const piece of renderJsonPieces(check.report)) {
    if (previous !== undefined) yield deeper(previous);
    previous = piece;
  }
  // The report's last piece ends with its closing newline, which here is the member's comma.
  yield deeper((previous ?? '{}\n').slice(0, -1));
  yield `,\n  "check": ${deeper(JSON.stringify(check.check, null, 2))}\n}\n`;
}

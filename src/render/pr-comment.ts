/**
 * `--format github-comment`: one pull-request comment, made to be posted and then updated
 * in place (`gh pr comment --edit-last --body-file`, or found again by its first line, the
 * marker): the verdict, the fleet's money, and the plan's largest steps. The full report
 * belongs in an artifact; a comment over GitHub's 65,536-character limit is refused, so
 * the comment is cut well below it, saying so.
 */
import type { CheckReport, Report } from '../model/index.js';
import { escapeMarkdown } from '../support/index.js';
import { renderCheckVerdictMarkdown } from './check-verdict.js';
import { formatHours, formatPercent, formatQuantity, formatUsd, MISSING } from './format.js';
import { markdownTable } from './markdown-blocks.js';

/** The comment's first line: invisible, and what a workflow looks for to update the comment it made before. */
export const PR_COMMENT_MARKER = '<!-- gpu-audit:pr-comment -->';

/** GitHub refuses a comment body of more than 65,536 characters; the margin is for the cut note. */
export const PR_COMMENT_MAX_CHARS = 60_000;

/** Steps listed in the comment, largest savings first; the rest are counted. */
const STEPS_SHOWN = 5;

const money = (usd: number | null): string => (usd === null ? MISSING : `${formatUsd(usd, 0)}/month`);

/** The fleet's figures a reviewer needs first, as a two-column Markdown table (also in the step summary). */
export function fleetFiguresMarkdown(report: Report): string {
  const { summary, plan } = report;
  const rows: [string, string][] = [
    ['GPU cost', summary.monthlyCostUsd === null ? MISSING : `${money(summary.monthlyCostUsd)} for the GPUs seen`],
    ['waste', summary.wastePct === null ? MISSING : `${formatPercent(summary.wastePct)} of GPU-hours idle (${formatHours(summary.idleGpuHours)} of ${formatHours(summary.gpuHours)}), ${money(summary.monthlyWasteUsd)}`],
    plan === null
      ? ['savings', `${money(summary.potentialMonthlySavingsUsd)} potential, from ${formatQuantity(report.recommendations.length, 'recommendation')}`]
      : ['plan', `${money(plan.current.monthlyUsd)} now, ${money(plan.target.monthlyUsd)} target: saves ${money(plan.monthlySavingsUsd)} in ${formatQuantity(plan.steps.length, 'step')}`],
  ];
  return markdownTable(
    [
      { header: 'figure', align: 'left', cell: (row: [string, string]) => row[0] },
      { header: 'value', align: 'left', cell: (row: [string, string]) => row[1] },
    ],
    rows,
  );
}

function stepsMarkdown(report: Report): string[] {
  const steps = [...(report.plan?.steps ?? [])].sort((left, right) => right.monthlySavingsUsd - left.monthlySavingsUsd);
  if (steps.length === 0) return [];
  const shown = steps.slice(0, STEPS_SHOWN);
  const table = markdownTable(
    [
      { header: 'action', align: 'left', cell: (step: (typeof steps)[number]) => step.action },
      { header: 'saves $/month', align: 'right', cell: (step) => formatUsd(step.monthlySavingsUsd, 0) },
      { header: 'confidence', align: 'left', cell: (step) => step.confidence },
      { header: 'change', align: 'left', cell: (step) => `${step.from} → ${step.to}` },
    ],
    shown,
  );
  const more = steps.length - shown.length;
  return [`**Largest steps** (${shown.length} of ${steps.length}, by savings)`, '', table, ...(more > 0 ? ['', `… and ${formatQuantity(more, 'more step')} in the full report.`] : []), ''];
}

export function renderPrComment(check: CheckReport): string {
  const body = [
    PR_COMMENT_MARKER,
    renderCheckVerdictMarkdown(check).trimEnd(),
    '',
    fleetFiguresMarkdown(check.report),
    '',
    ...stepsMarkdown(check.report),
    `<sub>${escapeMarkdown(`${check.report.tool.name} ${check.report.tool.version}, report generated ${check.report.generatedAt}`)}</sub>`,
  ].join('\n');
  if (body.length <= PR_COMMENT_MAX_CHARS) return `${body}\n`;
  // Cut at a line, never inside a table row's escape.
  const cut = body.lastIndexOf('\n', PR_COMMENT_MAX_CHARS);
  return `${body.slice(0, cut)}\n\n… cut to fit a GitHub comment: the full verdict is in the report.\n`;
}

/**
 * The Workloads section of the Markdown report: one summary table of ten columns, then a
 * section per workload with every figure as a labelled line and its VRAM estimate term by
 * term (src/render/workload-figures.ts holds the figures; this file only writes Markdown).
 */
import type { Report, WorkloadEntry } from '../model/index.js';
import { escapeMarkdown } from '../support/index.js';
import type { GpuNames } from './gpu-labels.js';
import { markdownTable } from './markdown-blocks.js';
import { VRAM_ESTIMATE_LABEL, VRAM_ESTIMATE_NOTE, WORKLOAD_SUMMARY_COLUMNS, WORKLOAD_SUMMARY_NOTE, vramEstimate, workloadFigures } from './workload-figures.js';

function workloadSection(workload: WorkloadEntry, names: GpuNames): string {
  const lines = workloadFigures(workload, names).flatMap((figure) => [
    `- **${figure.label}:** ${escapeMarkdown(figure.value)}`,
    ...figure.details.map((line) => `  - ${escapeMarkdown(line)}`),
  ]);
  const estimate = vramEstimate(workload);
  const estimateLines = estimate === undefined
    ? []
    : ['', `**${VRAM_ESTIMATE_LABEL}** ${VRAM_ESTIMATE_NOTE}: ${escapeMarkdown(estimate.headline)}`, '', ...estimate.terms.map((term) => `- ${escapeMarkdown(term)}`)];
  return [`### Workload ${escapeMarkdown(workload.name)}`, '', ...lines, ...estimateLines].join('\n');
}

export function workloadsMarkdown(report: Report, names: GpuNames): string {
  if (report.workloads.length === 0) return '';
  return [
    '## Workloads',
    '',
    WORKLOAD_SUMMARY_NOTE,
    '',
    markdownTable(WORKLOAD_SUMMARY_COLUMNS, report.workloads),
    ...report.workloads.flatMap((workload) => ['', workloadSection(workload, names)]),
  ].join('\n');
}

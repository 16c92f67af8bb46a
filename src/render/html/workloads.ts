/**
 * The Workloads section of the HTML report: the ten summary columns Markdown has, then each
 * workload's figures in a <details> block (open: a closed one prints closed) (src/render/workload-figures.ts holds the figures;
 * this file only writes HTML, every value through `html`, which escapes it).
 */
import type { Report, WorkloadEntry } from '../../model/index.js';
import type { GpuNames } from '../gpu-labels.js';
import { VRAM_ESTIMATE_LABEL, VRAM_ESTIMATE_NOTE, WORKLOAD_SUMMARY_COLUMNS, WORKLOAD_SUMMARY_NOTE, vramEstimate, workloadFigures } from '../workload-figures.js';
import { html, type SafeHtml } from './escape.js';
import { table } from './sections.js';

function workloadDetails(workload: WorkloadEntry, names: GpuNames): SafeHtml {
  const figures = workloadFigures(workload, names).map((figure) => html`<dt>${figure.label}</dt><dd>${figure.value}${figure.details.length === 0 ? null : html`<ul>${figure.details.map((line) => html`<li>${line}</li>`)}</ul>`}</dd>`);
  const estimate = vramEstimate(workload);
  const estimateBlock = estimate === undefined
    ? null
    : html`<p><strong>${VRAM_ESTIMATE_LABEL}</strong> ${VRAM_ESTIMATE_NOTE}: ${estimate.headline}</p><ul>${estimate.terms.map((term) => html`<li>${term}</li>`)}</ul>`;
  return html`<details class="workload" open><summary>${workload.name} <span class="muted">${workload.kind}</span></summary><dl>${figures}</dl>${estimateBlock}</details>`;
}

export function workloadsSection(report: Report, names: GpuNames): SafeHtml | null {
  if (report.workloads.length === 0) return null;
  const headers = WORKLOAD_SUMMARY_COLUMNS.map((column) => ({ label: column.header, numeric: column.align === 'right' }));
  const rows = report.workloads.map((workload) => WORKLOAD_SUMMARY_COLUMNS.map((column) => column.cell(workload)));
  return html`<section id="workloads"><h2>Workloads</h2><p class="muted">${WORKLOAD_SUMMARY_NOTE}</p>${table(headers, rows)}${report.workloads.map((workload) => workloadDetails(workload, names))}</section>`;
}

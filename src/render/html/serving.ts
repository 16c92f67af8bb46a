/**
 * The Serving section of the HTML report: the ten columns every text format has
 * (src/render/serving-figures.ts), each value through `html`, which escapes it.
 */
import type { Report } from '../../model/index.js';
import { SERVING_COLUMNS, SERVING_NOTE } from '../serving-figures.js';
import { html, type SafeHtml } from './escape.js';
import { table } from './sections.js';

export function servingSection(report: Report): SafeHtml | null {
  const entries = report.serving ?? [];
  if (entries.length === 0) return null;
  const headers = SERVING_COLUMNS.map((column) => ({ label: column.documentHeader, numeric: column.align === 'right' }));
  return html`<section id="serving"><h2>Serving</h2><p class="muted">${SERVING_NOTE}</p>${table(headers, entries.map((entry) => SERVING_COLUMNS.map((column) => column.cell(entry))))}</section>`;
}

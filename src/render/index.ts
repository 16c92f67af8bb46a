/**
 * Report renderers: one file per format, one entry each in this registry. A new format
 * (csv, html, junit, sarif) is a file exporting a Renderer and one line below; the CLI
 * reads its `--format` choices from `reportFormats`.
 */
import type { CheckReport } from '../model/index.js';
import type { Report } from '../model/index.js';
import { renderCheckJson, renderCheckJsonPieces, renderCheckMarkdown, renderCheckTable } from './check-verdict.js';
import { renderCsv } from './csv.js';
import { renderHtml, renderHtmlPieces } from './html/index.js';
import { renderJson, renderJsonPieces } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown, renderMarkdownPieces } from './markdown.js';
import { renderSarif } from './sarif.js';
import { renderPrComment } from './pr-comment.js';
import { renderTable } from './table.js';
import { DEFAULT_RENDER_OPTIONS } from './types.js';
import type { RenderOptions, Renderer } from './types.js';
import type { OutputFormat } from './output-formats.js';

export const renderers = {
  table: renderTable,
  json: renderJson,
  markdown: renderMarkdown,
  html: renderHtml,
  csv: renderCsv,
} as const satisfies Record<string, Renderer>;

export type ReportFormat = keyof typeof renderers;

export const reportFormats = Object.keys(renderers) as ReportFormat[];

export function isReportFormat(value: string): value is ReportFormat {
  return Object.hasOwn(renderers, value);
}

/** Renders with the defaults (no colour, 100 columns) for whatever options are not given. */
export function renderReport(report: Report, format: ReportFormat, options: Partial<RenderOptions> = {}): string {
  return renderers[format](report, { ...DEFAULT_RENDER_OPTIONS, ...options });
}

/** The formats written in pieces, each as it is made: a large fleet's report is tens of megabytes (see ./json.ts). */
const pieceRenderers: Partial<Record<ReportFormat, (report: Report) => Iterable<string>>> = {
  json: renderJsonPieces,
  html: renderHtmlPieces,
  markdown: renderMarkdownPieces,
};

/**
 * What `audit` and `report` write for a format: the report in pieces where the format has
 * them, else one text; JUnit, SARIF and the PR comment render `findingsCheck` (the check of the report under
 * no limits, made by the caller only when asked: rendering computes nothing).
 */
export function renderReportOutput(report: Report, format: OutputFormat, options: RenderOptions, findingsCheck: () => CheckReport): string | Iterable<string> {
  if (format === 'junit' || format === 'sarif' || format === 'github-comment') return checkRenderers[format](findingsCheck());
  return pieceRenderers[format]?.(report) ?? renderers[format](report, options);
}

/**
 * Renderers of `gpu-audit check`: they read a CheckReport (the audit's report and the
 * check's verdict) and, like the report renderers, compute nothing.
 */
export type CheckRenderer = (check: CheckReport, options: RenderOptions) => string;

export const checkRenderers = {
  table: renderCheckTable,
  json: renderCheckJson,
  markdown: renderCheckMarkdown,
  junit: renderJunit,
  sarif: renderSarif,
  'github-comment': renderPrComment,
} as const satisfies Record<string, CheckRenderer>;

export type CheckFormat = keyof typeof checkRenderers;

/** What `check` writes for a format: the verdict with the report (JSON in pieces), HTML and CSV of the report itself. */
export function renderCheckOutput(check: CheckReport, format: OutputFormat, options: RenderOptions): string | Iterable<string> {
  if (format === 'html' || format === 'csv') return renderReportOutput(check.report, format, options, () => check);
  return format === 'json' ? renderCheckJsonPieces(check) : checkRenderers[format](check, options);
}

export const checkFormats = Object.keys(checkRenderers) as CheckFormat[];

export { OUTPUT_FORMATS, formatOfFile, usualExtensions } from './output-formats.js';
export type { OutputFormat } from './output-formats.js';

export { DEFAULT_RENDER_OPTIONS };
export type { RenderOptions, Renderer };
export { REFRESH_FORMATS, renderRefresh } from './catalog-refresh.js';
export type { ProviderResult, RefreshFormat } from './catalog-refresh.js';
export { CATALOG_FORMATS, renderCatalogList, renderCatalogShow } from './catalog.js';
export type { CatalogFormat } from './catalog.js';
export { annotationLines, checkAnnotations, isGitHubActions, stepSummaryText } from './github.js';
export { redactKeyFromEnv, redactReport, reportRedactor } from './redact.js';
export { SIZE_FORMATS, renderSize } from './size.js';

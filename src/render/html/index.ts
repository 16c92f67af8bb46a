/**
 * The HTML report: one self-contained file a person opens in a browser or attaches to a
 * ticket. Executive summary first, then charts a reader takes in at a glance (compute over
 * time, VRAM, idle hours, cost, hour-of-week), then the tables (GPUs, workloads), findings, recommendations and
 * the methodology. Every figure comes from the Report; every string from it is escaped.
 */
import type { Report } from '../../model/index.js';
import { gpuNames, type GpuNames } from '../gpu-labels.js';
import type { Renderer } from '../types.js';
import { html, type SafeHtml } from './escape.js';
import { gpuCharts } from './gpu-charts.js';
import { pagePieces } from './page.js';
import { planSection } from './plan.js';
import { workloadsSection } from './workloads.js';
import { servingSection } from './serving.js';
import { executiveSummary, findingsSection, gpuTable, header, methodology, recommendationsSection, windowAndSources } from './sections.js';

export const renderHtml: Renderer = (report: Report): string => [...renderHtmlPieces(report)].join('');

/**
 * renderHtml in pieces, a section at a time, each written as it is made: a large fleet's page
 * is tens of megabytes, and joined it was held whole, and again as the bytes written.
 */
export function* renderHtmlPieces(report: Report): Generator<string, void, undefined> {
  const names = gpuNames(report.gpus);
  const workloadsLink = [
    report.workloads.length === 0 ? null : html`<a href="#workloads">Workloads</a>`,
    (report.serving ?? []).length === 0 ? null : html`<a href="#serving">Serving</a>`,
  ];
  const navigation = report.plan === null
    ? html`<nav><a href="#summary">Summary</a><a href="#charts">Charts</a><a href="#gpus">GPUs</a>${workloadsLink}<a href="#findings">Findings</a><a href="#recommendations">Recommendations</a><a href="#methodology">Methodology</a></nav>`
    : html`<nav><a href="#summary">Summary</a><a href="#plan">Plan</a><a href="#charts">Charts</a><a href="#gpus">GPUs</a>${workloadsLink}<a href="#findings">Findings</a><a href="#methodology">Methodology</a></nav>`;
  function* sections(): Generator<SafeHtml, void, undefined> {
    yield header(report);
    yield navigation;
    yield executiveSummary(report, names);
    const plan = planSection(report);
    if (plan !== null) yield plan;
    yield chartsSection(report, names);
    yield gpuTable(report, names);
    const workloads = workloadsSection(report, names);
    if (workloads !== null) yield workloads;
    const serving = servingSection(report);
    if (serving !== null) yield serving;
    yield findingsSection(report, names);
    // A plan's steps are its recommendations: a report without a plan (schemaVersion 1) lists them.
    if (plan === null) yield recommendationsSection(report, names);
    yield windowAndSources(report);
    yield methodology(report);
  }
  yield* pagePieces('GPU audit report', sections());
}

function chartsSection(report: Report, names: GpuNames): SafeHtml {
  const charts = gpuCharts(report, names);
  const chartFigures = charts.map((chart) => html`<figure id="${chart.id}"><h3>${chart.heading}</h3><figcaption>${chart.note}</figcaption>${chart.body}</figure>`);
  return html`<section id="charts"><h2>Charts</h2>${charts.length === 0 ? html`<p>No figures to chart: the inputs hold no GPU.</p>` : chartFigures}</section>`;
}

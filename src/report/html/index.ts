/**
 * The HTML report: one self-contained file a person opens in a browser or attaches to a
 * ticket. Executive summary first, then charts a reader takes in at a glance (compute over
 * time, VRAM, idle hours, cost, hour-of-week), then the tables, findings, recommendations and
 * the methodology. Every figure comes from the Report; every string from it is escaped.
 */
import type { Report } from '../../model/report.js';
import { gpuNames } from '../gpu-labels.js';
import type { Renderer } from '../types.js';
import { html } from './escape.js';
import { gpuCharts } from './gpu-charts.js';
import { page } from './page.js';
import { executiveSummary, findingsSection, gpuTable, header, methodology, recommendationsSection, windowAndSources } from './sections.js';

export const renderHtml: Renderer = (report: Report): string => {
  const names = gpuNames(report.gpus);
  const charts = gpuCharts(report, names);
  const chartFigures = charts.map((chart) => html`<figure id="${chart.id}"><h3>${chart.heading}</h3><figcaption>${chart.note}</figcaption>${chart.body}</figure>`);
  const navigation = html`<nav><a href="#summary">Summary</a><a href="#charts">Charts</a><a href="#gpus">GPUs</a><a href="#findings">Findings</a><a href="#recommendations">Recommendations</a><a href="#methodology">Methodology</a></nav>`;
  const chartsSection = html`<section id="charts"><h2>Charts</h2>${charts.length === 0 ? html`<p>No figures to chart: the inputs hold no GPU.</p>` : chartFigures}</section>`;
  return page('GPU audit report', html`${header(report)}${navigation}${executiveSummary(report, names)}${chartsSection}${gpuTable(report, names)}${findingsSection(report, names)}${recommendationsSection(report, names)}${windowAndSources(report)}${methodology(report)}`);
};

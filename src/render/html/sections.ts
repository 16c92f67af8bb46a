/**
 * The text sections of the HTML report: executive summary, window and sources, GPU table,
 * findings, recommendations (generated configs in <pre>) and methodology. Every value goes
 * through `html`, which escapes it.
 */
import type { Finding, GpuEntry, Recommendation, Report, Severity } from '../../model/index.js';
import { FIGURE_DEFINITIONS, type FigureDefinition } from '../definitions.js';
import {
  MISSING,
  describeEvidence,
  displayTimeZone,
  formatCount,
  formatHours,
  formatInstant,
  formatNumber,
  formatPcieLink,
  formatPercent,
  formatQuantity,
  formatUsd,
  formatWindow,
  fractionAsPercent,
  hasPcieFigures,
  meanUtilizationBasis,
  mibAsGib,
} from '../format.js';
import { gpuRows, type GpuNames, shortModelName } from '../gpu-labels.js';
import { headingTargets, listsAllTargetsApart } from '../recommendation-targets.js';
import { configDetails } from './config-details.js';
import { html, SafeHtml } from './escape.js';

const TOP_ITEMS = 3;
const SEVERITY_ORDER: Readonly<Record<string, number>> = { error: 0, warning: 1, info: 2 } satisfies Record<Severity, number>;

/** Most severe first; an unknown severity (a re-rendered JSON file may hold anything) sorts last. */
export function bySeverity(left: Finding, right: Finding): number {
  return (SEVERITY_ORDER[left.severity] ?? 3) - (SEVERITY_ORDER[right.severity] ?? 3);
}

export function bySavings(left: Recommendation, right: Recommendation): number {
  return right.monthlySavingsUsd - left.monthlySavingsUsd;
}

/** A CSS class from a severity: only the three known ones, whatever the input says. */
function severityClass(severity: string): string {
  return Object.hasOwn(SEVERITY_ORDER, severity) ? `severity-${severity}` : 'severity-other';
}

function card(label: string, value: string, detail: string, tone: 'plain' | 'warn' | 'good' = 'plain'): SafeHtml {
  return html`<div class="card card-${tone}"><div class="card-label">${label}</div><div class="card-value">${value}</div><div class="card-detail">${detail}</div></div>`;
}

export function header(report: Report): SafeHtml {
  const zone = displayTimeZone(report.window.timezone);
  return html`<header><h1>GPU audit report</h1><p class="meta">${formatWindow(report.window)} · generated ${formatInstant(report.generatedAt, zone)} ${zone} by ${report.tool.name} ${report.tool.version}</p></header>`;
}

export function executiveSummary(report: Report, names: GpuNames): SafeHtml {
  const fleet = report.summary;
  const cards = [
    card('GPU cost', fleet.monthlyCostUsd === null ? MISSING : `${formatUsd(fleet.monthlyCostUsd, 0)}`, 'per month of 730 h for the GPUs seen, at the prices in force'),
    card('Paid for idle time', fleet.monthlyWasteUsd === null ? MISSING : formatUsd(fleet.monthlyWasteUsd, 0), `per month · ${formatPercent(fleet.wastePct)} of GPU-hours idle`, 'warn'),
    card('Potential savings', formatUsd(fleet.potentialMonthlySavingsUsd, 0), report.plan === null ? `per month from ${formatQuantity(report.recommendations.length, 'recommendation')}` : `per month: the plan, ${formatQuantity(report.plan.steps.length, 'step')}`, 'good'),
    card('GPU-hours observed', formatHours(fleet.gpuHours), `${formatHours(fleet.idleGpuHours)} idle`),
    card('Mean utilization', formatPercent(fleet.meanUtilization), fleet.meanUtilization === null ? 'no GPU reports utilization' : meanUtilizationBasis(fleet)),
    card('Fleet', formatQuantity(fleet.gpuCount, 'GPU'), `${formatQuantity(fleet.migDeviceCount, 'MIG device')} on ${formatQuantity(fleet.hostCount, 'host')}`),
  ];
  const findings = [...report.findings].sort(bySeverity).slice(0, TOP_ITEMS);
  const recommendations = [...report.recommendations].sort(bySavings).slice(0, TOP_ITEMS);
  const findingItems = findings.map((finding) => html`<li><span class="badge ${severityClass(finding.severity)}">${finding.severity}</span> <strong>${names.target(finding.target)}</strong>: ${finding.message}</li>`);
  // With a plan, each item is a step: its action says what to do (a kind may stand for several).
  const actionOf = new Map(report.plan?.steps.map((step) => [step.id, step.action]) ?? []);
  const recommendationItems = recommendations.map((item) => html`<li><span class="saving">${formatUsd(item.monthlySavingsUsd, 0)}/mo</span> ${actionOf.get(item.id) ?? item.kind}: ${item.proposed} <span class="muted">(${item.confidence} confidence)</span></li>`);
  return html`<section id="summary"><h2>Executive summary</h2><div class="cards">${cards}</div><div class="two-columns"><div><h3>Top findings</h3>${findings.length === 0 ? html`<p>None.</p>` : html`<ul class="top-list">${findingItems}</ul>`}${report.findings.length > TOP_ITEMS ? html`<p class="muted">${formatCount(report.findings.length - TOP_ITEMS)} more under <a href="#findings">Findings</a>.</p>` : null}</div><div><h3>${report.plan === null ? 'Top recommendations' : 'Top steps'}</h3>${recommendations.length === 0 ? html`<p>None.</p>` : html`<ul class="top-list">${recommendationItems}</ul>`}${report.recommendations.length > TOP_ITEMS ? html`<p class="muted">${formatCount(report.recommendations.length - TOP_ITEMS)} more under <a href="${report.plan === null ? '#recommendations' : '#plan'}">${report.plan === null ? 'Recommendations' : 'Plan'}</a>.</p>` : null}</div></div></section>`;
}

/** A table that scrolls sideways on a narrow screen and wraps when printed (page.ts). */
export function table(headers: readonly { label: string; numeric?: boolean }[], rows: readonly (readonly (string | SafeHtml)[])[]): SafeHtml {
  const head = headers.map((column) => html`<th${column.numeric === true ? html` class="num"` : null}>${column.label}</th>`);
  const body = rows.map((cells) => html`<tr>${cells.map((cell, i) => html`<td${headers[i]?.numeric === true ? html` class="num"` : null}>${cell}</td>`)}</tr>`);
  return html`<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

export function windowAndSources(report: Report): SafeHtml {
  const { settings, catalog } = report;
  const where = [settings.provider, settings.region].filter((part): part is string => part !== null);
  const warnings = report.sources.flatMap((source) => source.warnings.map((warning) => html`<li><strong>${source.ref}</strong>: ${warning}</li>`));
  const sources = table(
    [{ label: 'Source' }, { label: 'Format' }, { label: 'Records', numeric: true }, { label: 'Warnings', numeric: true }],
    report.sources.map((source) => [source.ref === '-' ? '- (stdin)' : source.ref, source.format, formatCount(source.records), formatCount(source.warnings.length)]),
  );
  return html`<section id="sources"><h2>Window and sources</h2><ul class="facts"><li><strong>Window:</strong> ${formatWindow(report.window)}</li><li><strong>Idle threshold:</strong> compute signal below ${formatPercent(settings.idleThresholdPct, null)}</li><li><strong>Pricing:</strong> ${[settings.pricing, ...where].join(', ')}</li><li><strong>Catalog:</strong> ${catalog.name}, as of ${catalog.asOf} (${catalog.source})</li></ul>${report.sources.length === 0 ? html`<p>No sources.</p>` : sources}${warnings.length > 0 ? html`<h3>Warnings</h3><ul class="warnings">${warnings}</ul>` : null}</section>`;
}

function instanceType(gpu: GpuEntry): string {
  if (gpu.instanceType === null) return MISSING;
  return gpu.instanceTypeBasis === null ? gpu.instanceType : `${gpu.instanceType} (${gpu.instanceTypeBasis})`;
}

export function gpuTable(report: Report, names: GpuNames): SafeHtml {
  if (report.gpus.length === 0) return html`<section id="gpus"><h2>GPUs</h2><p>No GPU was found in the inputs.</p></section>`;
  const headers = [
    { label: 'Host' }, { label: 'GPU' }, { label: 'Model' }, { label: 'Instance type' }, { label: 'Compute basis' },
    { label: 'VRAM total (GiB)', numeric: true }, { label: 'Peak used (GiB)', numeric: true }, { label: 'Headroom (%)', numeric: true },
    { label: 'Util mean (%)', numeric: true }, { label: 'Util p95 (%)', numeric: true }, { label: 'Idle (%)', numeric: true },
    { label: 'Idle (h)', numeric: true }, { label: 'GPU-hours (h)', numeric: true }, { label: 'Cost ($/h)', numeric: true },
  ];
  const rows = gpuRows(report.gpus).map(({ gpu, isMigDevice }) => [
    html`<span class="name">${gpu.host}</span>`,
    html`<span class="name${isMigDevice ? ' mig' : ''}" title="${gpu.id}">${isMigDevice ? '↳ ' : ''}${names.short(gpu)}</span>`,
    gpu.migProfile === null ? (shortModelName(gpu.model) ?? MISSING) : `MIG ${gpu.migProfile}`,
    instanceType(gpu),
    gpu.computeBasis,
    formatNumber(mibAsGib(gpu.memoryTotalMiB), 1),
    formatNumber(mibAsGib(gpu.memoryUsedMiB?.max), 1),
    formatNumber(gpu.vramHeadroomPct, 1),
    formatNumber(gpu.utilization?.mean, 1),
    formatNumber(gpu.utilization?.p95, 1),
    formatNumber(fractionAsPercent(gpu.idleFraction), 1),
    formatNumber(gpu.idleHours, 1),
    formatNumber(gpu.gpuHours, 1),
    formatNumber(gpu.hourlyCostUsd, 2),
  ]);
  return html`<section id="gpus"><h2>GPUs</h2>${table(headers, rows)}${pcieTable(report, names)}</section>`;
}

/** Traffic and link per board (a MIG device shares its parent's link); null when no GPU reports PCIe. */
function pcieTable(report: Report, names: GpuNames): SafeHtml | null {
  if (!hasPcieFigures(report.gpus)) return null;
  const headers = [
    { label: 'GPU' }, { label: 'Link' }, { label: 'Link bandwidth (MiB/s)', numeric: true },
    { label: 'Rx mean (MiB/s)', numeric: true }, { label: 'Rx p95 (MiB/s)', numeric: true }, { label: 'Rx max (MiB/s)', numeric: true },
    { label: 'Tx mean (MiB/s)', numeric: true }, { label: 'Tx p95 (MiB/s)', numeric: true }, { label: 'Tx max (MiB/s)', numeric: true },
  ];
  const rows = gpuRows(report.gpus).filter((row) => !row.isMigDevice).map(({ gpu }) => [
    html`<span class="name" title="${gpu.id}">${names.full(gpu)}</span>`,
    formatPcieLink(gpu.pcieLink),
    formatNumber(gpu.pcieLink?.bandwidthMiBps, 0),
    formatNumber(gpu.pcieRxMiBps?.mean, 1),
    formatNumber(gpu.pcieRxMiBps?.p95, 1),
    formatNumber(gpu.pcieRxMiBps?.max, 1),
    formatNumber(gpu.pcieTxMiBps?.mean, 1),
    formatNumber(gpu.pcieTxMiBps?.p95, 1),
    formatNumber(gpu.pcieTxMiBps?.max, 1),
  ]);
  return html`<h3 id="pcie">PCIe traffic</h3>${table(headers, rows)}`;
}

export function findingsSection(report: Report, names: GpuNames): SafeHtml {
  if (report.findings.length === 0) return html`<section id="findings"><h2>Findings</h2><p>None.</p></section>`;
  const rows = [...report.findings].sort(bySeverity).map((finding) => [
    html`<span class="badge ${severityClass(finding.severity)}">${finding.severity}</span>`,
    html`<code>${finding.code}</code>`,
    names.target(finding.target),
    finding.message,
    html`<span class="evidence">${describeEvidence(finding.evidence)}</span>`,
  ]);
  return html`<section id="findings"><h2>Findings</h2>${table([{ label: 'Severity' }, { label: 'Code' }, { label: 'Target' }, { label: 'Message' }, { label: 'Evidence' }], rows)}</section>`;
}

function recommendationCard(item: Recommendation, position: number, names: GpuNames): SafeHtml {
  const targets = item.targets.map(names.target);
  const allTargets = listsAllTargetsApart(targets) ? html`<dt>Targets (${formatCount(targets.length)})</dt><dd>${targets.join(', ')}</dd>` : null;
  const reasons = item.confidenceReasons.length > 0 ? `: ${item.confidenceReasons.join('; ')}` : '';
  const config = configDetails(item.config);
  // A cost is not a saving, and nothing saved is not a green figure (a `replicas` step that adds capacity saves $0).
  const tone = item.monthlySavingsUsd < 0 ? 'cost' : item.monthlySavingsUsd > 0 ? 'saving' : 'muted';
  const alternative = item.alternativeTo === undefined ? null : html` <span class="badge">alternative</span>`;
  const inTotal = item.counted === undefined ? null
    : html`<dt>In the total</dt><dd>${item.counted ? 'yes' : item.alternativeTo === undefined ? 'no' : `no, an alternative to ${item.alternativeTo}`}</dd>`;
  return html`<article class="recommendation${tone === 'cost' ? ' step-cost' : ''}"><h3>${position}. ${item.kind}: ${headingTargets(targets)}${alternative} <span class="${tone}">${formatUsd(item.monthlySavingsUsd, 0)}/month</span></h3><dl>${allTargets}${inTotal}<dt>Current</dt><dd>${item.current}</dd><dt>Proposed</dt><dd>${item.proposed}</dd><dt>Confidence</dt><dd>${item.confidence}${reasons}</dd><dt>Risks</dt><dd>${item.risks.length > 0 ? item.risks.join('; ') : 'none named'}</dd><dt>Rationale</dt><dd>${item.rationale}</dd><dt>Evidence</dt><dd class="evidence">${describeEvidence(item.evidence)}</dd></dl>${config}</article>`;
}

export function recommendationsSection(report: Report, names: GpuNames): SafeHtml {
  if (report.recommendations.length === 0) return html`<section id="recommendations"><h2>Recommendations</h2><p>None.</p></section>`;
  // What counts in the total first, alternatives after, as the terminal and Markdown order them.
  const cards = [...report.recommendations].sort((left, right) => Number(left.counted === false) - Number(right.counted === false) || bySavings(left, right)).map((item, index) => recommendationCard(item, index + 1, names));
  return html`<section id="recommendations"><h2>Recommendations</h2><p>Potential savings: <strong>${formatUsd(report.summary.potentialMonthlySavingsUsd, 0)}/month</strong> (fleet total as the recommender reports it). Sorted by monthly savings.</p>${cards}</section>`;
}

/** What the charts show, beside the definitions every format shares. */
const CHART_DEFINITIONS: readonly FigureDefinition[] = [
  {
    figure: 'Compute over time',
    unit: 'percent',
    meaning:
      'Each GPU\'s window in equal buckets (60 s, doubled until at most 500 cover it, or further in an audit of very many long series). A bucket holds the mean of the compute basis signal weighted by the time each sample covers inside it, a sample across a bucket edge counting on both sides; grey where no sample covered the bucket. On the processes basis the signal is 100 while a compute process runs and 0 otherwise.',
  },
  {
    figure: 'Hour-of-week profile',
    unit: 'percent',
    meaning:
      'The same time-weighted mean for each hour of the week in the report\'s time zone, Monday 00:00 first. Time is split where the wall-clock hour changes, so the hour skipped when clocks spring forward stays empty and the repeated autumn hour holds both.',
  },
];

/** Escapes a definition and shows its `code spans` as <code>: the backticks are matched on escaped text, so nothing else can become markup. */
function withCode(text: string): SafeHtml {
  return new SafeHtml(html`${text}`.value.replace(/`([^`]+)`/gu, '<code>$1</code>'));
}

export function methodology(report: Report): SafeHtml {
  const { settings, catalog } = report;
  const where = [settings.provider, settings.region].filter((part): part is string => part !== null);
  const definitions = [...FIGURE_DEFINITIONS, ...CHART_DEFINITIONS].map((definition) => html`<dt>${definition.figure} <span class="muted">(${definition.unit})</span></dt><dd>${withCode(definition.meaning)}</dd>`);
  return html`<section id="methodology"><h2>Methodology</h2><p>This report counts a device as idle while its compute signal is below ${formatPercent(settings.idleThresholdPct, null)}, and prices GPU time at ${[settings.pricing, ...where].join(', ')} prices from the catalog “${catalog.name}” as of ${catalog.asOf} (${catalog.source}). Tables round for reading; the JSON report holds the unrounded figures. Charts draw the report's figures only: timelines are the per-GPU buckets of the JSON field <code>timeline</code>, hour-of-week grids its <code>hourOfWeekComputePct</code>.</p><dl class="definitions">${definitions}</dl></section>`;
}

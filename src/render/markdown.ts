/**
 * The Markdown report: for a pull request, a wiki page or a ticket. Complete where the
 * terminal table is brief (every GPU, process, finding and recommendation), and it
 * defines every figure. Every string from the Report is escaped (escapeMarkdown):
 * input can neither break a table nor inject HTML.
 */
import type { Finding, GpuEntry, Recommendation, Report, ServingEntry, Severity } from '../model/index.js';
import { POOL_COLUMNS, POOL_NOTE, SERVING_COLUMNS, SERVING_NOTE, servingPools, type ServingPool } from './serving-figures.js';
import { FIGURE_DEFINITIONS } from './definitions.js';
import {
  describeEvidence,
  MISSING,
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
  hasPcieFigures,
  meanComputeText,
  meanUtilizationBasis,
} from './format.js';
import { gpuNames, gpuRows } from './gpu-labels.js';
import { headingTargets, listsAllTargetsApart } from './recommendation-targets.js';
import type { GpuNames, GpuRow } from './gpu-labels.js';
import { escapeMarkdown } from '../support/index.js';
import { GPU_FIGURES } from './gpu-figures.js';
import type { Renderer } from './types.js';
import { workloadsMarkdown } from './workloads-markdown.js';
import { configBlocks, markdownTable, type Column } from './markdown-blocks.js';
import { planMarkdownSection } from './plan-markdown.js';

const TOP_FINDINGS_IN_SUMMARY = 3;

const SEVERITY_ORDER: Readonly<Record<string, number>> = { error: 0, warning: 1, info: 2 } satisfies Record<Severity, number>;

/** Most severe first; an unknown severity (a re-rendered JSON file may hold anything) sorts last. */
function bySeverity(left: Finding, right: Finding): number {
  return (SEVERITY_ORDER[left.severity] ?? 3) - (SEVERITY_ORDER[right.severity] ?? 3);
}

/** Counted recommendations first (their savings add up to the total), then alternatives; each by savings. */
function bySavings(left: Recommendation, right: Recommendation): number {
  return Number(left.counted === false) - Number(right.counted === false) || right.monthlySavingsUsd - left.monthlySavingsUsd;
}

function title(report: Report): string {
  const zone = displayTimeZone(report.window.timezone);
  const generated = `${formatInstant(report.generatedAt, zone)} ${zone}`;
  return [
    '# GPU audit report',
    '',
    `Generated ${escapeMarkdown(generated)} by ${escapeMarkdown(`${report.tool.name} ${report.tool.version}`)} (report schema ${escapeMarkdown(String(report.schemaVersion))}).`,
  ].join('\n');
}

function findingLine(finding: Finding, names: GpuNames): string {
  return `**${escapeMarkdown(finding.severity)}** ${escapeMarkdown(finding.code)} on ${escapeMarkdown(names.target(finding.target))}: ${escapeMarkdown(finding.message)}`;
}

function summary(report: Report, names: GpuNames): string {
  const fleet = report.summary;
  const waste =
    fleet.wastePct === null ? MISSING : `${formatPercent(fleet.wastePct)} of GPU-hours idle, costing ${formatUsd(fleet.monthlyWasteUsd, 0)}/month`;
  const findings = [...report.findings].sort(bySeverity);
  const topFindings =
    findings.length === 0
      ? ['- **Findings:** none.']
      : [
          `- **Top findings** (${formatCount(Math.min(TOP_FINDINGS_IN_SUMMARY, findings.length))} of ${formatCount(findings.length)}):`,
          ...findings.slice(0, TOP_FINDINGS_IN_SUMMARY).map((finding) => `  - ${findingLine(finding, names)}`),
        ];
  return [
    '## Summary',
    '',
    `- **Fleet:** ${formatQuantity(fleet.gpuCount, 'GPU')} and ${formatQuantity(fleet.migDeviceCount, 'MIG device')} on ${formatQuantity(fleet.hostCount, 'host')}; ${formatHours(fleet.gpuHours)} of GPU time observed, ${formatHours(fleet.idleGpuHours)} idle.`,
    `- **Monthly GPU cost:** ${fleet.monthlyCostUsd === null ? MISSING : `${escapeMarkdown(`${formatUsd(fleet.monthlyCostUsd, 0)}/month`)} for the GPUs seen`}`,
    `- **Waste:** ${escapeMarkdown(waste)}`,
    `- **Mean utilization:** ${fleet.meanUtilization === null ? MISSING : `${formatPercent(fleet.meanUtilization)} ${meanUtilizationBasis(fleet)}`}`,
    `- **Mean compute:** ${meanComputeText(fleet)}`,
    report.plan === null
      ? `- **Potential savings:** ${escapeMarkdown(`${formatUsd(fleet.potentialMonthlySavingsUsd, 0)}/month`)} from ${formatQuantity(report.recommendations.length, 'recommendation')}`
      : `- **Plan:** ${escapeMarkdown(`${formatUsd(report.plan.current.monthlyUsd, 0)}/month now, ${formatUsd(report.plan.target.monthlyUsd, 0)}/month target: saves ${formatUsd(report.plan.monthlySavingsUsd, 0)}/month`)} in ${formatQuantity(report.plan.steps.length, 'step')} (below)`,
    ...topFindings,
  ].join('\n');
}

function windowAndSources(report: Report): string {
  const { settings, catalog } = report;
  const where = [settings.provider, settings.region].filter((part): part is string => part !== null);
  const age = catalog.ageDays === null ? '' : `, ${formatQuantity(catalog.ageDays, 'day')} old`;
  const sourceColumns: Column<Report['sources'][number]>[] = [
    { header: 'Source', align: 'left', cell: (source) => (source.ref === '-' ? '- (stdin)' : source.ref) },
    { header: 'Format', align: 'left', cell: (source) => source.format },
    { header: 'Records', align: 'right', cell: (source) => formatCount(source.records) },
    { header: 'Warnings', align: 'right', cell: (source) => formatCount(source.warnings.length) },
  ];
  const warnings = report.sources.flatMap((source) => source.warnings.map((warning) => `- ${escapeMarkdown(source.ref)}: ${escapeMarkdown(warning)}`));
  return [
    '## Window and sources',
    '',
    `- **Window:** ${escapeMarkdown(formatWindow(report.window))}`,
    `- **Idle threshold:** compute signal below ${formatPercent(settings.idleThresholdPct, null)}`,
    `- **Pricing:** ${escapeMarkdown([settings.pricing, ...where].join(', '))}`,
    `- **Catalog:** ${escapeMarkdown(`${catalog.name}, as of ${catalog.asOf} (${catalog.source}${age})`)}`,
    '',
    report.sources.length === 0 ? 'No sources.' : markdownTable(sourceColumns, report.sources),
    ...(warnings.length > 0 ? ['', 'Warnings:', '', ...warnings] : []),
  ].join('\n');
}

function gpuLabel(row: GpuRow, names: GpuNames): string {
  return `${row.isMigDevice ? '↳ ' : ''}${names.short(row.gpu)}`;
}

function instanceType(gpu: GpuEntry): string {
  if (gpu.instanceType === null) return MISSING;
  return gpu.instanceTypeBasis === null ? gpu.instanceType : `${gpu.instanceType} (${gpu.instanceTypeBasis})`;
}

/** The figures of the GPU table; the rest (time, instance type, id) go in a second table, so neither passes ten columns. */
const GPU_TABLE_FIGURES = new Set(['VRAM total (GiB)', 'Peak used (GiB)', 'Headroom (%)', 'Util mean (%)', 'Util p95 (%)', 'Idle (%)', 'Cost ($/h)']);

function figureColumns(keep: (header: string) => boolean): Column<GpuRow>[] {
  return GPU_FIGURES.filter((figure) => keep(figure.documentHeader)).map((figure) => ({ header: figure.documentHeader, align: 'right', cell: ({ gpu }) => figure.cell(gpu) }));
}

function gpuColumns(names: GpuNames): Column<GpuRow>[] {
  return [
    { header: 'Host', align: 'left', cell: ({ gpu }) => gpu.host },
    { header: 'GPU', align: 'left', cell: (row) => gpuLabel(row, names) },
    { header: 'Model', align: 'left', cell: ({ gpu }) => (gpu.migProfile === null ? (gpu.model ?? MISSING) : `MIG ${gpu.migProfile}`) },
    ...figureColumns((header) => GPU_TABLE_FIGURES.has(header)),
  ];
}

function gpuTimeColumns(names: GpuNames): Column<GpuRow>[] {
  return [
    { header: 'GPU', align: 'left', cell: ({ gpu }) => names.full(gpu) },
    { header: 'Instance type', align: 'left', cell: ({ gpu }) => instanceType(gpu) },
    ...figureColumns((header) => !GPU_TABLE_FIGURES.has(header)),
    { header: 'ID', align: 'left', cell: ({ gpu }) => gpu.id },
  ];
}

function computeColumns(names: GpuNames): Column<GpuRow>[] {
  return [
    { header: 'GPU', align: 'left', cell: ({ gpu }) => names.full(gpu) },
    { header: 'Compute basis', align: 'left', cell: ({ gpu }) => gpu.computeBasis },
    { header: 'SM active mean (%)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.smActive?.mean, 1) },
    { header: 'SM active p95 (%)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.smActive?.p95, 1) },
    { header: 'Tensor active mean (%)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.tensorActive?.mean, 1) },
    { header: 'Tensor active p95 (%)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.tensorActive?.p95, 1) },
    { header: 'GR engine active mean (%)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.grEngineActive?.mean, 1) },
    { header: 'GR engine active p95 (%)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.grEngineActive?.p95, 1) },
  ];
}

function pcieColumns(names: GpuNames): Column<GpuRow>[] {
  return [
    { header: 'GPU', align: 'left', cell: ({ gpu }) => names.full(gpu) },
    { header: 'Link', align: 'left', cell: ({ gpu }) => formatPcieLink(gpu.pcieLink) },
    { header: 'Link bandwidth (MiB/s)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.pcieLink?.bandwidthMiBps, 0) },
    { header: 'Rx mean (MiB/s)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.pcieRxMiBps?.mean, 1) },
    { header: 'Rx p95 (MiB/s)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.pcieRxMiBps?.p95, 1) },
    { header: 'Rx max (MiB/s)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.pcieRxMiBps?.max, 1) },
    { header: 'Tx mean (MiB/s)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.pcieTxMiBps?.mean, 1) },
    { header: 'Tx p95 (MiB/s)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.pcieTxMiBps?.p95, 1) },
    { header: 'Tx max (MiB/s)', align: 'right', cell: ({ gpu }) => formatNumber(gpu.pcieTxMiBps?.max, 1) },
  ];
}

function gpus(report: Report, names: GpuNames): string {
  if (report.gpus.length === 0) return '## GPUs\n\nNo GPU was found in the inputs.';
  const rows = gpuRows(report.gpus);
  const hasProfiling = report.gpus.some((gpu) => gpu.smActive !== null || gpu.tensorActive !== null || gpu.grEngineActive !== null);
  // PCIe belongs to the board: MIG devices would repeat their parent's link and have no traffic of their own.
  const boards = rows.filter((row) => !row.isMigDevice);
  return [
    '## GPUs',
    '',
    markdownTable(gpuColumns(names), rows),
    '',
    '### Time, instance and id',
    '',
    markdownTable(gpuTimeColumns(names), rows),
    ...(hasProfiling ? ['', '### Compute activity (DCGM profiling)', '', markdownTable(computeColumns(names), rows)] : []),
    ...(hasPcieFigures(report.gpus) ? ['', '### PCIe traffic', '', markdownTable(pcieColumns(names), boards)] : []),
  ].join('\n');
}

interface ProcessRow {
  gpu: GpuEntry;
  process: GpuEntry['processes'][number];
}

function processes(report: Report, names: GpuNames): string {
  const rows: ProcessRow[] = gpuRows(report.gpus).flatMap(({ gpu }) =>
    [...gpu.processes]
      .sort((left, right) => (right.maxMemoryMiB ?? -1) - (left.maxMemoryMiB ?? -1) || left.pid - right.pid)
      .map((process) => ({ gpu, process })),
  );
  if (rows.length === 0) return '## Processes\n\nNo process list in the inputs.';
  const columns: Column<ProcessRow>[] = [
    { header: 'GPU', align: 'left', cell: ({ gpu }) => names.full(gpu) },
    { header: 'PID', align: 'right', cell: ({ process }) => String(process.pid) },
    { header: 'Process', align: 'left', cell: ({ process }) => process.name },
    { header: 'Type', align: 'left', cell: ({ process }) => process.type ?? MISSING },
    { header: 'Peak memory (MiB)', align: 'right', cell: ({ process }) => formatNumber(process.maxMemoryMiB, 0) },
    { header: 'Samples', align: 'right', cell: ({ process }) => formatCount(process.samples) },
  ];
  return ['## Processes', '', 'Sorted by peak memory on each device.', '', markdownTable(columns, rows)].join('\n');
}

function serving(report: Report): string {
  const entries = report.serving ?? [];
  if (entries.length === 0) return '';
  const columns: Column<ServingEntry>[] = SERVING_COLUMNS.map((column) => ({ header: column.documentHeader, align: column.align, cell: column.cell }));
  const pools = servingPools(report.workloads);
  const poolColumns: Column<ServingPool>[] = POOL_COLUMNS.map((column) => ({ header: column.documentHeader, align: column.align, cell: column.cell }));
  return [
    '## Serving', '', escapeMarkdown(SERVING_NOTE), '', markdownTable(columns, entries),
    ...(pools.length === 0 ? [] : ['', '### Serving pools', '', escapeMarkdown(POOL_NOTE), '', markdownTable(poolColumns, pools)]),
  ].join('\n');
}

function findings(report: Report, names: GpuNames): string {
  if (report.findings.length === 0) return '## Findings\n\nNone.';
  const columns: Column<Finding>[] = [
    { header: 'Severity', align: 'left', cell: (finding) => finding.severity },
    { header: 'Code', align: 'left', cell: (finding) => finding.code },
    { header: 'Target', align: 'left', cell: (finding) => names.target(finding.target) },
    { header: 'Message', align: 'left', cell: (finding) => finding.message },
    { header: 'Evidence', align: 'left', cell: (finding) => describeEvidence(finding.evidence) },
  ];
  return ['## Findings', '', markdownTable(columns, [...report.findings].sort(bySeverity))].join('\n');
}

function recommendation(item: Recommendation, position: number, names: GpuNames): string {
  const targets = item.targets.map(names.target);
  const reasons = item.confidenceReasons.length > 0 ? `: ${item.confidenceReasons.join('; ')}` : '';
  return [
    `### ${position}. ${escapeMarkdown(`${item.kind}: ${headingTargets(targets)}`)}`,
    '',
    ...(listsAllTargetsApart(targets) ? [`- **Targets (${formatCount(targets.length)}):** ${escapeMarkdown(targets.join(', '))}`] : []),
    `- **Current:** ${escapeMarkdown(item.current)}`,
    `- **Proposed:** ${escapeMarkdown(item.proposed)}`,
    `- **Saves:** ${escapeMarkdown(`${formatUsd(item.monthlySavingsUsd, 0)}/month`)}`,
    ...(item.counted === undefined ? [] : [`- **In the total:** ${item.counted ? 'yes' : escapeMarkdown(item.alternativeTo === undefined ? 'no' : `no, an alternative to ${item.alternativeTo}`)}`]),
    `- **Confidence:** ${escapeMarkdown(`${item.confidence}${reasons}`)}`,
    `- **Risks:** ${item.risks.length > 0 ? escapeMarkdown(item.risks.join('; ')) : 'none named'}`,
    `- **Rationale:** ${escapeMarkdown(item.rationale)}`,
    `- **Evidence:** ${escapeMarkdown(describeEvidence(item.evidence))}`,
    ...configBlocks(item.config),
  ].join('\n');
}

/** A report without a plan (schemaVersion 1) lists its recommendations; a plan's steps are its recommendations. */
function recommendations(report: Report, names: GpuNames): string {
  if (report.plan !== null) return '';
  if (report.recommendations.length === 0) return '## Recommendations\n\nNone.';
  const sorted = [...report.recommendations].sort(bySavings);
  return [
    '## Recommendations',
    '',
    `Potential savings: ${escapeMarkdown(`${formatUsd(report.summary.potentialMonthlySavingsUsd, 0)}/month`)} (fleet total as the recommender reports it). Sorted by monthly savings.`,
    ...sorted.flatMap((item, index) => ['', recommendation(item, index + 1, names)]),
  ].join('\n');
}

function methodology(report: Report): string {
  const { settings, catalog } = report;
  const where = [settings.provider, settings.region].filter((part): part is string => part !== null);
  return [
    '## Methodology',
    '',
    `This report counts a device as idle while its compute signal is below ${formatPercent(settings.idleThresholdPct, null)}, and prices GPU time at ${escapeMarkdown([settings.pricing, ...where].join(', '))} prices from the catalog ${escapeMarkdown(`"${catalog.name}"`)} as of ${escapeMarkdown(catalog.asOf)} (${escapeMarkdown(catalog.source)}). Tables round for reading; the JSON report holds the unrounded figures.`,
    '',
    ...FIGURE_DEFINITIONS.map((definition) => `- **${definition.figure}** (${definition.unit}): ${definition.meaning}`),
  ].join('\n');
}

export const renderMarkdown: Renderer = (report: Report): string => [...renderMarkdownPieces(report)].join('');

/**
 * renderMarkdown in pieces, a section at a time (sections apart by a blank line, an empty one
 * left out), each written as it is made: a large fleet's document is tens of megabytes.
 */
export function* renderMarkdownPieces(report: Report): Generator<string, void, undefined> {
  const names = gpuNames(report.gpus);
  const sections: (() => string)[] = [
    () => title(report),
    () => summary(report, names),
    () => planMarkdownSection(report),
    () => windowAndSources(report),
    () => gpus(report, names),
    () => processes(report, names),
    () => workloadsMarkdown(report, names),
    () => serving(report),
    () => findings(report, names),
    () => recommendations(report, names),
    () => methodology(report),
  ];
  let written = 0;
  for (const section of sections) {
    const text = section();
    if (text === '') continue;
    yield written === 0 ? text : `\n\n${text}`;
    written += 1;
  }
  yield '\n';
}

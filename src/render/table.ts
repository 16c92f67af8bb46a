/**
 * The terminal report: what a platform engineer reads first. It shows the figures
 * the Report holds, rounded for reading, and says where their definitions live.
 */
import { Chalk } from 'chalk';
import type { Finding, ProcessSummary, Recommendation, Report, ServingEntry, Severity } from '../model/index.js';
import {
  MISSING,
  displayTimeZone,
  formatCount,
  formatHours,
  formatInstant,
  formatPercent,
  formatQuantity,
  formatUsd,
  formatWindow,
  formatMemory,
  meanComputeText,
  meanUtilizationBasis,
} from './format.js';
import { GPU_FIGURES } from './gpu-figures.js';
import { gpuNames, gpuRows, processDisplayName, shortModelName } from './gpu-labels.js';
import type { GpuNames, GpuRow } from './gpu-labels.js';
import { toDisplayText } from '../support/index.js';
import { cellWidth, fitColumnWidths, truncateEnd, truncateMiddle, wrapItems, wrapWords } from './terminal-layout.js';
import { renderTerminalTable, tableWidth } from './terminal-table.js';
import type { TerminalColumn } from './terminal-table.js';
import type { RenderOptions, Renderer } from './types.js';
import { planTerminalSection } from './plan-terminal.js';
import { workloadsTerminalSection } from './workloads-table.js';
import { renderFittedTable } from './fitted-table.js';
import { POOL_COLUMNS, POOL_NOTE, SERVING_COLUMNS, SERVING_NOTE, servingPools, type ServingPool } from './serving-figures.js';

const TOP_RECOMMENDATIONS = 5;
const MOST_FINDINGS = 15;
const MOST_SOURCES_LISTED = 4;
const MOST_WARNINGS_LISTED = 5;
const TOP_PROCESSES_PER_GPU = 3;
const LABEL_WIDTH = 9;
/** Finding and recommendation targets: room for `host #0 8f3c2a1b GI 1` with a short host. */
const TARGET_WIDTH = 28;
/**
 * A recommendation can name a whole pool (a purchase plan over 72 GPUs): the terminal lists
 * the first few, one per line, and counts the rest; every format but the table names them all.
 */
const TARGETS_SHOWN = 4;
const FLEET_LABEL_WIDTH = 13;
const INDENT = ' '.repeat(LABEL_WIDTH);

type Paint = (text: string) => string;

interface Style {
  title: Paint;
  heading: Paint;
  dim: Paint;
  good: Paint;
  severity: Record<Severity, Paint>;
}

function terminalStyle(color: boolean): Style {
  // Level 1 (16 colours) is all this output uses; level 0 makes every paint the identity.
  const chalk = new Chalk({ level: color ? 1 : 0 });
  return {
    title: chalk.bold,
    heading: chalk.bold,
    dim: chalk.dim,
    good: chalk.green,
    severity: { error: chalk.red.bold, warning: chalk.yellow, info: chalk.cyan },
  };
}

interface Context {
  report: Report;
  style: Style;
  width: number;
  names: GpuNames;
}

/** `label    value`, the value wrapped under itself. */
function labelled(label: string, value: string, width: number, labelWidth = LABEL_WIDTH): string {
  return wrapWords(value, width - labelWidth, '')
    .map((line, index) => `${(index === 0 ? label : '').padEnd(labelWidth)}${line}`)
    .join('\n');
}

/** `-` is how the user named standard input. */
function sourceName(ref: string): string {
  return ref === '-' ? 'stdin' : toDisplayText(ref);
}

/** One aligned line per source (up to a few): name, format, records read, warnings. */
function sourceLines(report: Report, width: number): string[] {
  const listed = report.sources.slice(0, MOST_SOURCES_LISTED);
  const counts = listed.map((source) => {
    const warnings = source.warnings.length > 0 ? `, ${formatQuantity(source.warnings.length, 'warning')}` : '';
    return `${formatQuantity(source.records, 'record')}${warnings}`;
  });
  const formatWidth = Math.max(0, ...listed.map((source) => cellWidth(toDisplayText(source.format))));
  // Names (often paths) get what the format and counts leave, cut in the middle where the file name is kept.
  const room = width - LABEL_WIDTH - formatWidth - Math.max(0, ...counts.map(cellWidth)) - 4;
  const widestName = Math.max(0, ...listed.map((source) => cellWidth(sourceName(source.ref))));
  const nameWidth = Math.min(widestName, Math.max(12, room));
  const lines = listed.map((source, index) => {
    const name = truncateMiddle(sourceName(source.ref), nameWidth).padEnd(nameWidth);
    return truncateEnd(`${name}  ${toDisplayText(source.format).padEnd(formatWidth)}  ${counts[index]!}`, width - LABEL_WIDTH);
  });
  const unlisted = report.sources.length - listed.length;
  if (unlisted > 0) lines.push(`and ${formatQuantity(unlisted, 'more source')}`);
  return (lines.length > 0 ? lines : ['none']).map((line, index) => `${(index === 0 ? 'sources' : '').padEnd(LABEL_WIDTH)}${line}`);
}

/** The first few source warnings, one line each: a reader should not miss that input was skipped. */
function warningLines(report: Report, style: Style, width: number): string[] {
  const warnings = report.sources.flatMap((source) => source.warnings.map((warning) => `${sourceName(source.ref)}: ${toDisplayText(warning)}`));
  const lines = warnings.slice(0, MOST_WARNINGS_LISTED).map((warning) => truncateEnd(`! ${warning}`, width - LABEL_WIDTH));
  if (warnings.length > lines.length) lines.push(`! and ${formatQuantity(warnings.length - lines.length, 'more warning')} (see --format markdown)`);
  return lines.map((line) => `${INDENT}${style.dim(line)}`);
}

function headerSection({ report, style, width }: Context): string {
  const zone = displayTimeZone(report.window.timezone);
  const generated = `(${toDisplayText(report.tool.name)} ${toDisplayText(report.tool.version)}, generated ${formatInstant(report.generatedAt, zone)} ${zone})`;
  const { catalog, settings } = report;
  const age = catalog.ageDays === null ? '' : `, ${formatQuantity(catalog.ageDays, 'day')} old`;
  const where = [settings.provider, settings.region].filter((part): part is string => part !== null).map(toDisplayText);
  const pricing = [`${toDisplayText(settings.pricing)} prices`, ...where].join(', ');
  const title = 'GPU audit report';
  return [
    `${style.title(title)} ${style.dim(truncateEnd(generated, width - title.length - 1))}`,
    labelled('window', formatWindow(report.window), width),
    ...sourceLines(report, width),
    ...warningLines(report, style, width),
    labelled('catalog', `${toDisplayText(catalog.name)}, as of ${toDisplayText(catalog.asOf)} (${toDisplayText(catalog.source)}${age})`, width),
    labelled('pricing', `${pricing}; idle means the compute signal is below ${formatPercent(settings.idleThresholdPct, null)}`, width),
  ].join('\n');
}

interface GpuColumn {
  header: string;
  align: 'left' | 'right';
  /** Text columns shrink to fit the terminal; figures never do. */
  shrink?: { minimum: number; truncate: (text: string, width: number) => string };
  cell: (row: GpuRow, names: GpuNames) => string;
}

// One space in from the parent's label, so MIG devices read as its children.
const MIG_BRANCH = { middle: ' ├ ', last: ' └ ' };

const GPU_COLUMNS: readonly GpuColumn[] = [
  // Hosts are blanked on repeated rows below; they differ at the end (`…-x7k9`), so cut the middle.
  { header: 'host', align: 'left', shrink: { minimum: 6, truncate: truncateMiddle }, cell: ({ gpu }) => toDisplayText(gpu.host) },
  {
    header: 'GPU',
    align: 'left',
    // `#0 8f3c2a1b` is what tells two GPUs apart: it gives way last.
    shrink: { minimum: 11, truncate: truncateEnd },
    cell: ({ gpu, isMigDevice, isLastChild }, names) =>
      `${isMigDevice ? (isLastChild ? MIG_BRANCH.last : MIG_BRANCH.middle) : ''}${names.short(gpu)}`,
  },
  {
    header: 'model',
    align: 'left',
    shrink: { minimum: 6, truncate: truncateEnd },
    cell: ({ gpu }) => (gpu.migProfile !== null ? `MIG ${toDisplayText(gpu.migProfile)}` : (shortModelName(gpu.model) ?? MISSING)),
  },
  ...GPU_FIGURES.map((figure): GpuColumn => ({ header: figure.terminalHeader, align: 'right', cell: ({ gpu }) => figure.cell(gpu) })),
];

function gpuSection({ report, style, width, names }: Context): string {
  const heading = style.heading(`GPUs (${formatCount(report.summary.gpuCount)} physical, ${formatQuantity(report.summary.migDeviceCount, 'MIG device')})`);
  if (report.gpus.length === 0) return `${heading}\nNo GPU was found in the inputs.`;
  const rows = gpuRows(report.gpus);
  const cells = rows.map((row) => GPU_COLUMNS.map((column) => column.cell(row, names)));
  // A host is named once, on the first of its consecutive rows.
  const hostCells = cells.map((row) => row[0]!);
  cells.forEach((row, index) => {
    if (index > 0 && hostCells[index] === hostCells[index - 1]) row[0] = '';
  });

  const gaps = GPU_COLUMNS.length - 1;
  const widths = fitColumnWidths(
    GPU_COLUMNS.map((column, index) => ({
      natural: Math.max(cellWidth(column.header), ...cells.map((row) => cellWidth(row[index]!))),
      minimum: column.shrink?.minimum ?? 0,
      flexible: column.shrink !== undefined,
    })),
    width - gaps,
  );
  const fitted = cells.map((row) =>
    row.map((text, index) => {
      const truncate = GPU_COLUMNS[index]!.shrink?.truncate;
      const cell = truncate === undefined ? text : truncate(text, widths[index]!);
      return cell === MISSING ? style.dim(cell) : cell;
    }),
  );
  const columns: TerminalColumn[] = GPU_COLUMNS.map((column, index) => ({ header: column.header, align: column.align, width: widths[index]! }));
  return `${heading}\n${renderTerminalTable(columns, fitted)}`;
}

/** Largest first; a process whose memory the driver did not report (null) goes last. */
function byPeakMemory(left: ProcessSummary, right: ProcessSummary): number {
  return (right.maxMemoryMiB ?? -1) - (left.maxMemoryMiB ?? -1) || left.pid - right.pid;
}

function processSection({ report, style, width, names }: Context): string {
  const heading = style.heading('Top processes by peak VRAM');
  const withProcesses = gpuRows(report.gpus).filter(({ gpu }) => gpu.processes.length > 0);
  if (withProcesses.length === 0) return `${heading}\nNo process list in the inputs.`;
  const labels = withProcesses.map(({ gpu }) => truncateMiddle(names.full(gpu), Math.floor(width / 3)));
  const labelWidth = Math.max(...labels.map(cellWidth));
  const lines = withProcesses.map(({ gpu }, index) => {
    const sorted = [...gpu.processes].sort(byPeakMemory);
    const shown = sorted
      .slice(0, TOP_PROCESSES_PER_GPU)
      .map((process) => `${processDisplayName(process.name)} [${process.pid}] ${formatMemory(process.maxMemoryMiB)}`);
    const more = sorted.length > TOP_PROCESSES_PER_GPU ? [`+${sorted.length - TOP_PROCESSES_PER_GPU} more`] : [];
    return wrapItems([...shown, ...more], width, `${labels[index]!.padEnd(labelWidth)}  `, ' '.repeat(labelWidth + 2)).join('\n');
  });
  return `${heading}\n${lines.join('\n')}`;
}

function fleetSection({ report, style, width }: Context): string {
  const summary = report.summary;
  const savingsCount = report.recommendations.length;
  const idleCost = summary.monthlyWasteUsd === null ? '' : `, of which idle ${formatUsd(summary.monthlyWasteUsd, 0)}/month`;
  const rows: [string, string][] = [
    ['GPUs', `${formatCount(summary.gpuCount)} physical, ${formatQuantity(summary.migDeviceCount, 'MIG device')}, ${formatQuantity(summary.hostCount, 'host')}`],
    ['GPU-hours', `${formatHours(summary.gpuHours)} observed, ${formatHours(summary.idleGpuHours)} idle`],
    ['waste', summary.wastePct === null ? MISSING : `${formatPercent(summary.wastePct)} of GPU-hours idle`],
    ['mean util', summary.meanUtilization === null ? MISSING : `${formatPercent(summary.meanUtilization)} ${meanUtilizationBasis(summary)}`],
    ['compute', meanComputeText(summary)],
    ['GPU cost', summary.monthlyCostUsd === null ? MISSING : `${formatUsd(summary.monthlyCostUsd, 0)}/month for the GPUs seen${idleCost}`],
    ['savings', report.plan === null
      ? `${style.good(`${formatUsd(summary.potentialMonthlySavingsUsd, 0)}/month`)} potential, from ${formatQuantity(savingsCount, 'recommendation')}`
      : `${style.good(`${formatUsd(summary.potentialMonthlySavingsUsd, 0)}/month`)}: the plan below, from ${formatQuantity(report.plan.steps.length, 'step')}`],
  ];
  return [style.heading('Fleet'), ...rows.map(([label, value]) => labelled(`  ${label}`, value, width, FLEET_LABEL_WIDTH))].join('\n');
}

const SEVERITY_ORDER: Readonly<Record<string, number>> = { error: 0, warning: 1, info: 2 } satisfies Record<Severity, number>;

/**
 * Most severe first. `gpu-audit report` re-renders saved JSON, so an enum may hold
 * anything: an unknown severity sorts last and prints sanitised, never crashes.
 */
function bySeverity(left: Finding, right: Finding): number {
  return (SEVERITY_ORDER[left.severity] ?? 3) - (SEVERITY_ORDER[right.severity] ?? 3);
}

function paintSeverity(style: Style, severity: string): string {
  const paint = (style.severity as Readonly<Record<string, Paint | undefined>>)[severity] ?? style.dim;
  return paint(toDisplayText(severity));
}

/** A table whose cells wrap: every column but the last keeps its natural width (capped), the last wraps in what remains. */
function wrappedTable(headers: readonly string[], aligns: readonly ('left' | 'right')[], rows: string[][], width: number, caps: readonly number[]): string {
  const natural = headers.map((header, index) => Math.min(caps[index] ?? Infinity, Math.max(cellWidth(header), ...rows.map((row) => cellWidth(row[index]!)))));
  const rest = Math.max(20, width - tableWidth([...natural.slice(0, -1), 0]));
  const widths = [...natural.slice(0, -1), Math.min(natural[natural.length - 1]!, rest)];
  const columns = headers.map((header, index) => ({ header, align: aligns[index] ?? 'left', width: widths[index]! }));
  return renderTerminalTable(columns, rows, true);
}

function findingsSection({ report, style, width, names }: Context): string {
  const findings = [...report.findings].sort(bySeverity);
  if (findings.length === 0) return `${style.heading('Findings')}: none.`;
  const shown = findings.slice(0, MOST_FINDINGS);
  const rows = shown.map((finding) => [
    paintSeverity(style, finding.severity),
    toDisplayText(finding.code),
    truncateMiddle(names.target(finding.target), TARGET_WIDTH),
    toDisplayText(finding.message),
  ]);
  const table = wrappedTable(['severity', 'code', 'target', 'message'], ['left', 'left', 'left', 'left'], rows, width, [8, 24, TARGET_WIDTH]);
  const more = findings.length > shown.length ? `\n${style.dim(`and ${formatQuantity(findings.length - shown.length, 'more finding')} (see --format markdown or json)`)}` : '';
  return `${style.heading(`Findings (${formatCount(findings.length)})`)}\n${table}${more}`;
}

/** Counted recommendations first (their savings add up to the total), then alternatives; each by savings. */
function bySavings(left: Recommendation, right: Recommendation): number {
  return Number(left.counted === false) - Number(right.counted === false) || right.monthlySavingsUsd - left.monthlySavingsUsd;
}

function targetLines(targets: readonly string[], names: Context['names']): string {
  const shown = targets.length > TARGETS_SHOWN ? targets.slice(0, TARGETS_SHOWN - 1) : targets;
  const lines = shown.map((target) => truncateMiddle(names.target(target), TARGET_WIDTH));
  if (shown.length < targets.length) lines.push(`+${formatCount(targets.length - shown.length)} more`);
  return lines.join('\n');
}

/** A report without a plan (schemaVersion 1) lists its recommendations; a plan shows its steps instead. */
function recommendationsSection({ report, style, width, names }: Context): string {
  if (report.recommendations.length === 0 || report.plan !== null) return '';
  const sorted = [...report.recommendations].sort(bySavings);
  const top = sorted.slice(0, TOP_RECOMMENDATIONS);
  const rows = top.map((recommendation, index) => [
    String(index + 1),
    recommendation.alternativeTo === undefined ? toDisplayText(recommendation.kind) : `${toDisplayText(recommendation.kind)}\n(alt.)`,
    targetLines(recommendation.targets, names),
    formatUsd(recommendation.monthlySavingsUsd, 0),
    toDisplayText(recommendation.confidence),
    `${toDisplayText(recommendation.current)} → ${toDisplayText(recommendation.proposed)}`,
  ]);
  const table = wrappedTable(
    ['#', 'kind', 'targets', 'saves\n$/month', 'confidence', 'change'],
    ['right', 'left', 'left', 'right', 'left', 'left'],
    rows,
    width,
    [2, 12, TARGET_WIDTH, 9, 10],
  );
  const heading = `Recommendations (top ${formatCount(top.length)} of ${formatCount(sorted.length)} by monthly savings)`;
  const more = sorted.length > top.length ? `; ${formatCount(sorted.length - top.length)} more in --format markdown` : '';
  const total = `potential savings ${style.good(`${formatUsd(report.summary.potentialMonthlySavingsUsd, 0)}/month`)} (fleet summary)${more}`;
  const alternatives = report.recommendations.some((recommendation) => recommendation.alternativeTo !== undefined)
    ? `\n${wrapWords('(alt.): an alternative to a recommendation above (same GPUs); not in the total', width).map((line) => style.dim(line)).join('\n')}`
    : '';
  return `${style.heading(heading)}\n${table}\n${total}${alternatives}`;
}

function footer({ style, width }: Context): string {
  const text = 'Figure definitions: --format markdown (Methodology); units: the JSON schema.';
  return wrapWords(text, width).map((line) => style.dim(line)).join('\n');
}

function workloadSection({ report, style, width }: Context): string {
  return workloadsTerminalSection(report, width, style);
}

/** Inference servers and their KPIs; '' without serving metrics. */
function servingSection({ report, style, width }: Context): string {
  const entries = report.serving ?? [];
  if (entries.length === 0) return '';
  // Names come from the servers' labels: shown as text, never as terminal escapes.
  const columns = SERVING_COLUMNS.map((column) => ({ ...column, header: column.terminalHeader, cell: (entry: ServingEntry) => toDisplayText(column.cell(entry)) }));
  const { table, omitted } = renderFittedTable(columns, entries, width, style);
  const note = `${SERVING_NOTE}${omitted.length === 0 ? '' : ` Not shown at this width: ${omitted.join(', ')} (see --format markdown).`}`;
  const servers = `${style.heading(`Serving (${entries.length} server instance${entries.length === 1 ? '' : 's'})`)}\n${table}\n${wrapWords(note, width).map((line) => style.dim(line)).join('\n')}`;
  const pools = servingPools(report.workloads);
  if (pools.length === 0) return servers;
  const poolColumns = POOL_COLUMNS.map((column) => ({ ...column, header: column.terminalHeader, cell: (pool: ServingPool) => toDisplayText(column.cell(pool)) }));
  const fitted = renderFittedTable(poolColumns, pools, width, style);
  const poolNote = `${POOL_NOTE}${fitted.omitted.length === 0 ? '' : ` Not shown at this width: ${fitted.omitted.join(', ')} (see --format markdown).`}`;
  return `${servers}\n\n${style.heading('Serving pools')}\n${fitted.table}\n${wrapWords(poolNote, width).map((line) => style.dim(line)).join('\n')}`;
}

function planSection({ report, style, width }: Context): string {
  return planTerminalSection(report, style, width);
}

/** The headline and the plan first, the evidence after. */
const SECTIONS: readonly ((context: Context) => string)[] = [
  headerSection,
  fleetSection,
  planSection,
  recommendationsSection,
  findingsSection,
  gpuSection,
  processSection,
  workloadSection,
  servingSection,
  footer,
];

export const renderTable: Renderer = (report: Report, options: RenderOptions): string => {
  const context: Context = { report, style: terminalStyle(options.color), width: options.width, names: gpuNames(report.gpus) };
  return `${SECTIONS.map((section) => section(context)).filter((text) => text !== '').join('\n\n')}\n`;
};


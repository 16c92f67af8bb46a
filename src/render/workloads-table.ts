/**
 * The per-workload table of the terminal report: one row per workload with
 * its VRAM (peak, required and the basis of the requirement), compute (basis, mean, busy
 * share), CPU pipeline verdict, sidecar share, and monthly cost and waste. Only formatting
 * here: every figure is in the Report's `workloads[]`.
 *
 * The terminal has 100 columns for 13 figures, so it prints the bases as short codes and
 * explains them in a legend line (Markdown: src/render/workloads-markdown.ts).
 */
import type { Report, WorkloadEntry } from '../model/index.js';
import { MISSING, formatNumber, formatUsd, fractionAsPercent, mibAsGib } from './format.js';
import { toDisplayText } from '../support/index.js';
import { cellWidth, fitColumnWidths, truncateEnd, wrapWords } from './terminal-layout.js';
import { renderTerminalTable, type TerminalColumn } from './terminal-table.js';

const VRAM_BASIS_CODES: Readonly<Record<string, string>> = {
  measured: 'meas',
  declared: 'decl',
  estimated: 'est',
  'upper-bound': 'upper',
  unknown: '?',
};

const COMPUTE_BASIS_CODES: Readonly<Record<string, string>> = {
  'sm-active': 'sm',
  'gr-engine-active': 'gr',
  utilization: 'util',
  processes: 'proc',
  unknown: '?',
};

const LEGEND =
  'VRAM basis: meas measured, decl declared, est estimated from the model, upper measured but preallocated (an upper bound). '
  + 'Compute basis: sm SM active, gr GR engine active, util utilization, proc processes present. '
  + '* = GPUs shared with another workload (hours and cost split). Monthly = 730 h; waste = idle time + unneeded VRAM (Methodology).';

const code = (codes: Readonly<Record<string, string>>, value: string): string => codes[value] ?? toDisplayText(value);

function gpuCount(workload: WorkloadEntry): string {
  const shared = workload.sharedGpus?.length ?? 0;
  return `${workload.gpus.length}${shared > 0 ? '*' : ''}`;
}

function usd(value: number | null | undefined): string {
  return value === null || value === undefined ? MISSING : formatUsd(value, 0);
}

interface WorkloadColumn {
  header: string;
  align: 'left' | 'right';
  cell: (workload: WorkloadEntry) => string;
  /** The name column gives way first when the terminal is narrow. */
  shrink?: { minimum: number };
  /** Left out on a terminal too narrow for every column, lowest first; columns without one always stay. */
  dropPriority?: number;
}

const TERMINAL_COLUMNS: readonly WorkloadColumn[] = [
  { header: 'workload', align: 'left', cell: (w) => toDisplayText(w.name), shrink: { minimum: 8 } },
  { header: 'kind', align: 'left', cell: (w) => toDisplayText(w.kind), shrink: { minimum: 5 }, dropPriority: 3 },
  { header: 'GPUs', align: 'right', cell: gpuCount },
  { header: 'peak\nGiB', align: 'right', cell: (w) => formatNumber(mibAsGib(w.vram.peakMiB), 1) },
  { header: 'need\nGiB', align: 'right', cell: (w) => formatNumber(mibAsGib(w.vram.requiredMiB), 1) },
  { header: 'VRAM\nbasis', align: 'left', cell: (w) => code(VRAM_BASIS_CODES, w.vram.basis) },
  { header: 'comp\nbasis', align: 'left', cell: (w) => code(COMPUTE_BASIS_CODES, w.compute.basis) },
  { header: 'mean\n%', align: 'right', cell: (w) => formatNumber(w.compute.mean, 1), dropPriority: 4 },
  { header: 'busy\n%', align: 'right', cell: (w) => formatNumber(fractionAsPercent(w.compute.busyFraction), 1) },
  { header: 'CPU\npipeline', align: 'left', cell: (w) => toDisplayText(w.cpuPipeline.verdict), dropPriority: 2 },
  { header: 'sidecar\n%', align: 'right', cell: (w) => formatNumber(w.sidecars.overheadPct, 1), dropPriority: 1 },
  { header: 'cost\n$/month', align: 'right', cell: (w) => usd(w.cost.monthlyUsd) },
  { header: 'waste\n$/month', align: 'right', cell: (w) => usd(w.cost.monthlyWasteUsd) },
];

const naturalWidth = (column: WorkloadColumn, workloads: readonly WorkloadEntry[]): number =>
  Math.max(...column.header.split('\n').map(cellWidth), ...workloads.map((workload) => cellWidth(column.cell(workload))));

/** The columns that fit `width` at their smallest: droppable ones leave, lowest priority first. */
function columnsThatFit(workloads: readonly WorkloadEntry[], width: number): WorkloadColumn[] {
  const columns = [...TERMINAL_COLUMNS];
  const smallest = (column: WorkloadColumn): number => Math.min(naturalWidth(column, workloads), column.shrink?.minimum ?? Infinity);
  const needed = (): number => columns.reduce((total, column) => total + smallest(column), columns.length - 1);
  const droppable = TERMINAL_COLUMNS.filter((column) => column.dropPriority !== undefined).sort((a, b) => a.dropPriority! - b.dropPriority!);
  for (const column of droppable) {
    if (needed() <= width) break;
    columns.splice(columns.indexOf(column), 1);
  }
  return columns;
}

/** The terminal section, or '' when the report has no workloads (no gpu-audit.yaml). */
export function workloadsTerminalSection(report: Report, width: number, paint: { heading: (text: string) => string; dim: (text: string) => string }): string {
  if (report.workloads.length === 0) return '';
  const shown = columnsThatFit(report.workloads, width);
  const cells = report.workloads.map((workload) => shown.map((column) => column.cell(workload)));
  const widths = fitColumnWidths(
    shown.map((column) => ({ natural: naturalWidth(column, report.workloads), minimum: column.shrink?.minimum ?? 0, flexible: column.shrink !== undefined })),
    width - (shown.length - 1),
  );
  const fitted = cells.map((row) => row.map((text, index) => {
    const cell = shown[index]!.shrink === undefined ? text : truncateEnd(text, widths[index]!);
    return cell === MISSING ? paint.dim(cell) : cell;
  }));
  const columns: TerminalColumn[] = shown.map((column, index) => ({ header: column.header, align: column.align, width: widths[index]! }));
  const left = TERMINAL_COLUMNS.filter((column) => !shown.includes(column)).map((column) => column.header.replace('\n', ' '));
  const omitted = left.length === 0 ? '' : ` Not shown at this width: ${left.join(', ')} (see --format markdown).`;
  const legend = wrapWords(`${LEGEND}${omitted}`, width).map((line) => paint.dim(line)).join('\n');
  return `${paint.heading(`Workloads (${report.workloads.length})`)}\n${renderTerminalTable(columns, fitted)}\n${legend}`;
}

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
import { wrapWords } from './terminal-layout.js';
import { renderFittedTable, type FittedColumn } from './fitted-table.js';

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

type WorkloadColumn = FittedColumn<WorkloadEntry>;

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

/** The terminal section, or '' when the report has no workloads (no gpu-audit.yaml). */
export function workloadsTerminalSection(report: Report, width: number, paint: { heading: (text: string) => string; dim: (text: string) => string }): string {
  if (report.workloads.length === 0) return '';
  const { table, omitted: left } = renderFittedTable(TERMINAL_COLUMNS, report.workloads, width, paint);
  const omitted = left.length === 0 ? '' : ` Not shown at this width: ${left.join(', ')} (see --format markdown).`;
  const legend = wrapWords(`${LEGEND}${omitted}`, width).map((line) => paint.dim(line)).join('\n');
  return `${paint.heading(`Workloads (${report.workloads.length})`)}\n${table}\n${legend}`;
}

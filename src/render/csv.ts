/**
 * The CSV report: one row per GPU and MIG device with the main figures, for a spreadsheet
 * or pandas. Units are in the header names (`_mib`, `_pct`, `_h`, `_usd_per_h`); values are
 * the Report's own, unrounded, with an empty cell where the Report has null. RFC 4180:
 * CRLF line ends, fields quoted when they hold `"`, `,`, CR or LF.
 *
 * A cell that starts with `=`, `+`, `-`, `@`, tab or CR is a formula to Excel, LibreOffice
 * and Google Sheets; strings from the inputs (hostnames, model names, ids, process names)
 * that start so are prefixed with `'` (OWASP "CSV injection"). Numbers are never touched.
 */
import type { GpuEntry } from '../model/index.js';
import type { Renderer } from './types.js';
import { toFieldText } from '../support/index.js';

type Cell = string | number | null;

interface Column {
  header: string;
  cell: (gpu: GpuEntry) => Cell;
}

const COLUMNS: readonly Column[] = [
  { header: 'host', cell: (gpu) => gpu.host },
  { header: 'gpu_id', cell: (gpu) => gpu.id },
  { header: 'parent_id', cell: (gpu) => gpu.parentId },
  { header: 'index', cell: (gpu) => gpu.index },
  { header: 'model', cell: (gpu) => gpu.model },
  { header: 'model_key', cell: (gpu) => gpu.modelKey },
  { header: 'mig_profile', cell: (gpu) => gpu.migProfile },
  { header: 'instance_type', cell: (gpu) => gpu.instanceType },
  { header: 'memory_total_mib', cell: (gpu) => gpu.memoryTotalMiB },
  { header: 'memory_used_mean_mib', cell: (gpu) => gpu.memoryUsedMiB?.mean ?? null },
  { header: 'memory_used_p95_mib', cell: (gpu) => gpu.memoryUsedMiB?.p95 ?? null },
  { header: 'memory_used_max_mib', cell: (gpu) => gpu.memoryUsedMiB?.max ?? null },
  { header: 'vram_headroom_mib', cell: (gpu) => gpu.vramHeadroomMiB },
  { header: 'vram_headroom_pct', cell: (gpu) => gpu.vramHeadroomPct },
  { header: 'utilization_mean_pct', cell: (gpu) => gpu.utilization?.mean ?? null },
  { header: 'utilization_p95_pct', cell: (gpu) => gpu.utilization?.p95 ?? null },
  { header: 'sm_active_mean_pct', cell: (gpu) => gpu.smActive?.mean ?? null },
  { header: 'compute_basis', cell: (gpu) => gpu.computeBasis },
  // idleFraction (0-1) as a percentage: unit scaling, like every other _pct column.
  { header: 'idle_pct', cell: (gpu) => (gpu.idleFraction === null ? null : gpu.idleFraction * 100) },
  { header: 'idle_h', cell: (gpu) => gpu.idleHours },
  { header: 'gpu_h', cell: (gpu) => gpu.gpuHours },
  { header: 'hourly_cost_usd_per_h', cell: (gpu) => gpu.hourlyCostUsd },
  { header: 'samples', cell: (gpu) => gpu.samples },
  { header: 'first_seen', cell: (gpu) => gpu.firstSeen },
  { header: 'last_seen', cell: (gpu) => gpu.lastSeen },
  { header: 'processes', cell: (gpu) => gpu.processes.map((process) => `${process.name} [${process.pid}]`).join('; ') },
];

const FORMULA_START = /^[=+\-@\t\r]/u;
const NEEDS_QUOTES = /[",\r\n]/u;

/** A string cell neutralised against formula injection. */
export function neutralizeFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** One RFC 4180 field. */
export function csvField(value: Cell): string {
  if (value === null) return '';
  // Controls and bidi overrides from input (a host name with ESC[2J or U+202E) would act in the terminal or editor that shows the file.
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : neutralizeFormula(toFieldText(value));
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/gu, '""')}"` : text;
}

export const CSV_HEADERS: readonly string[] = COLUMNS.map((column) => column.header);

export const renderCsv: Renderer = (report) => {
  const rows = [CSV_HEADERS.map(csvField), ...report.gpus.map((gpu) => COLUMNS.map((column) => csvField(column.cell(gpu))))];
  return rows.map((row) => `${row.join(',')}\r\n`).join('');
};

/**
 * The nine figures every GPU row shows, in the terminal table and in Markdown alike: one
 * definition of each cell (its field and precision), with the short header the terminal stacks
 * on two lines and the long one a document has room for.
 */
import type { GpuEntry } from '../model/index.js';
import { formatNumber, fractionAsPercent, mibAsGib } from './format.js';

export interface GpuFigure {
  /** Two lines, for a narrow terminal column. */
  terminalHeader: string;
  documentHeader: string;
  cell: (gpu: GpuEntry) => string;
}

export const GPU_FIGURES: readonly GpuFigure[] = [
  { terminalHeader: 'VRAM\nGiB', documentHeader: 'VRAM total (GiB)', cell: (gpu) => formatNumber(mibAsGib(gpu.memoryTotalMiB), 1) },
  { terminalHeader: 'peak\nGiB', documentHeader: 'Peak used (GiB)', cell: (gpu) => formatNumber(mibAsGib(gpu.memoryUsedMiB?.max), 1) },
  { terminalHeader: 'headroom\n%', documentHeader: 'Headroom (%)', cell: (gpu) => formatNumber(gpu.vramHeadroomPct, 1) },
  { terminalHeader: 'util\nmean %', documentHeader: 'Util mean (%)', cell: (gpu) => formatNumber(gpu.utilization?.mean, 1) },
  { terminalHeader: 'util\np95 %', documentHeader: 'Util p95 (%)', cell: (gpu) => formatNumber(gpu.utilization?.p95, 1) },
  { terminalHeader: 'idle\n%', documentHeader: 'Idle (%)', cell: (gpu) => formatNumber(fractionAsPercent(gpu.idleFraction), 1) },
  { terminalHeader: 'idle\nh', documentHeader: 'Idle (h)', cell: (gpu) => formatNumber(gpu.idleHours, 1) },
  { terminalHeader: 'GPU\nh', documentHeader: 'GPU-hours (h)', cell: (gpu) => formatNumber(gpu.gpuHours, 1) },
  { terminalHeader: 'cost\n$/h', documentHeader: 'Cost ($/h)', cell: (gpu) => formatNumber(gpu.hourlyCostUsd, 2) },
];

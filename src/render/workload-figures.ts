/**
 * A workload's figures as the document formats (Markdown, HTML) show them: the ten summary
 * columns, then every figure as a labelled line, and the VRAM estimate term by term. Plain
 * text: each format escapes it. Every figure is in the Report's `workloads[]`.
 */
import type { WorkloadEntry } from '../model/index.js';
import { MISSING, formatNumber, formatUsd, fractionAsPercent } from './format.js';
import type { GpuNames } from './gpu-labels.js';

const usd = (value: number | null | undefined): string => (value === null || value === undefined ? MISSING : formatUsd(value, 0));
const mib = (value: number | null | undefined): string => (value === null || value === undefined ? MISSING : `${formatNumber(value, 0)} MiB`);
const percent = (value: number | null | undefined): string => (value === null || value === undefined ? MISSING : `${formatNumber(value, 1)}%`);

export interface WorkloadColumn {
  header: string;
  align: 'left' | 'right';
  cell: (workload: WorkloadEntry) => string;
}

/** Ten columns: a document table wider than that is unreadable in a review or on paper. */
export const WORKLOAD_SUMMARY_COLUMNS: readonly WorkloadColumn[] = [
  { header: 'Workload', align: 'left', cell: (w) => w.name },
  { header: 'Kind', align: 'left', cell: (w) => w.kind },
  { header: 'Tenant', align: 'left', cell: (w) => w.tenant ?? MISSING },
  { header: 'GPUs', align: 'right', cell: (w) => `${w.gpus.length}${(w.sharedGpus?.length ?? 0) > 0 ? ' (shared)' : ''}` },
  { header: 'VRAM required (MiB)', align: 'right', cell: (w) => formatNumber(w.vram.requiredMiB, 0) },
  { header: 'Compute mean (%)', align: 'right', cell: (w) => formatNumber(w.compute.mean, 1) },
  { header: 'Busy (%)', align: 'right', cell: (w) => formatNumber(fractionAsPercent(w.compute.busyFraction), 1) },
  { header: 'CPU pipeline', align: 'left', cell: (w) => w.cpuPipeline.verdict },
  { header: 'Cost ($/month)', align: 'right', cell: (w) => usd(w.cost.monthlyUsd) },
  { header: 'Waste ($/month)', align: 'right', cell: (w) => usd(w.cost.monthlyWasteUsd) },
];

export const WORKLOAD_SUMMARY_NOTE = 'Monthly = 730 h; waste = idle time + unneeded VRAM (Methodology). Each workload in full below.';

function preallocation(workload: WorkloadEntry): string {
  if (workload.vram.preallocating === true) return `yes (${workload.vram.preallocatingServer ?? 'a preallocating server'}): the measured memory is what it reserved`;
  return workload.vram.preallocating === false ? 'no' : MISSING;
}

export interface WorkloadFigure {
  label: string;
  value: string;
  /** Lines under the figure (the CPU pipeline's evidence). */
  details: readonly string[];
}

/** Label -> value, in reading order: what it holds, memory, compute, its CPU side, money. */
export function workloadFigures(workload: WorkloadEntry, names: GpuNames): WorkloadFigure[] {
  const { vram, compute, sidecars, cost } = workload;
  const shared = workload.sharedGpus ?? [];
  const figure = (label: string, value: string, details: readonly string[] = []): WorkloadFigure => ({ label, value, details });
  return [
    figure('GPUs', workload.gpus.map(names.target).join(', ') || MISSING),
    figure('Shared GPUs', shared.length === 0 ? 'none' : `${shared.length}, hours and cost split with the other holders`),
    figure('GPU-hours', workload.gpuHours === null ? MISSING : `${formatNumber(workload.gpuHours, 1)} h`),
    figure('VRAM', `peak ${mib(vram.peakMiB)}, p95 ${mib(vram.p95MiB)}, required ${mib(vram.requiredMiB)} (${vram.basis})`),
    figure('Preallocating server', preallocation(workload)),
    figure('Compute', `${compute.basis}: mean ${percent(compute.mean)}, p95 ${percent(compute.p95)}, busy ${percent(fractionAsPercent(compute.busyFraction))} of the time`),
    figure('CPU pipeline', workload.cpuPipeline.verdict, workload.cpuPipeline.evidence),
    figure('Sidecars', sidecars.cpuCores === null && sidecars.memoryMiB === null ? MISSING : `${formatNumber(sidecars.cpuCores, 2)} cores, ${mib(sidecars.memoryMiB)}, ${percent(sidecars.overheadPct)} of the pods' requests`),
    figure('Cost', `${usd(cost.monthlyUsd)}/month (${cost.hourlyUsd === null ? MISSING : `$${formatNumber(cost.hourlyUsd, 2)}/h`})`),
    figure('Waste', `${usd(cost.monthlyWasteUsd)}/month: idle ${usd(cost.wasteBreakdown?.idleMonthlyUsd)}, unneeded VRAM ${usd(cost.wasteBreakdown?.vramOverprovisionMonthlyUsd)}`),
  ];
}

/** The VRAM estimate: its headline and its terms; undefined when the workload has none. */
export function vramEstimate(workload: WorkloadEntry): { headline: string; terms: string[] } | undefined {
  const estimate = workload.vram.estimate;
  if (estimate === null || estimate === undefined) return undefined;
  const headroom = workload.vram.headroomPct === undefined ? '' : `, required with ${formatNumber(workload.vram.headroomPct, null)}% headroom: ${formatNumber(workload.vram.requiredMiB, 0)} MiB`;
  return {
    headline: `${formatNumber(estimate.totalMiB, 0)} MiB per GPU${headroom}`,
    terms: [
      ...estimate.terms.map((term) => `${term.term}: ${term.formula}`),
      ...(estimate.missing.length === 0 ? [] : [`not estimated: KV cache (needs ${estimate.missing.join(', ')}); the total is a lower bound`]),
    ],
  };
}

export const VRAM_ESTIMATE_LABEL = 'VRAM estimate';
export const VRAM_ESTIMATE_NOTE = '(weights + KV cache + runtime overhead per GPU, from the model facts in gpu-audit.yaml)';

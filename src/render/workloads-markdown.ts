/**
 * The Workloads section of the Markdown report: one summary table of ten columns (a
 * Markdown table wider than that is unreadable in a review or a PDF), then a section per
 * workload with every figure as a labelled line, and its VRAM estimate term by term.
 * Only formatting: every figure is in the Report's `workloads[]`.
 */
import type { Report, WorkloadEntry } from '../model/index.js';
import { escapeMarkdown } from '../support/index.js';
import { MISSING, formatNumber, formatUsd, fractionAsPercent } from './format.js';
import type { GpuNames } from './gpu-labels.js';
import { markdownTable, type Column } from './markdown-blocks.js';

const usd = (value: number | null | undefined): string => (value === null || value === undefined ? MISSING : formatUsd(value, 0));
const mib = (value: number | null | undefined): string => (value === null || value === undefined ? MISSING : `${formatNumber(value, 0)} MiB`);
const percent = (value: number | null | undefined): string => (value === null || value === undefined ? MISSING : `${formatNumber(value, 1)}%`);

const SUMMARY_COLUMNS: readonly Column<WorkloadEntry>[] = [
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

function preallocation(workload: WorkloadEntry): string {
  if (workload.vram.preallocating === true) return `yes (${workload.vram.preallocatingServer ?? 'a preallocating server'}): the measured memory is what it reserved`;
  return workload.vram.preallocating === false ? 'no' : MISSING;
}

/** Label -> value, in reading order: what it holds, memory, compute, its CPU side, money. */
function figureLines(workload: WorkloadEntry, names: GpuNames): [string, string][] {
  const { vram, compute, sidecars, cost } = workload;
  const shared = workload.sharedGpus ?? [];
  return [
    ['GPUs', workload.gpus.map(names.target).join(', ') || MISSING],
    ['Shared GPUs', shared.length === 0 ? 'none' : `${shared.length}, hours and cost split with the other holders`],
    ['GPU-hours', workload.gpuHours === null ? MISSING : `${formatNumber(workload.gpuHours, 1)} h`],
    ['VRAM', `peak ${mib(vram.peakMiB)}, p95 ${mib(vram.p95MiB)}, required ${mib(vram.requiredMiB)} (${vram.basis})`],
    ['Preallocating server', preallocation(workload)],
    ['Compute', `${compute.basis}: mean ${percent(compute.mean)}, p95 ${percent(compute.p95)}, busy ${percent(fractionAsPercent(compute.busyFraction))} of the time`],
    ['CPU pipeline', workload.cpuPipeline.verdict],
    ['Sidecars', sidecars.cpuCores === null && sidecars.memoryMiB === null ? MISSING : `${formatNumber(sidecars.cpuCores, 2)} cores, ${mib(sidecars.memoryMiB)}, ${percent(sidecars.overheadPct)} of the pods' requests`],
    ['Cost', `${usd(cost.monthlyUsd)}/month (${cost.hourlyUsd === null ? MISSING : `$${formatNumber(cost.hourlyUsd, 2)}/h`})`],
    ['Waste', `${usd(cost.monthlyWasteUsd)}/month: idle ${usd(cost.wasteBreakdown?.idleMonthlyUsd)}, unneeded VRAM ${usd(cost.wasteBreakdown?.vramOverprovisionMonthlyUsd)}`],
  ];
}

function estimateLines(workload: WorkloadEntry): string[] {
  const estimate = workload.vram.estimate;
  if (estimate === null || estimate === undefined) return [];
  const headroom = workload.vram.headroomPct === undefined ? '' : `, required with ${formatNumber(workload.vram.headroomPct, null)}% headroom: ${formatNumber(workload.vram.requiredMiB, 0)} MiB`;
  return [
    '',
    `**VRAM estimate** (weights + KV cache + runtime overhead per GPU, from the model facts in gpu-audit.yaml): ${formatNumber(estimate.totalMiB, 0)} MiB per GPU${headroom}`,
    '',
    ...estimate.terms.map((term) => `- ${escapeMarkdown(term.term)}: ${escapeMarkdown(term.formula)}`),
    ...(estimate.missing.length === 0 ? [] : [`- not estimated: KV cache (needs ${escapeMarkdown(estimate.missing.join(', '))}); the total is a lower bound`]),
  ];
}

function workloadSection(workload: WorkloadEntry, names: GpuNames): string {
  const evidence = workload.cpuPipeline.evidence.map((line) => `  - ${escapeMarkdown(line)}`);
  const lines = figureLines(workload, names).flatMap(([label, value]) => [`- **${label}:** ${escapeMarkdown(value)}`, ...(label === 'CPU pipeline' ? evidence : [])]);
  return [`### Workload ${escapeMarkdown(workload.name)}`, '', ...lines, ...estimateLines(workload)].join('\n');
}

export function workloadsMarkdown(report: Report, names: GpuNames): string {
  if (report.workloads.length === 0) return '';
  return [
    '## Workloads',
    '',
    'Monthly = 730 h; waste = idle time + unneeded VRAM (Methodology). Each workload in full below.',
    '',
    markdownTable(SUMMARY_COLUMNS, report.workloads),
    ...report.workloads.flatMap((workload) => ['', workloadSection(workload, names)]),
  ].join('\n');
}

/**
 * The plan in the Markdown report: the headline, the current and target fleets, each step with
 * its evidence, risks and config, where every workload goes and why, the options considered and
 * not chosen, and what the plan assumed. Every figure is the report's own.
 */
import type { Placement, PlanAlternative, PlanFleet, PlanInstance, PlanStep, Report } from '../model/index.js';
import { escapeMarkdown } from '../support/index.js';
import { describeEvidence, formatCount, formatQuantity, formatUsd } from './format.js';
import { gpuNames } from './gpu-labels.js';
import { namedUnits, sharingWords } from './plan-words.js';
import { configBlocks, markdownTable, type Column } from './markdown-blocks.js';

const FLEET_COLUMNS: readonly Column<PlanInstance>[] = [
  { header: 'Instance type', align: 'left', cell: (row) => row.instanceType ?? 'unknown type' },
  { header: 'Count', align: 'right', cell: (row) => formatCount(row.count) },
  { header: 'GPUs', align: 'right', cell: (row) => `${formatCount(row.count * row.gpusPerInstance)} x ${row.gpuModelKey}` },
  { header: 'Interconnect', align: 'left', cell: (row) => row.interconnect },
  { header: 'Pricing', align: 'left', cell: (row) => row.pricing },
  { header: 'Basis', align: 'left', cell: (row) => row.basis },
  { header: '$/h each', align: 'right', cell: (row) => (row.hourlyUsd === null ? 'unpriced' : formatUsd(row.hourlyUsd, 2)) },
  { header: '$/month', align: 'right', cell: (row) => (row.monthlyUsd === null ? 'unpriced' : formatUsd(row.monthlyUsd, 0)) },
  { header: 'Hosts', align: 'left', cell: (row) => `${row.hosts.join(', ')}${row.basis !== 'planned' && row.observedGpus < row.count * row.gpusPerInstance ? ` (${formatCount(row.observedGpus)} GPUs seen)` : ''}` },
];

const placementColumns = (name: (workload: string) => string): readonly Column<Placement>[] => [
  { header: 'Workload', align: 'left', cell: (placement) => name(placement.workload) },
  { header: 'Action', align: 'left', cell: (placement) => placement.action },
  { header: 'Instance type', align: 'left', cell: (placement) => placement.instanceType ?? '-' },
  { header: 'On', align: 'left', cell: (placement) => placement.host ?? '-' },
  { header: 'Replicas', align: 'right', cell: (placement) => formatCount(placement.replicas) },
  { header: 'GPUs', align: 'right', cell: (placement) => `${placement.gpus}${placement.migProfile === null ? '' : ` (${placement.migProfile})`}${sharingWords(placement)}` },
  { header: 'Why', align: 'left', cell: (placement) => placement.reason },
];

const alternativeColumns = (name: (workload: string) => string): readonly Column<PlanAlternative>[] => [
  { header: 'Workloads', align: 'left', cell: (alternative) => namedUnits(alternative.workloads.map(name)) },
  { header: 'Option', align: 'left', cell: (alternative) => alternative.option },
  { header: '$/month alone', align: 'right', cell: (alternative) => (alternative.monthlyUsd === null ? 'unpriced' : formatUsd(alternative.monthlyUsd, 0)) },
  { header: 'Not chosen because', align: 'left', cell: (alternative) => alternative.reason },
];

function step(item: PlanStep, position: number, name: (workload: string) => string): string {
  const reasons = item.confidenceReasons.length > 0 ? `: ${item.confidenceReasons.join('; ')}` : '';
  return [
    `### ${position}. ${escapeMarkdown(`${item.action}: ${item.workloads.map(name).join(', ')}`)}`,
    '',
    `- **From:** ${escapeMarkdown(item.from)}`,
    `- **To:** ${escapeMarkdown(item.to)}`,
    `- **Saves:** ${escapeMarkdown(`${formatUsd(item.monthlySavingsUsd, 0)}/month`)}`,
    ...(item.after.length > 0 ? [`- **After:** ${escapeMarkdown(item.after.join(', '))}`] : []),
    `- **Confidence:** ${escapeMarkdown(`${item.confidence}${reasons}`)}`,
    `- **Risks:** ${item.risks.length > 0 ? escapeMarkdown(item.risks.join('; ')) : 'none named'}`,
    `- **Evidence:** ${escapeMarkdown(describeEvidence(item.evidence))}`,
    ...configBlocks(item.config),
  ].join('\n');
}

function unpricedWords(fleet: PlanFleet): string {
  const unpriced = fleet.instances.filter((row) => row.monthlyUsd === null).reduce((sum, row) => sum + row.count, 0);
  return unpriced === 0 ? '' : `; ${formatQuantity(unpriced, 'instance')} of an unknown or unpriced type count $0 on both sides`;
}

export function planMarkdownSection(report: Report): string {
  const plan = report.plan;
  if (plan === null) return '';
  const { current, target } = plan;
  const name = gpuNames(report.gpus).target;
  return [
    '## Plan',
    '',
    escapeMarkdown(`On the ${plan.basis} demand: ${formatUsd(current.monthlyUsd, 0)}/month now (${formatQuantity(current.instanceCount, 'instance')}, ${formatQuantity(current.gpus, 'GPU')}), ${formatUsd(target.monthlyUsd, 0)}/month in the target (${formatQuantity(target.instanceCount, 'instance')}, ${formatQuantity(target.gpus, 'GPU')}): saves ${formatUsd(plan.monthlySavingsUsd, 0)}/month. Instances are priced whole, at 730 hours a month${unpricedWords(current)}.`),
    '',
    '### Current fleet',
    '',
    markdownTable(FLEET_COLUMNS, current.instances),
    '',
    '### Target fleet',
    '',
    markdownTable(FLEET_COLUMNS, target.instances),
    '',
    '### Placements',
    '',
    markdownTable(placementColumns(name), plan.placements),
    '',
    `### Steps (${formatCount(plan.steps.length)}, in order; their savings add up to the plan's)`,
    ...(plan.steps.length === 0 ? ['', 'None: the target is the current fleet.'] : plan.steps.flatMap((item, index) => ['', step(item, index + 1, name)])),
    ...(plan.alternatives.length === 0 ? [] : ['', '### Alternatives (outside the total)', '', markdownTable(alternativeColumns(name), plan.alternatives)]),
    '',
    '### Notes',
    '',
    ...plan.notes.map((note) => `- ${escapeMarkdown(note)}`),
  ].join('\n');
}

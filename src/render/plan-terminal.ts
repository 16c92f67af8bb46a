/**
 * The plan in the terminal report, first after the fleet headline: the current and target
 * fleets (instances, GPUs, $/month), the steps that lead from one to the other with their share
 * of the saving, and where every workload goes. Every figure is the report's own.
 */
import type { Plan, PlanFleet, PlanInstance, Report } from '../model/index.js';
import { toDisplayText } from '../support/index.js';
import { formatCount, formatQuantity, formatUsd } from './format.js';
import { gpuNames } from './gpu-labels.js';
import { cellWidth, wrapWords } from './terminal-layout.js';
import { renderTerminalTable, tableWidth } from './terminal-table.js';

interface Paints {
  heading: (text: string) => string;
  dim: (text: string) => string;
}

/** A table whose last column wraps in what the others leave of the width (each other column capped). */
function wrapping(headers: readonly string[], aligns: readonly ('left' | 'right')[], rows: string[][], width: number, caps: readonly number[]): string {
  const natural = headers.map((header, index) => Math.min(caps[index] ?? Infinity, Math.max(cellWidth(header), ...rows.map((row) => cellWidth(row[index]!)))));
  const rest = Math.max(20, width - tableWidth([...natural.slice(0, -1), 0]));
  const widths = [...natural.slice(0, -1), Math.min(natural[natural.length - 1]!, rest)];
  return renderTerminalTable(headers.map((header, index) => ({ header, align: aligns[index] ?? 'left', width: widths[index]! })), rows, true);
}

function hostsCell(row: PlanInstance): string {
  const seen = row.observedGpus < row.count * row.gpusPerInstance && row.basis !== 'planned' ? ` (${formatCount(row.observedGpus)} of ${formatCount(row.count * row.gpusPerInstance)} GPUs seen)` : '';
  return `${row.hosts.map(toDisplayText).join(', ')}${seen}`;
}

function fleetRows(side: string, rows: readonly PlanInstance[]): string[][] {
  return rows.map((row, index) => [
    index === 0 ? side : '',
    toDisplayText(row.instanceType ?? 'unknown type'),
    formatCount(row.count),
    formatCount(row.count * row.gpusPerInstance),
    toDisplayText(row.pricing),
    toDisplayText(row.basis),
    row.monthlyUsd === null ? 'unpriced' : formatUsd(row.monthlyUsd, 0),
    hostsCell(row),
  ]);
}

/** `$1,234/month, 2 instances with 9 GPUs (1 unpriced)`: a fleet as the headline sums it. */
function fleetWords(fleet: PlanFleet): string {
  const unpriced = fleet.instances.filter((row) => row.monthlyUsd === null).reduce((sum, row) => sum + row.count, 0);
  return `${formatUsd(fleet.monthlyUsd, 0)}/month, ${formatQuantity(fleet.instanceCount, 'instance')} with ${formatQuantity(fleet.gpus, 'GPU')}${unpriced > 0 ? ` (${formatCount(unpriced)} unpriced, counted $0)` : ''}`;
}

/** Wrapped as plain text, then the heading painted: escapes must not count as columns. */
function headline(plan: Plan, paint: Paints, width: number): string {
  const [first = '', ...rest] = wrapWords(`Plan (${plan.basis} demand): now ${fleetWords(plan.current)}; target ${fleetWords(plan.target)}: saves ${formatUsd(plan.monthlySavingsUsd, 0)}/month`, width);
  return [`${paint.heading('Plan')}${first.slice('Plan'.length)}`, ...rest].join('\n');
}

export function planTerminalSection(report: Report, paint: Paints, width: number): string {
  const plan = report.plan;
  if (plan === null) return '';
  const names = gpuNames(report.gpus);
  const lines = [headline(plan, paint, width), ''];
  lines.push(wrapping(
    ['fleet', 'instance type', 'count', 'GPUs', 'pricing', 'basis', '$/month', 'hosts'],
    ['left', 'left', 'right', 'right', 'left', 'left', 'right', 'left'],
    [...fleetRows('current', plan.current.instances), ...fleetRows('target', plan.target.instances)],
    width,
    [7, 24, 5, 5, 9, 8, 9],
  ));
  if (plan.steps.length > 0) {
    lines.push('', paint.heading(`Steps (${formatCount(plan.steps.length)}, in order; their savings add up to the plan's)`));
    lines.push(wrapping(
      ['#', 'action', 'saves\n$/month', 'confidence', 'change'],
      ['right', 'left', 'right', 'left', 'left'],
      plan.steps.map((step, index) => [String(index + 1), toDisplayText(step.action), formatUsd(step.monthlySavingsUsd, 0), toDisplayText(step.confidence), `${toDisplayText(step.from)} → ${toDisplayText(step.to)}`]),
      width,
      [2, 13, 9, 10],
    ));
  }
  lines.push('', paint.heading(`Placements (${formatCount(plan.placements.length)}, one per workload)`));
  lines.push(wrapping(
    ['workload', 'action', 'on', 'GPUs', 'why'],
    ['left', 'left', 'left', 'right', 'left'],
    plan.placements.map((placement) => [
      toDisplayText(names.target(placement.workload)),
      toDisplayText(placement.action),
      toDisplayText(placement.host ?? (placement.action === 'release' ? 'released' : 'unknown')),
      `${placement.gpus}${placement.migProfile === null ? '' : `\n${toDisplayText(placement.migProfile)}`}${placement.sharing === undefined ? '' : `\n${toDisplayText(placement.sharing.mode)}`}`,
      toDisplayText(placement.reason),
    ]),
    width,
    [20, 15, 22, 7],
  ));
  if (plan.alternatives.length > 0) {
    lines.push(paint.dim(wrapWords(`${formatQuantity(plan.alternatives.length, 'alternative')} considered and not chosen, outside the total: --format markdown or json.`, width).join('\n')));
  }
  return lines.join('\n');
}

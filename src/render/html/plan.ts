/**
 * The plan in the HTML report: headline cards (now, target, savings), the two fleets, where every
 * workload goes, each step as a card (a step that costs money in its own colour), the options
 * considered and not chosen, and the notes. Every value goes through `html`, which escapes it.
 */
import type { PlanInstance, PlanStep, Report } from '../../model/index.js';
import { formatCount, formatQuantity, formatUsd } from '../format.js';
import { gpuNames } from '../gpu-labels.js';
import { namedUnits, sharingWords } from '../plan-words.js';
import { configDetails } from './config-details.js';
import { html, type SafeHtml } from './escape.js';

function cell(text: string | SafeHtml, numeric = false): SafeHtml {
  return numeric ? html`<td class="num">${text}</td>` : html`<td>${text}</td>`;
}

function fleetTable(rows: readonly PlanInstance[]): SafeHtml {
  const body = rows.map((row) => html`<tr>${[
    cell(row.instanceType ?? 'unknown type'),
    cell(formatCount(row.count), true),
    cell(`${formatCount(row.count * row.gpusPerInstance)} x ${row.gpuModelKey}`),
    cell(row.interconnect),
    cell(row.pricing),
    cell(row.basis),
    cell(row.monthlyUsd === null ? 'unpriced' : formatUsd(row.monthlyUsd, 0), true),
    cell(`${row.hosts.join(', ')}${row.basis !== 'planned' && row.observedGpus < row.count * row.gpusPerInstance ? ` (${formatCount(row.observedGpus)} GPUs seen)` : ''}`),
  ]}</tr>`);
  return html`<div class="table-wrap"><table><thead><tr><th>Instance type</th><th class="num">Count</th><th>GPUs</th><th>Interconnect</th><th>Pricing</th><th>Basis</th><th class="num">$/month</th><th>Hosts</th></tr></thead><tbody>${body}</tbody></table></div>`;
}

function stepCard(step: PlanStep, position: number, name: (workload: string) => string): SafeHtml {
  const tone = step.monthlySavingsUsd < 0 ? 'cost' : step.monthlySavingsUsd > 0 ? 'saving' : 'neutral';
  const reasons = step.confidenceReasons.length > 0 ? `: ${step.confidenceReasons.join('; ')}` : '';
  const config = configDetails(step.config);
  const evidence = Object.entries(step.evidence).map(([key, value]) => `${key}=${value === null ? 'null' : String(value)}`).join('; ');
  return html`<article class="recommendation step-${tone}"><h3>${position}. ${step.action}: ${step.workloads.map(name).join(', ')} <span class="${tone === 'cost' ? 'cost' : 'saving'}">${formatUsd(step.monthlySavingsUsd, 0)}/month</span></h3><dl><dt>From</dt><dd>${step.from}</dd><dt>To</dt><dd>${step.to}</dd>${step.after.length > 0 ? html`<dt>After</dt><dd>${step.after.join(', ')}</dd>` : null}<dt>Confidence</dt><dd>${step.confidence}${reasons}</dd><dt>Risks</dt><dd>${step.risks.length > 0 ? step.risks.join('; ') : 'none named'}</dd><dt>Evidence</dt><dd class="evidence">${evidence}</dd></dl>${config}</article>`;
}

export function planSection(report: Report): SafeHtml | null {
  const plan = report.plan;
  if (plan === null) return null;
  const name = gpuNames(report.gpus).target;
  const cards = html`<div class="cards"><div class="card card-plain"><div class="card-label">Now</div><div class="card-value">${formatUsd(plan.current.monthlyUsd, 0)}</div><div class="card-detail">per month · ${formatQuantity(plan.current.instanceCount, 'instance')}, ${formatQuantity(plan.current.gpus, 'GPU')}</div></div><div class="card card-plain"><div class="card-label">Target</div><div class="card-value">${formatUsd(plan.target.monthlyUsd, 0)}</div><div class="card-detail">per month · ${formatQuantity(plan.target.instanceCount, 'instance')}, ${formatQuantity(plan.target.gpus, 'GPU')}</div></div><div class="card card-good"><div class="card-label">Plan saves</div><div class="card-value">${formatUsd(plan.monthlySavingsUsd, 0)}</div><div class="card-detail">per month, ${plan.basis} demand</div></div></div>`;
  const placements = plan.placements.map((placement) => html`<tr>${[
    cell(name(placement.workload)),
    cell(placement.action),
    cell(placement.instanceType ?? '-'),
    cell(placement.host ?? '-'),
    cell(formatCount(placement.replicas), true),
    cell(`${placement.gpus}${placement.migProfile === null ? '' : ` (${placement.migProfile})`}${sharingWords(placement)}`, true),
    cell(placement.reason),
  ]}</tr>`);
  const alternatives = plan.alternatives.map((alternative) => html`<tr>${[cell(namedUnits(alternative.workloads.map(name))), cell(alternative.option), cell(alternative.monthlyUsd === null ? 'unpriced' : formatUsd(alternative.monthlyUsd, 0), true), cell(alternative.reason)]}</tr>`);
  return html`<section id="plan"><h2>Plan</h2>${cards}<h3>Current fleet</h3>${fleetTable(plan.current.instances)}<h3>Target fleet</h3>${fleetTable(plan.target.instances)}<h3>Placements</h3><div class="table-wrap"><table><thead><tr><th>Workload</th><th>Action</th><th>Instance type</th><th>On</th><th class="num">Replicas</th><th class="num">GPUs</th><th>Why</th></tr></thead><tbody>${placements}</tbody></table></div><h3>Steps (in order; their savings add up to the plan's)</h3>${plan.steps.length === 0 ? html`<p>None: the target is the current fleet.</p>` : plan.steps.map((step, index) => stepCard(step, index + 1, name))}${alternatives.length === 0 ? null : html`<h3>Alternatives (outside the total)</h3><div class="table-wrap"><table><thead><tr><th>Workload</th><th>Option</th><th class="num">$/month alone</th><th>Not chosen because</th></tr></thead><tbody>${alternatives}</tbody></table></div>`}<h3>Notes</h3><ul>${plan.notes.map((note) => html`<li>${note}</li>`)}</ul></section>`;
}

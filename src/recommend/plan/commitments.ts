/**
 * Commitments for the target fleet (docs/planner.md, "Commitments"): per unit, an instance type
 * in a region, the plan would otherwise pay A an hour for each instance: on-demand all month, or
 * spot's expected cost for the hours a spot instance runs. With R the committed price an hour,
 * the rule (DESIGN.md section 5) reserves the largest k whose share of hours with demand >= k
 * is at least R/A. A plan instance held all month has share 1; a spot instance has its run
 * share. Reserved instances and committed use are bought in whole instances, so k counts
 * instances and each brings its GPU count; a savings plan is a divisible $/h commitment,
 * sized on the same curve in dollars, and chosen where it costs less than the reservation.
 * Where no R is known, the break-even discount off on-demand is stated against the same A.
 */
import type { PlanAlternative } from '../../model/index.js';
import { money, round2 } from '../units.js';
import { inUse } from './demand.js';
import type { CommitmentDecision, CommitmentTerm, PlanOptions, TargetInstance } from './types.js';
import { dollars, monthlyCents } from './words.js';

/** What a commitment of this unit costs an hour, by term, where known: the catalog's, else a negotiated discount. */
function committedPrices(type: TargetInstance['type'], options: PlanOptions): { term: CommitmentTerm; hourlyUsd: number; source: string }[] {
  const prices: { term: CommitmentTerm; hourlyUsd: number; source: string }[] = [];
  const onDemand = type.prices.onDemand;
  if (options.commitment !== undefined && onDemand !== null) {
    prices.push({ term: 'reserved-1y', hourlyUsd: round4(onDemand * (1 - options.commitment.fraction)), source: `${options.commitment.source} (${(options.commitment.fraction * 100).toFixed(0)}% off on-demand)` });
  } else if (type.prices.reserved1y !== null) {
    prices.push({ term: 'reserved-1y', hourlyUsd: type.prices.reserved1y, source: sourceOf(type, 'reserved-1y') });
  }
  if (type.prices.savingsPlan1y !== null) prices.push({ term: 'savings-plan-1y', hourlyUsd: type.prices.savingsPlan1y, source: sourceOf(type, 'savings-plan-1y') });
  return prices;
}

function sourceOf(type: TargetInstance['type'], label: string): string {
  return type.prices.sources.find((source) => source.startsWith(`${label}: `))?.slice(label.length + 2) ?? 'the catalog';
}

function round4(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

/** An instance the plan sized on evidence: every workload on it was measured and placed (not kept for want of data). */
function committable(instance: TargetInstance): boolean {
  const active = inUse(instance.demands);
  return active.length > 0 && active.every((demand) => demand.disposition.kind === 'move');
}

function unitKey(instance: TargetInstance): string {
  return `${instance.type.provider}\u0000${instance.type.region}\u0000${instance.type.name}`;
}

function candidateOf(instance: TargetInstance): CommitmentDecision['candidates'][number] {
  return instance.spot === undefined
    ? { instance, share: 1, aUsdPerHour: instance.hourlyUsd, basis: 'on-demand' }
    : { instance, share: instance.spot.runShare, aUsdPerHour: instance.spot.hourlyUsd, basis: 'spot' };
}

/** A month of the instance as the plan pays it without a commitment. */
function otherwiseCents(candidate: CommitmentDecision['candidates'][number]): number {
  return monthlyCents(candidate.aUsdPerHour, candidate.share);
}

function gpusText(gpus: number): string {
  return `${gpus} GPU${gpus === 1 ? '' : 's'}`;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function ruleText(r: number, candidates: CommitmentDecision['candidates'], k: number): string {
  const as = [...new Set(candidates.map((candidate) => `$${candidate.aUsdPerHour.toFixed(2)}/h (${candidate.basis})`))].join(', ');
  const ratios = [...new Set(candidates.map((candidate) => (r / candidate.aUsdPerHour).toFixed(3)))].join(', ');
  const shares = candidates.map((candidate, index) => `k=${index + 1}: ${percent(candidate.share)}`).join(', ');
  return `R $${r.toFixed(2)}/h; A ${as}; R/A ${ratios}; share of hours with demand >= k: ${shares}; k = ${k} (the largest k whose share is at least R/A)`;
}

export interface CommitmentPlan {
  decisions: CommitmentDecision[];
  /** Units with no known R: the break-even discount, outside the total. */
  alternatives: PlanAlternative[];
}

/**
 * Decides the commitments and applies them to the instances (a reserved instance is priced at R
 * all month and leaves spot). Only planned at on-demand pricing: at another term the fleet is
 * already committed.
 */
export function planCommitments(instances: readonly TargetInstance[], options: PlanOptions): CommitmentPlan {
  if (options.pricing !== 'on-demand') return { decisions: [], alternatives: [] };
  const units = new Map<string, TargetInstance[]>();
  for (const instance of instances) {
    if (!committable(instance)) continue;
    const list = units.get(unitKey(instance)) ?? [];
    list.push(instance);
    units.set(unitKey(instance), list);
  }
  const decisions: CommitmentDecision[] = [];
  const alternatives: PlanAlternative[] = [];
  for (const members of units.values()) {
    const type = members[0]!.type;
    const candidates = members.map(candidateOf).sort((a, b) => b.share - a.share || a.instance.name.localeCompare(b.instance.name));
    const workloads = [...new Set(members.flatMap((instance) => inUse(instance.demands).map((demand) => demand.unit.id)))];
    const prices = committedPrices(type, options);
    if (prices.length === 0) {
      alternatives.push(breakEven(type, candidates, workloads));
      continue;
    }
    // Each term by the rule; the one that saves more is bought, the other is an alternative.
    const byTerm = prices.map((price) => {
      const reserved = candidates.filter((candidate) => candidate.share >= price.hourlyUsd / candidate.aUsdPerHour - 1e-9);
      const beforeCents = reserved.reduce((sum, candidate) => sum + otherwiseCents(candidate), 0);
      const afterCents = reserved.length * monthlyCents(price.hourlyUsd);
      const onDemandCents = reserved.reduce((sum, candidate) => sum + monthlyCents(candidate.instance.hourlyUsd), 0);
      return { price, reserved, beforeCents, afterCents, onDemandCents };
    });
    byTerm.sort((a, b) => (b.beforeCents - b.afterCents) - (a.beforeCents - a.afterCents));
    const best = byTerm[0]!;
    for (const other of byTerm.slice(1)) {
      alternatives.push({
        workloads,
        option: `${other.price.term} for ${other.reserved.length} x ${type.name} at $${other.price.hourlyUsd.toFixed(2)}/h`,
        monthlyUsd: dollars(other.afterCents),
        reason: `saves ${money(dollars(other.beforeCents - other.afterCents))}/month against ${money(dollars(best.beforeCents - best.afterCents))}/month for ${best.price.term}`,
      });
    }
    if (best.reserved.length === 0 || best.afterCents >= best.beforeCents) {
      alternatives.push({
        workloads,
        option: `${best.price.term} for ${type.name} at $${best.price.hourlyUsd.toFixed(2)}/h`,
        monthlyUsd: dollars(monthlyCents(best.price.hourlyUsd)),
        reason: `not bought: ${ruleText(best.price.hourlyUsd, candidates, 0)}`,
      });
      continue;
    }
    decisions.push({
      type,
      term: best.price.term,
      rUsdPerHour: best.price.hourlyUsd,
      source: best.price.source,
      candidates,
      reserved: best.reserved.map((candidate) => candidate.instance),
      beforeCents: best.onDemandCents,
      otherwiseCents: best.beforeCents,
      afterCents: best.afterCents,
      rule: ruleText(best.price.hourlyUsd, candidates, best.reserved.length),
    });
    for (const candidate of best.reserved) {
      candidate.instance.commitment = { term: best.price.term, hourlyUsd: best.price.hourlyUsd, source: best.price.source };
      delete candidate.instance.spot;
    }
  }
  return { decisions, alternatives };
}

/** Where R is unknown: the discount off on-demand above which committing k instances pays, against each one's A. */
function breakEven(type: TargetInstance['type'], candidates: CommitmentDecision['candidates'], workloads: string[]): PlanAlternative {
  const onDemand = type.prices.onDemand ?? candidates[0]!.aUsdPerHour;
  const allMonth = candidates.filter((candidate) => candidate.basis === 'on-demand' && candidate.share >= 1);
  const parts = [
    ...(allMonth.length === 0 ? [] : [`k=${allMonth.length === 1 ? '1' : `1..${allMonth.length}`} on demand all month (A $${allMonth[0]!.aUsdPerHour.toFixed(2)}/h): any discount`]),
    ...candidates.slice(allMonth.length).map((candidate, index) => {
      // R pays where R <= share x A: a discount off on-demand of at least 1 - share x A / O.
      const discount = Math.max(0, 1 - (candidate.share * candidate.aUsdPerHour) / onDemand);
      return `k=${allMonth.length + index + 1} (A $${candidate.aUsdPerHour.toFixed(2)}/h ${candidate.basis}, ${percent(candidate.share)} of hours): above ${percent(discount)}`;
    }),
  ];
  return {
    workloads,
    option: `1-year commitment for ${candidates.length} x ${type.name} (${gpusText(candidates.length * type.gpuCount)}, bought in whole instances)`,
    monthlyUsd: null,
    reason: `no commitment price known for ${type.name} (catalog refresh reads reserved and savings-plan rates; gpu-audit.yaml pricing.discounts.reserved1yPct sets a negotiated one); a commitment pays at a discount off on-demand of ${parts.join('; ')}`,
  };
}

export function commitmentEvidence(decision: CommitmentDecision): Record<string, string | number | null> {
  return {
    term: decision.term,
    unit: decision.term === 'savings-plan-1y' ? 'usd-per-hour' : 'instance',
    instances: decision.reserved.length,
    gpus: decision.reserved.length * decision.type.gpuCount,
    committedUsdPerHour: round2(decision.rUsdPerHour * decision.reserved.length),
    rUsdPerHour: decision.rUsdPerHour,
    rule: decision.rule,
  };
}

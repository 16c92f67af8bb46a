/**
 * Commitments, worked by hand (730 hours a month). R is the committed price an hour, A what the
 * plan would otherwise pay for the instance: on-demand all month, or spot's expected cost for
 * the hours it runs. Reserve the largest k whose share of hours with demand >= k is >= R/A.
 */
import { describe, expect, it } from 'vitest';
import type { PlanStep } from '../../../src/model/index.js';
import { board, catalogOf, definition, instanceType, planOf, workload } from './fleet.js';

/** Two services, each alone on an h100.1x-class need (62 GiB, p95 30% of an H200), now on one inferred h200.8x. */
function services(types: Parameters<typeof catalogOf>[0]) {
  const boards = [0, 1].map((index) => board('h200-host', index, { modelKey: 'h200-sxm-141gb', instanceType: 'h200.8x', basis: 'inferred', hourlyUsd: 8, peakGiB: 62, p95Pct: 30 }));
  const catalog = catalogOf([instanceType('h200.8x', 'h200-sxm-141gb', 8, 64, { vcpus: 192, memoryGiB: 2048 }), ...types]);
  return planOf({ gpus: boards, workloads: boards.map((gpu, index) => workload(`svc-${index}`, [gpu], { peakGiB: 62, p95Pct: 30 })) }, catalog);
}

function balanced(outcome: ReturnType<typeof services>): void {
  const { plan } = outcome;
  expect(Math.round((plan.current.monthlyUsd - plan.target.monthlyUsd) * 100)).toBe(Math.round(plan.monthlySavingsUsd * 100));
  expect(Math.round(plan.steps.reduce((sum, step) => sum + step.monthlySavingsUsd, 0) * 100)).toBe(Math.round(plan.monthlySavingsUsd * 100));
}

const reserveStep = (steps: readonly PlanStep[]) => steps.find((step) => step.id.startsWith('reserve:'));

describe('the rule against on-demand', () => {
  it('reserves both h100.1x held all month where R $4.50 < A $7.00: whole instances, $3,650/month', () => {
    const outcome = services([instanceType('h100.1x', 'h100-sxm-80gb', 1, 7, { reserved1y: 4.5 })]);
    const step = reserveStep(outcome.plan.steps)!;
    // Each instance has share 1 >= R/A = 4.5 / 7 = 0.643: k = 2. 2 x (7 - 4.5) x 730 = $3,650.
    expect(step).toMatchObject({ action: 'commit', monthlySavingsUsd: 3650, to: '2 x h100.1x reserved for 1 year (2 GPUs: whole instances) at $4.50/h each: $6,570/month' });
    expect(step.evidence).toMatchObject({ term: 'reserved-1y', unit: 'instance', instances: 2, gpus: 2, rUsdPerHour: 4.5, committedUsdPerHour: 9 });
    expect(step.evidence.rule).toBe('R $4.50/h; A $7.00/h (on-demand); R/A 0.643; share of hours with demand >= k: k=1: 100.0%, k=2: 100.0%; k = 2 (the largest k whose share is at least R/A)');
    expect(outcome.plan.target.instances.find((row) => row.instanceType === 'h100.1x')).toMatchObject({ pricing: 'reserved-1y', hourlyUsd: 4.5, count: 2, monthlyUsd: 6570 });
    balanced(outcome);
  });

  it('states the break-even against on-demand where no R is known, and buys nothing', () => {
    const outcome = services([instanceType('h100.1x', 'h100-sxm-80gb', 1, 7)]);
    expect(reserveStep(outcome.plan.steps)).toBeUndefined();
    const alternative = outcome.plan.alternatives.find((candidate) => candidate.option.startsWith('1-year commitment'))!;
    expect(alternative).toMatchObject({ option: '1-year commitment for 2 x h100.1x (2 GPUs, bought in whole instances)', monthlyUsd: null, workloads: ['svc-0', 'svc-1'] });
    expect(alternative.reason).toContain('k=1..2 on demand all month (A $7.00/h): any discount');
  });

  it('takes a savings plan where it costs less than the reservation, sized in $/h, and lists the other', () => {
    const outcome = services([instanceType('h100.1x', 'h100-sxm-80gb', 1, 7, { reserved1y: 5, savingsPlan1y: 4.8 })]);
    const step = reserveStep(outcome.plan.steps)!;
    // Savings plan: 2 x (7 - 4.8) x 730 = $3,212; reservation: 2 x (7 - 5) x 730 = $2,920.
    expect(step).toMatchObject({ monthlySavingsUsd: 3212, to: 'a 1-year savings plan of $9.60/h covering 2 x h100.1x at $4.80/h each: $7,008/month' });
    expect(step.evidence).toMatchObject({ term: 'savings-plan-1y', unit: 'usd-per-hour', committedUsdPerHour: 9.6 });
    expect(outcome.plan.alternatives.find((candidate) => candidate.option.startsWith('reserved-1y'))).toMatchObject({
      option: 'reserved-1y for 2 x h100.1x at $5.00/h', monthlyUsd: 7300, reason: 'saves $2,920/month against $3,212/month for savings-plan-1y',
    });
    balanced(outcome);
  });

  it('applies a negotiated discount from gpu-audit.yaml in place of the catalog\'s price', () => {
    // Catalog R $6: saves 2 x (7 - 6) x 730 = $1,460.
    expect(reserveStep(services([instanceType('h100.1x', 'h100-sxm-80gb', 1, 7, { reserved1y: 6 })]).plan.steps)!.monthlySavingsUsd).toBe(1460);
    // 40% off: R = 7 x 0.6 = $4.20; saves 2 x 2.80 x 730 = $4,088.
    const boards = [0, 1].map((index) => board('h200-host', index, { modelKey: 'h200-sxm-141gb', instanceType: 'h200.8x', basis: 'inferred', hourlyUsd: 8, peakGiB: 62, p95Pct: 30 }));
    const catalog = catalogOf([instanceType('h200.8x', 'h200-sxm-141gb', 8, 64, { vcpus: 192, memoryGiB: 2048 }), instanceType('h100.1x', 'h100-sxm-80gb', 1, 7, { reserved1y: 6 })]);
    const negotiated = planOf({ gpus: boards, workloads: boards.map((gpu, index) => workload(`svc-${index}`, [gpu], { peakGiB: 62, p95Pct: 30 })) }, catalog, { commitment: { fraction: 0.4, source: 'gpu-audit.yaml pricing.discounts.reserved1yPct' } });
    const step = reserveStep(negotiated.plan.steps)!;
    expect(step).toMatchObject({ monthlySavingsUsd: 4088, evidence: { rUsdPerHour: 4.2 } });
    expect(step.risks).toContain('the committed price is gpu-audit.yaml pricing.discounts.reserved1yPct (40% off on-demand): check it against the provider\'s quote before buying');
  });
});

describe('the rule against spot, on an 8-GPU type', () => {
  // A checkpointed job on 4 of an h100.8x's GPUs, running half the hours: spot expected 20.0018 $/h
  // (20 x (1 + 0.2/730 x 1/3 h)), for 365 h = $7,300.66/month; on demand $48/h = $35,040.
  const TRAINING = definition('pretrain', { kind: 'training', checkpoint: { intervalMinutes: 30, restoreMinutes: 5 } } as never);
  function job(reserved1y?: number) {
    const catalog = catalogOf([instanceType('h100.8x', 'h100-sxm-80gb', 8, 48, { vcpus: 192, memoryGiB: 2048, spot: 20, spotObservedAt: '2026-11-25', ...(reserved1y === undefined ? {} : { reserved1y }) })]);
    const boards = Array.from({ length: 8 }, (_, index) => board('train-node', index, { instanceType: 'h100.8x', hourlyUsd: 6, peakGiB: 60, p95Pct: 90, idleFraction: index < 4 ? 0.5 : 1 }));
    return planOf({ gpus: boards, workloads: [workload('pretrain', boards.slice(0, 4), { kind: 'training', peakGiB: 60, p95Pct: 90, busyFraction: 0.5 })], definitions: [TRAINING] }, catalog);
  }

  it('keeps spot where R/A = 15 / 20.0018 = 0.75 exceeds the run share 0.5: k = 0, said why', () => {
    const outcome = job(15);
    expect(reserveStep(outcome.plan.steps)).toBeUndefined();
    expect(outcome.plan.steps.find((step) => step.action === 'commit')).toMatchObject({ id: 'commit:train-node', monthlySavingsUsd: 27739.34 });
    expect(outcome.plan.alternatives.find((candidate) => candidate.option.startsWith('reserved-1y'))!.reason)
      .toBe('not bought: R $15.00/h; A $20.00/h (spot); R/A 0.750; share of hours with demand >= k: k=1: 50.0%; k = 0 (the largest k whose share is at least R/A)');
  });

  it('reserves the whole instance (8 GPUs, not the 4 that run) where R/A = 9 / 20.0018 = 0.45 <= 0.5, in place of spot', () => {
    const outcome = job(9);
    const step = reserveStep(outcome.plan.steps)!;
    // Against on demand all month, the plan's term without the step: $35,040 - 9 x 730 = $28,470,
    // $730.66 more than spot ($7,300.66 - $6,570); no spot step beside it.
    expect(step).toMatchObject({ monthlySavingsUsd: 28470, from: 'train-node on demand, all month ($35,040/month; $7,301 expected on spot while its work runs)' });
    expect(step.evidence).toMatchObject({ instances: 1, gpus: 8, unit: 'instance' });
    expect(outcome.plan.steps.filter((candidate) => candidate.id.startsWith('commit:'))).toEqual([]);
    // Now $35,040 (the host on demand) -> $6,570 reserved: the step saves it all.
    expect(outcome.plan.monthlySavingsUsd).toBe(28470);
    balanced(outcome);
  });

  it('states the break-even against spot where no R is known: 1 - 0.5 x 20.0018 / 48 = 79.2% off on-demand', () => {
    const alternative = job().plan.alternatives.find((candidate) => candidate.option.startsWith('1-year commitment'))!;
    expect(alternative.option).toBe('1-year commitment for 1 x h100.8x (8 GPUs, bought in whole instances)');
    expect(alternative.reason).toContain('k=1 (A $20.00/h spot, 50.0% of hours): above 79.2%');
  });
});

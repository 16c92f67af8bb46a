/**
 * Spot in the plan, worked by hand: an h100.8x at $48/h on demand ($35,040/month) and $20/h on
 * spot; a checkpointed training job on 4 of its GPUs, busy half the hours. Windows end
 * 2026-11-29T23:55Z (fleet.ts). Interruptions default to 20% a month: 0.2 / 730 per hour.
 */
import { describe, expect, it } from 'vitest';
import type { PlanOptions } from '../../../src/recommend/index.js';
import { board, catalogOf, definition, instanceType, planOf, workload } from './fleet.js';

const TRAINING = definition('pretrain', { kind: 'training', checkpoint: { intervalMinutes: 30, restoreMinutes: 5 } } as never);

function fleet(spotObservedAt?: string, serviceBeside = false) {
  const catalog = catalogOf([instanceType('h100.8x', 'h100-sxm-80gb', 8, 48, { vcpus: 192, memoryGiB: 2048, spot: 20, ...(spotObservedAt === undefined ? {} : { spotObservedAt }) })]);
  const boards = Array.from({ length: 8 }, (_, index) => board('train-node', index, { instanceType: 'h100.8x', hourlyUsd: 6, peakGiB: 60, p95Pct: 90, idleFraction: index < 4 || (serviceBeside && index === 4) ? 0.5 : 1 }));
  const workloads = [workload('pretrain', boards.slice(0, 4), { kind: 'training', peakGiB: 60, p95Pct: 90, busyFraction: 0.5 })];
  if (serviceBeside) workloads.push(workload('chat', [boards[4]!], { peakGiB: 30, p95Pct: 40, busyFraction: 0.5 }));
  return { catalog, input: { gpus: boards, workloads, definitions: [TRAINING] } };
}

function commitOf(spotObservedAt?: string, options: Partial<PlanOptions> = {}) {
  const { catalog, input } = fleet(spotObservedAt);
  const outcome = planOf(input, catalog, options);
  return { outcome, step: outcome.plan.steps.find((step) => step.action === 'commit') };
}

describe('spot for checkpointed jobs', () => {
  it('takes the instance on spot although 4 of its GPUs belong to no workload: GPUs idle all window block nothing', () => {
    const { outcome, step } = commitOf('2026-11-20');
    // Lost per interruption: 30 / 2 + 5 = 20 minutes = 1/3 h. Expected spot: 20 x (1 + 0.2/730 x 1/3)
    // = 20.0018 $/h (to 4 places); half the hours: 20.0018 x 730 x 0.5 = $7,300.66; saved $35,040 - $7,300.66.
    expect(step).toMatchObject({ workloads: ['pretrain'], monthlySavingsUsd: 27739.34 });
    expect(step!.evidence).toMatchObject({ spotExpectedUsdPerHour: 20, spotObservedAt: '2026-11-20', runShare: 0.5, interruptionsPerMonthPct: 20, interruptionRateBasis: 'assumed' });
    // 0.2 / 730 x 1/3 = 0.00913% of the run hours.
    expect(step!.evidence.expectedLossPct).toBe(0.01);
    expect(outcome.findings.filter((finding) => finding.code === 'spot-blocked')).toEqual([]);
  });

  it('names an undated spot price, and one older than 30 days, in the confidence reasons', () => {
    const undated = commitOf(undefined).step!;
    expect(undated.confidenceReasons).toContain('the catalog\'s spot price for h100.8x is undated: it may be far from today\'s (catalog refresh dates it)');
    expect(undated.risks).toContain('the spot price is an observation of unknown date, not a quote: it moves with demand');
    // 2026-10-01 to 2026-11-29T23:55Z: 59 whole days.
    const old = commitOf('2026-10-01').step!;
    expect(old.confidenceReasons).toContain('the spot price for h100.8x was observed on 2026-10-01, 59 days before the window\'s end');
    const fresh = commitOf('2026-11-20').step!;
    expect(fresh.confidenceReasons.filter((reason) => reason.includes('spot price'))).toEqual([]);
    expect(undated.confidenceReasons.length).toBe(fresh.confidenceReasons.length + 1);
  });

  it('uses the configured interruption rate and shows the loss it implies', () => {
    // 50% a month: 0.5 / 730 per hour x 1/3 h = 0.0228% of run hours; 20 x 1.000228 = 20.0046 $/h.
    const { step } = commitOf('2026-11-20', { spotInterruptionsPerHour: 0.5 / 730 });
    expect(step!.evidence).toMatchObject({ interruptionsPerMonthPct: 50, interruptionRateBasis: 'configured', expectedLossPct: 0.02 });
    expect(step!.confidenceReasons.filter((reason) => reason.includes('interruption rate'))).toEqual([]);
    // 20.0046 x 365 = $7,301.68: saved $27,738.32.
    expect(step!.monthlySavingsUsd).toBe(27738.32);
  });

  it('calls a worst-bucket pool unsuitable where checkpoints are too rare to keep the loss small', () => {
    const rare = definition('pretrain', { kind: 'training', checkpoint: { intervalMinutes: 6000, restoreMinutes: 5 } } as never);
    const { catalog, input } = fleet('2026-11-20');
    const step = planOf({ ...input, definitions: [rare] }, catalog).plan.steps.find((candidate) => candidate.action === 'commit')!;
    // Lost: 3,000 + 5 minutes = 50.08 h; 0.2 / 730 x 50.08 = 1.37% of the run hours > 1%.
    expect(step.evidence.expectedLossPct).toBe(1.37);
    expect(step.confidenceReasons).toContain('a pool reclaimed 20%/month or more is unsuitable for long single-node training at this checkpoint interval: 1.4% of the run hours lost');
  });

  it('says which service keeps the jobs off spot, and what spot would save without it', () => {
    const { catalog, input } = fleet('2026-11-20', true);
    const outcome = planOf(input, catalog);
    expect(outcome.plan.steps.filter((step) => step.action === 'commit')).toEqual([]);
    const finding = outcome.findings.find((candidate) => candidate.code === 'spot-blocked')!;
    expect(finding.message).toBe('pretrain could take train-node on spot while it runs, but chat (inference, must run at any hour) runs beside: on an instance of their own, spot would save up to $27,739/month on this one (not counted).');
    expect(finding.evidence).toMatchObject({ blockers: 'chat', spotReady: 'pretrain', upToMonthlyUsd: 27739.34 });
  });
});

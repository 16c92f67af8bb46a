/**
 * A serving pool planned from its servers' measured figures (report workloads[].serving):
 * replicas from the measured peak and capacity with the headroom rule, the pool found
 * overprovisioned, declared figures checked against the measured ones, and an autoscaler
 * whose every threshold comes from the data. Figures worked out in the comments.
 */
import { describe, expect, it } from 'vitest';
import type { ServingEntry, WorkloadEntry, WorkloadServing } from '../../../src/model/report.js';
import type { PlanOutcome } from '../../../src/recommend/index.js';
import { validateAdapterRules, validateHorizontalPodAutoscaler } from '../../../src/recommend/autoscale/hpa.js';
import { validateScaledObject } from '../../../src/recommend/autoscale/keda.js';
import { board, catalogOf, definition, instanceType, planOf, workload } from './fleet.js';

const CATALOG = catalogOf([instanceType('h100.1x', 'h100-sxm-80gb', 1, 7, { vcpus: 16, memoryGiB: 256 })]);

/** Four single-GPU replicas on four h100.1x hosts, each GPU at 40% p95. */
const boards = Array.from({ length: 4 }, (_, index) => board(`chat-${index}`, 0, { instanceType: 'h100.1x', hourlyUsd: 7, peakGiB: 40, p95Pct: 40 }));

function pool(facts: Partial<WorkloadServing> & { capacity?: WorkloadServing['capacity'] }): WorkloadServing {
  return {
    servers: 4, intervalSeconds: 60, peakRequestsPerSecond: 10, peakAt: '2026-11-24T14:00:00.000Z', peakGenerationTokensPerSecond: 2000,
    rampRequestsPerSecondPerMinute: 2, sloP95Ms: 1000,
    capacity: { requestsPerSecondPerGpu: 4, generationTokensPerSecondPerGpu: 800, p95Ms: 500, basis: 'knee', confidence: 'high', intervalsWithinSlo: 50, intervalsOverSlo: 3 },
    capacityNote: '4.00 requests/s per GPU at p95 500 ms; heavier intervals went over the 1000 ms SLO', requests: 100_000,
    costPer1000RequestsUsd: 1, costPer1000RequestsAtCapacityUsd: 0.49, costPer1000TokensUsd: 0.005, costPer1000TokensAtCapacityUsd: 0.0024,
    ...facts,
  };
}

const servers = [{ workload: 'chat', server: 'vllm', namespace: 'serving', model: 'llama-3.1-8b', waiting: { mean: 0.5, max: 6 } }] as unknown as ServingEntry[];

function plan(serving: WorkloadServing, more: Partial<Parameters<typeof definition>[1]> = {}): PlanOutcome {
  const chat: WorkloadEntry = { ...workload('chat', boards, { peakGiB: 40, p95Pct: 40 }), serving };
  return planOf({ gpus: boards, workloads: [chat], definitions: [definition('chat', { slo: { p95Ms: 1000 }, coldStartSeconds: 120, ...more })], serving: servers }, CATALOG);
}

const placement = (outcome: PlanOutcome) => outcome.plan.placements.find((candidate) => candidate.workload === 'chat')!;

describe('replicas from the measured peak and capacity', () => {
  it('sizes a knee-measured pool to ceil(10 / 4 x 1.2) = 3 replicas and says the 4 it runs are one too many', () => {
    const outcome = plan(pool({}));
    expect(placement(outcome)).toMatchObject({ replicas: 3, gpusPerReplica: 1, gpus: 3 });
    expect(placement(outcome).reason).toContain('per replica at its servers\' measured capacity (peak 10 requests/s at 4 per GPU within the 1000 ms p95 SLO, knee)');
    const finding = outcome.findings.find((candidate) => candidate.code === 'overprovisioned-pool')!;
    expect(finding.evidence).toEqual({ currentReplicas: 4, neededReplicas: 3, gpusPerReplica: 1, peakRequestsPerSecond: 10, capacityRequestsPerSecondPerGpu: 4, capacityBasis: 'knee', headroom: 0.2 });
    // One h100.1x fewer: $7 x 730 = $5,110 a month.
    expect(outcome.plan.monthlySavingsUsd).toBe(5110);
  });

  it('sizes nothing from a lower bound: the window never came near the SLO, so the GPUs\' telemetry decides', () => {
    const outcome = plan(pool({ capacity: { requestsPerSecondPerGpu: 2.5, generationTokensPerSecondPerGpu: 500, p95Ms: 300, basis: 'lower-bound', confidence: 'low', intervalsWithinSlo: 50, intervalsOverSlo: 0 } }));
    // Each of the four GPUs ran at 40% p95: four replicas, kept where they are.
    expect(placement(outcome)).toMatchObject({ action: 'keep', replicas: 4 });
    expect(outcome.findings.filter((candidate) => candidate.code === 'overprovisioned-pool')).toEqual([]);
    expect(outcome.plan.steps.filter((step) => step.action === 'autoscale')).toEqual([]);
  });

  it('checks declared figures against the measured ones, not the GPUs\' p95: 10 / 20 = 0.5 GPUs declared, 2.5 measured', () => {
    const outcome = plan(pool({}), { throughputPerGpu: { value: 20, unit: 'requests/s' }, peakDemand: { value: 10, unit: 'requests/s' } });
    const finding = outcome.findings.find((candidate) => candidate.code === 'declared-vs-observed')!;
    expect(finding.evidence).toMatchObject({ declaredGpus: 0.5, declaredReplicas: 1, measuredGpusAtPeak: 2.5, measuredReplicas: 3, planBasis: 'observed' });
    expect(finding.message).toMatch(/its servers measured a peak of 10 requests\/s at 4 per GPU within the SLO \(2\.5 GPUs at peak\): the plan uses the measured demand\.$/u);
  });
});

describe('the autoscale step', () => {
  it('scales between the warm pool and the peak, with thresholds from the measured capacity', () => {
    const outcome = plan(pool({}));
    const step = outcome.plan.steps.find((candidate) => candidate.action === 'autoscale')!;
    // Warm pool: ceil(2 requests/s per minute x 2 min cold start / 4 per replica) = 1: min 1 + 1 = 2, max 3.
    // Queue: floor(4 x (1,000 - 500) ms / 1,000) = 2 waiting per replica; latency: the 0.5 s p95 at capacity.
    expect(step.evidence).toMatchObject({ minReplicas: 2, maxReplicas: 3, warmPoolReplicas: 1, queueThresholdPerReplica: 2, latencyThresholdSeconds: 0.5, coldStartSeconds: 120 });
    expect(step).toMatchObject({ monthlySavingsUsd: 0, confidence: 'high', workloads: ['chat'] });
    expect(step.to).toBe('KEDA ScaledObject chat: 2 to 3 replicas on the queue (over 2 waiting per replica) and p95 latency (over 0.5 s)');
    // After the step that takes the pool to its three replicas.
    const move = outcome.plan.steps.find((candidate) => candidate.action === 'move')!;
    expect(move.workloads).toEqual(['chat']);
    expect(step.after).toEqual([move.id]);
    expect(validateScaledObject(step.config!.text)).toEqual({ ok: true });
    expect(step.config!.text).toContain('query: sum(vllm:num_requests_waiting{namespace="serving",model_name="llama-3.1-8b"})');
    const [rules, hpa] = step.config!.alternative!.text.split(/^---$/mu);
    expect(validateAdapterRules(rules!)).toEqual({ ok: true });
    expect(validateHorizontalPodAutoscaler(hpa!)).toEqual({ ok: true });
  });

  it('takes the queries, address, bounds and target from gpu-audit.yaml where given', () => {
    const step = plan(pool({}), { autoscaling: { prometheusAddress: 'http://prom.obs:9090', queueMetric: 'sum(my_queue)', maxReplicas: 6, deployment: 'chat-server', namespace: 'apps' } }).plan.steps.find((candidate) => candidate.action === 'autoscale')!;
    expect(step.evidence).toMatchObject({ minReplicas: 2, maxReplicas: 6 });
    for (const text of ['serverAddress: http://prom.obs:9090', 'query: sum(my_queue)', 'name: chat-server', 'namespace: apps']) expect(step.config!.text).toContain(text);
    expect(step.risks.some((risk) => risk.startsWith('serverAddress is'))).toBe(false);
    expect(validateScaledObject(step.config!.text)).toEqual({ ok: true });
  });

  it('writes none where the warm pool already needs the peak\'s replicas: nothing is left to scale', () => {
    // Ramp 8 requests/s per minute over a 2 min cold start: ceil(16 / 4) = 4 warm, min 5 >= max 3.
    expect(plan(pool({ rampRequestsPerSecondPerMinute: 8 })).plan.steps.filter((step) => step.action === 'autoscale')).toEqual([]);
  });

  it('says why an autoscaler asked for in gpu-audit.yaml cannot be sized', () => {
    const outcome = plan(pool({ capacity: null, capacityNote: 'no slo.p95Ms declared for the workload: capacity within a latency target cannot be read' }), { autoscaling: { maxReplicas: 4 } });
    const finding = outcome.findings.find((candidate) => candidate.id === 'not-enough-data:autoscale:chat')!;
    expect(finding.message).toBe('chat asks for an autoscaler, but its capacity was not measured: no slo.p95Ms declared for the workload: capacity within a latency target cannot be read: its thresholds cannot come from the data.');
  });
});

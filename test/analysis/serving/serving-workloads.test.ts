/**
 * Which workload each server is, and what serving costs: a pod selector first, else the one
 * inference workload on the server's host; cost per 1,000 requests and tokens shared by the
 * workload's servers in proportion to their requests, worked out by hand.
 */
import { describe, expect, it } from 'vitest';
import { joinServing } from '../../../src/analysis/serving/serving-workloads.js';
import { servingFindings } from '../../../src/analysis/serving/serving-findings.js';
import type { ServingEntry, WorkloadEntry } from '../../../src/model/index.js';
import type { WorkloadDefinition } from '../../../src/analysis/workloads/index.js';

type Unjoined = Parameters<typeof joinServing>[0][number];

const entry = (overrides: Partial<Unjoined>): Unjoined => ({
  server: 'vllm', instance: 'vllm node-1 chat-0 llama', host: 'node-1', model: 'llama', namespace: null, pod: null,
  basis: 'window', scrapes: 61, windowSeconds: 3600, counterResets: 0,
  requests: 3000, failedRequests: null, requestsPerSecond: 3000 / 3600, promptTokens: null, generationTokens: 600_000, generationTokensPerSecond: 600_000 / 3600,
  preemptions: 0, e2eLatency: null, ttft: null, tpot: null, queueTime: null, running: null, waiting: null, kvCacheUsagePct: null,
  ...overrides,
});

const workload = (name: string, gpus: string[], hourlyUsd: number | null): WorkloadEntry => ({ name, gpus, cost: { hourlyUsd } } as unknown as WorkloadEntry);
const definition = (name: string, kind: string, match: WorkloadDefinition['match'], slo?: number): WorkloadDefinition =>
  ({ name, kind, match, ...(slo === undefined ? {} : { slo: { p95Ms: slo } }) } as WorkloadDefinition);

const GPU_HOST = new Map([['GPU-a', 'node-1'], ['GPU-b', 'node-1'], ['GPU-c', 'node-2']]);

describe('joinServing', () => {
  it('takes the workload whose pod selector matches the server\'s pod, before the host', () => {
    const [joined] = joinServing(
      [entry({ namespace: 'ml', pod: 'chat-7f9' })],
      [workload('chat', ['GPU-a'], 10), workload('embed', ['GPU-b'], 2)],
      [definition('chat', 'inference', { namespace: 'ml', pod: 'chat-*' }), definition('embed', 'inference', { hosts: ['node-1'] })],
      GPU_HOST,
    );
    expect(joined!.workload).toBe('chat');
  });

  it('takes the one inference workload on the host, and none where there are two', () => {
    const one = joinServing([entry({})], [workload('chat', ['GPU-a', 'GPU-b'], 10), workload('train', ['GPU-c'], 30)], [definition('chat', 'inference', {}), definition('train', 'training', {})], GPU_HOST);
    expect(one[0]!.workload).toBe('chat');
    const two = joinServing([entry({})], [workload('chat', ['GPU-a'], 10), workload('embed', ['GPU-b'], 2)], [definition('chat', 'inference', {}), definition('embed', 'inference', {})], GPU_HOST);
    expect(two[0]!.workload).toBeNull();
  });

  it('prices 1,000 requests and tokens from the workload\'s cost over the window, shared by its servers\' requests', () => {
    // chat costs $12/h; over 3,600 s that is $12. Two servers: 3,000 and 1,000 requests -> $9 and $3.
    // Server 1: $9 / 3,000 x 1,000 = $3 per 1,000 requests; $9 / 600,000 x 1,000 = $0.015 per 1,000 tokens.
    const joined = joinServing(
      [entry({}), entry({ instance: 'vllm node-1 chat-1 llama', requests: 1000, generationTokens: 100_000 })],
      [workload('chat', ['GPU-a', 'GPU-b'], 12)],
      [definition('chat', 'inference', {})],
      GPU_HOST,
    );
    expect(joined[0]!.costPer1000RequestsUsd).toBeCloseTo(3, 12);
    expect(joined[0]!.costPer1000TokensUsd).toBeCloseTo(0.015, 12);
    // Server 2: $3 / 1,000 x 1,000 = $3; $3 / 100,000 x 1,000 = $0.03.
    expect(joined[1]!.costPer1000RequestsUsd).toBeCloseTo(3, 12);
    expect(joined[1]!.costPer1000TokensUsd).toBeCloseTo(0.03, 12);
  });

  it('prices nothing on one scrape: its totals are not the requests of the hours priced', () => {
    const [joined] = joinServing([entry({ basis: 'since-start', windowSeconds: null })], [workload('chat', ['GPU-a'], 12)], [definition('chat', 'inference', {})], GPU_HOST);
    expect(joined!.costPer1000RequestsUsd).toBeNull();
  });
});

describe('servingFindings', () => {
  const joined = (overrides: Partial<ServingEntry>): ServingEntry => ({ ...entry({}), workload: 'chat', costPer1000RequestsUsd: null, costPer1000TokensUsd: null, ...overrides });
  const latency = (p95Seconds: number, aboveSeconds: number | null = null): ServingEntry['e2eLatency'] => ({ count: 100, meanSeconds: 0.5, p50Seconds: 0.4, p95Seconds, p99Seconds: p95Seconds, aboveSeconds });

  it('raises slo-breach where the p95 is above the workload\'s SLO, saying when it is a lower bound', () => {
    const definitions = [definition('chat', 'inference', {}, 800)];
    expect(servingFindings([joined({ e2eLatency: latency(0.7) })], definitions)).toEqual([]);
    const [breach] = servingFindings([joined({ e2eLatency: latency(10, 10) })], definitions);
    expect(breach).toMatchObject({ code: 'slo-breach', target: 'chat', evidence: { p95Ms: 10_000, p95IsLowerBound: true, sloP95Ms: 800 } });
    expect(breach!.message).toBe('vllm node-1 chat-0 llama: p95 end-to-end latency above 10000 ms against the 800 ms SLO of chat');
  });

  it('raises kv-cache-pressure on a nearly full cache or on preemptions, and queue-saturation on a queue that stays', () => {
    const codes = (overrides: Partial<ServingEntry>): string[] => servingFindings([joined(overrides)], []).map((finding) => finding.code);
    expect(codes({ kvCacheUsagePct: { mean: 85, max: 99 } })).toEqual(['kv-cache-pressure']);
    expect(codes({ kvCacheUsagePct: { mean: 40, max: 99 } })).toEqual([]);
    expect(codes({ preemptions: 12 })).toEqual(['kv-cache-pressure']);
    expect(codes({ waiting: { mean: 2.5, max: 9 } })).toEqual(['queue-saturation']);
    expect(codes({ waiting: { mean: 2.5, max: 9 }, scrapes: 2 })).toEqual([]);
  });
});

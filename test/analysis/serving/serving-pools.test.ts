/**
 * A serving pool's figures from its servers' intervals, through the real table, entries and
 * join: the peak of the servers added interval by interval, measured capacity within the SLO
 * on each basis, the fastest ramp, and cost per 1,000 measured and at capacity. Every figure
 * is worked out by hand from the scrapes written here (one a minute, buckets le 0.5, 1, 2, +Inf).
 */
import { describe, expect, it } from 'vitest';
import type { ServingSample, WorkloadEntry } from '../../../src/model/index.js';
import { servingEntries } from '../../../src/analysis/serving/serving-entries.js';
import { servingPools } from '../../../src/analysis/serving/serving-pools.js';
import { joinServing } from '../../../src/analysis/serving/serving-workloads.js';
import { ServingTable } from '../../../src/analysis/serving/serving-table.js';
import type { WorkloadDefinition } from '../../../src/analysis/workloads/index.js';

const MINUTE = 60_000;
const T0 = 1_795_161_600_000;
const BOUNDS = [0.5, 1, 2, Infinity];

/** Per interval: requests per second, and where the interval's requests fall. */
type Shape = 'fast' | 'near' | 'slow' | 'past-buckets';
interface Interval { rate: number; shape: Shape }

/** Cumulative bucket increases of n requests of a shape: fast -> p95 0.475 s, near -> 0.95 s, slow -> 1.9 s. */
function buckets(n: number, shape: Shape): number[] {
  switch (shape) {
    case 'fast': return [n, n, n, n];
    case 'near': return [n / 2, n, n, n];
    case 'slow': return [0, n / 2, n, n];
    case 'past-buckets': return [0, 0, 0, n];
  }
}

function serverSamples(instance: string, intervals: readonly Interval[], start = T0): ServingSample[] {
  const base = { server: 'vllm', instance, host: 'node-a', model: 'llama', namespace: null, pod: null, series: '' } as const;
  const samples: ServingSample[] = [];
  let requests = 0;
  let tokens = 0;
  let cumulative = [0, 0, 0, 0];
  const scrape = (time: number): void => {
    samples.push({ ...base, time, metric: 'requests', kind: 'counter', value: requests }, { ...base, time, metric: 'generation-tokens', kind: 'counter', value: tokens });
    BOUNDS.forEach((bound, index) => samples.push({ ...base, time, metric: 'e2e-latency', kind: 'bucket', bound, value: cumulative[index]! }));
  };
  scrape(start);
  intervals.forEach(({ rate, shape }, index) => {
    const n = rate * 60;
    requests += n;
    tokens += n * 100;
    cumulative = cumulative.map((value, bucket) => value + buckets(n, shape)[bucket]!);
    scrape(start + (index + 1) * MINUTE);
  });
  return samples;
}

const definition = (slo?: number): WorkloadDefinition => ({ name: 'chat', kind: 'inference', match: { hosts: ['node-a'] }, ...(slo === undefined ? {} : { slo: { p95Ms: slo } }) });
/** Two GPUs at $5/h each. */
const workload = { name: 'chat', gpus: ['g0', 'g1'], cost: { hourlyUsd: 10 } } as unknown as WorkloadEntry;

function pool(servers: readonly ServingSample[][], slo?: number): NonNullable<WorkloadEntry['serving']> {
  const table = new ServingTable();
  for (const samples of servers) for (const sample of samples) table.add(sample);
  const { entries, timeline } = servingEntries(table.instances.values(), table.grid.widthMs);
  const joined = joinServing(entries, [workload], [definition(slo)], new Map([['g0', 'node-a'], ['g1', 'node-a']]));
  return servingPools(joined, timeline, [workload], [definition(slo)]).get('chat')!;
}

describe('servingPools: measured capacity within the SLO', () => {
  const rising: Interval[] = [{ rate: 2, shape: 'near' }, { rate: 4, shape: 'near' }, { rate: 6, shape: 'near' }, { rate: 8, shape: 'slow' }];

  it('reads a knee: 6 requests/s within 1,000 ms, 8 over it, on 2 GPUs: 3 requests/s per GPU', () => {
    const found = pool([serverSamples('vllm a', rising)], 1000);
    // p95 of the 6 requests/s interval: rank 342 of 360 in (0.5, 1]: 0.5 + 0.5 x 162 / 180 = 0.95 s.
    expect(found.capacity).toEqual({
      requestsPerSecondPerGpu: 3, generationTokensPerSecondPerGpu: 300, p95Ms: expect.closeTo(950, 9),
      basis: 'knee', confidence: 'high', intervalsWithinSlo: 3, intervalsOverSlo: 1,
    });
    expect(found.capacityNote).toBe('3.00 requests/s per GPU at p95 950 ms; heavier intervals went over the 1000 ms SLO');
    expect(found).toMatchObject({ servers: 1, intervalSeconds: 60, peakRequestsPerSecond: 8, peakAt: new Date(T0 + 4 * MINUTE).toISOString(), sloP95Ms: 1000 });
  });

  it('says approached where the p95 came within 20% of the SLO and nothing heavier breached', () => {
    expect(pool([serverSamples('vllm a', rising.slice(0, 3))], 1000).capacity).toMatchObject({ requestsPerSecondPerGpu: 3, basis: 'approached', confidence: 'medium' });
  });

  it('gives only a lower bound where the window never came near the SLO', () => {
    const found = pool([serverSamples('vllm a', rising.slice(0, 3).map((interval) => ({ ...interval, shape: 'fast' as const })))], 1000);
    // p95 0.475 s: under 800 ms, 80% of the SLO.
    expect(found.capacity).toMatchObject({ requestsPerSecondPerGpu: 3, p95Ms: expect.closeTo(475, 9), basis: 'lower-bound', confidence: 'low' });
    expect(found.capacityNote).toMatch(/^at least 3\.00 requests\/s per GPU at p95 475 ms: the window never came near the 1000 ms SLO/u);
  });

  it('has no capacity where every interval breached, and says the lightest load was already too much', () => {
    const found = pool([serverSamples('vllm a', rising.map((interval) => ({ ...interval, shape: 'slow' as const })))], 1000);
    expect(found.capacity).toBeNull();
    expect(found.capacityNote).toBe('p95 over the 1000 ms SLO in every interval with requests: one GPU serves less than the lightest load seen, 1.00 requests/s');
  });

  it('counts a p95 in the +Inf bucket as over, even below the SLO: it cannot be shown within', () => {
    const found = pool([serverSamples('vllm a', [{ rate: 2, shape: 'near' }, { rate: 4, shape: 'past-buckets' }])], 5000);
    expect(found.capacity).toMatchObject({ requestsPerSecondPerGpu: 1, intervalsWithinSlo: 1, intervalsOverSlo: 1, basis: 'knee' });
  });

  it('reads no capacity without an SLO', () => {
    const found = pool([serverSamples('vllm a', rising)]);
    expect(found.capacity).toBeNull();
    expect(found.capacityNote).toMatch(/^no slo\.p95Ms declared/u);
  });
});

describe('servingPools: the pool\'s peak, ramp and cost', () => {
  it('adds two servers\' bursts in different minutes of the same hour interval by interval: a peak of 11, not 20', () => {
    const a = serverSamples('vllm a', [{ rate: 1, shape: 'fast' }, { rate: 10, shape: 'fast' }, { rate: 1, shape: 'fast' }, { rate: 1, shape: 'fast' }]);
    const b = serverSamples('vllm b', [{ rate: 1, shape: 'fast' }, { rate: 1, shape: 'fast' }, { rate: 1, shape: 'fast' }, { rate: 10, shape: 'fast' }]);
    const found = pool([a, b], 1000);
    expect(found).toMatchObject({ servers: 2, peakRequestsPerSecond: 11, peakAt: new Date(T0 + 2 * MINUTE).toISOString() });
    // The fastest growth: 2 -> 11 requests/s in one minute.
    expect(found.rampRequestsPerSecondPerMinute).toBe(9);
  });

  it('reads the ramp over up to five minutes: 2, 2, 8, 8 requests/s grow by 6 in a minute', () => {
    const found = pool([serverSamples('vllm a', [2, 2, 8, 8].map((rate) => ({ rate, shape: 'near' as const })))], 1000);
    expect(found.rampRequestsPerSecondPerMinute).toBe(6);
  });

  it('prices 1,000 requests as served and as they would be at capacity', () => {
    const found = pool([serverSamples('vllm a', [{ rate: 2, shape: 'near' }, { rate: 4, shape: 'near' }, { rate: 6, shape: 'near' }, { rate: 8, shape: 'slow' }])], 1000);
    // $10/h over 240 s = $0.6667 for 1,200 requests: $0.5556 per 1,000; 120,000 tokens: $0.005556.
    expect(found.requests).toBe(1200);
    expect(found.costPer1000RequestsUsd).toBeCloseTo((10 * 240 / 3600 / 1200) * 1000, 12);
    expect(found.costPer1000TokensUsd).toBeCloseTo((10 * 240 / 3600 / 120_000) * 1000, 12);
    // $5 per GPU-hour at 3 requests/s: 10,800 requests an hour, $0.46296 per 1,000.
    expect(found.costPer1000RequestsAtCapacityUsd).toBeCloseTo((5 / 10_800) * 1000, 12);
    expect(found.costPer1000TokensAtCapacityUsd).toBeCloseTo((5 / 1_080_000) * 1000, 12);
  });
});

/**
 * Serving KPIs from readings: increases over the window with a restart handled as rate()
 * does, totals since start on one scrape, quantiles over the window's buckets, and the
 * warnings for figures a page cannot support.
 */
import { describe, expect, it } from 'vitest';
import type { ServingSample } from '../../../src/model/index.js';
import { servingEntries } from '../../../src/analysis/serving/serving-entries.js';
import { MAX_SERVING_INSTANCES, ServingTable } from '../../../src/analysis/serving/serving-table.js';

const base = { server: 'vllm', instance: 'vllm node-1 llama', host: 'node-1', model: 'llama', namespace: null, pod: null, series: '' } as const;
const reading = (time: number | undefined, metric: ServingSample['metric'], kind: ServingSample['kind'], value: number, bound?: number): ServingSample =>
  ({ ...base, time, metric, kind, value, ...(bound === undefined ? {} : { bound }) });

function entryOf(samples: readonly ServingSample[]): ReturnType<typeof servingEntries> {
  const table = new ServingTable();
  for (const sample of samples) table.add(sample);
  return servingEntries(table.instances.values(), table.grid.widthMs);
}

describe('servingEntries: the window basis', () => {
  // Three scrapes 60 s apart; the server restarts between the second and the third.
  const samples = [
    reading(0, 'requests', 'counter', 100), reading(60_000, 'requests', 'counter', 160), reading(120_000, 'requests', 'counter', 30),
    reading(0, 'generation-tokens', 'counter', 1_000), reading(60_000, 'generation-tokens', 'counter', 4_000), reading(120_000, 'generation-tokens', 'counter', 1_500),
    ...[0, 60_000, 120_000].map((time, index) => reading(time, 'waiting', 'gauge', [0, 3, 6][index]!)),
    // e2e buckets: 0 -> 60 s adds 50 within 1 s and 10 above; the restart then counts 20 within 1 s.
    reading(0, 'e2e-latency', 'bucket', 40, 1), reading(0, 'e2e-latency', 'bucket', 40, Infinity),
    reading(60_000, 'e2e-latency', 'bucket', 90, 1), reading(60_000, 'e2e-latency', 'bucket', 100, Infinity),
    reading(120_000, 'e2e-latency', 'bucket', 20, 1), reading(120_000, 'e2e-latency', 'bucket', 20, Infinity),
  ];
  const [entry] = entryOf(samples).entries;

  it('counts the increase, a restart counted from 0 again (one restart): 60 + 30 requests in 120 s', () => {
    expect(entry).toMatchObject({ basis: 'window', scrapes: 3, windowSeconds: 120, requests: 90, requestsPerSecond: 0.75, counterResets: 1 });
    // 3,000 + 1,500 tokens over 120 s = 37.5 tokens/s.
    expect(entry!.generationTokens).toBe(4_500);
    expect(entry!.generationTokensPerSecond).toBe(37.5);
  });

  it('takes quantiles over the window\'s buckets: 70 within 1 s and 10 above', () => {
    // Increases: le=1: 50 + 20 = 70; +Inf: 60 + 20 = 80. p50: rank 40 in (0, 1]: 40/70 s; p95: rank 76 > 70: above 1 s.
    expect(entry!.e2eLatency!.count).toBe(80);
    expect(entry!.e2eLatency!.p50Seconds).toBeCloseTo(40 / 70, 12);
    expect(entry!.e2eLatency).toMatchObject({ p95Seconds: 1, aboveSeconds: 1 });
  });

  it('averages the gauges over the scrapes: waiting (0 + 3 + 6) / 3 = 3, at most 6', () => {
    expect(entry!.waiting).toEqual({ mean: 3, max: 6 });
  });
});

describe('servingEntries: one scrape', () => {
  it('reads the counters as totals since the server started, with no rate', () => {
    const [entry] = entryOf([reading(undefined, 'requests', 'counter', 42), reading(undefined, 'kv-cache-usage', 'gauge', 0.25)]).entries;
    expect(entry).toMatchObject({ basis: 'since-start', scrapes: 1, windowSeconds: null, requests: 42, requestsPerSecond: null, kvCacheUsagePct: { mean: 25, max: 25 } });
  });

  it('says why quantiles are missing: a cut histogram, or every TTFT in the first millisecond bucket', () => {
    const cut = entryOf([reading(undefined, 'ttft', 'bucket', 3, 0.5), reading(undefined, 'ttft', 'bucket', 5, 1)]);
    expect(cut.entries[0]!.ttft!.p95Seconds).toBeNull();
    expect(cut.warnings).toEqual(['vllm node-1 llama: ttft histogram has no +Inf bucket (a cut excerpt?): no quantiles']);
    const zero = entryOf([reading(undefined, 'ttft', 'bucket', 208, 0.001), reading(undefined, 'ttft', 'bucket', 208, 0.5), reading(undefined, 'ttft', 'bucket', 208, Infinity)]);
    expect(zero.entries[0]!.ttft).toMatchObject({ count: 208, p50Seconds: null, p95Seconds: null });
    expect(zero.warnings[0]).toContain('every ttft observation (208) lies in the first bucket (≤ 0.001 s)');
  });
});

describe('Triton', () => {
  const triton = (metric: ServingSample['metric'], kind: ServingSample['kind'], value: number, bound?: number): ServingSample =>
    ({ ...reading(undefined, metric, kind, value, bound), server: 'triton', instance: 'triton node-1 densenet' });

  it('means its cumulative microseconds per request, and refuses summary quantiles its own sum rules out', () => {
    const result = entryOf([
      triton('requests', 'counter', 3), triton('request-duration-us', 'counter', 1_327_965), triton('queue-duration-us', 'counter', 145),
      triton('request-summary-us', 'quantile', 3, 0.5), triton('request-summary-us', 'quantile', 3, 0.99),
    ]);
    // 1,327,965 µs / 3 = 442,655 µs = 0.442655 s; 145 / 3 µs of queue.
    expect(result.entries[0]!.e2eLatency).toMatchObject({ count: 3, p50Seconds: null, p99Seconds: null });
    expect(result.entries[0]!.e2eLatency!.meanSeconds).toBeCloseTo(0.442655, 9);
    expect(result.entries[0]!.queueTime!.meanSeconds).toBeCloseTo(145 / 3 / 1e6, 12);
    expect(result.warnings).toEqual(['triton node-1 densenet: the request summary\'s quantiles (largest 3 µs) cannot hold beside its mean of 442655 µs: left out']);
  });

  it('keeps summary quantiles that can be true', () => {
    const result = entryOf([
      triton('requests', 'counter', 581), triton('request-duration-us', 'counter', 581 * 22_500),
      triton('request-summary-us', 'quantile', 22_228, 0.5), triton('request-summary-us', 'quantile', 23_339, 0.99),
    ]);
    expect(result.entries[0]!.e2eLatency!.p50Seconds).toBeCloseTo(0.022228, 12);
    expect(result.entries[0]!.e2eLatency!.p99Seconds).toBeCloseTo(0.023339, 12);
    expect(result.warnings).toEqual([]);
  });
});

describe('ServingTable bounds', () => {
  it('keeps at most MAX_SERVING_INSTANCES instances and counts what it drops', () => {
    const table = new ServingTable();
    for (let index = 0; index <= MAX_SERVING_INSTANCES; index += 1) table.add({ ...reading(undefined, 'requests', 'counter', 1), instance: `i${index}` });
    expect(table.instances.size).toBe(MAX_SERVING_INSTANCES);
    expect(table.dropped).toBe(1);
  });

  it('leaves out a reading older than a scrape already read, and counts it', () => {
    const table = new ServingTable();
    table.add(reading(60_000, 'requests', 'counter', 10));
    table.add(reading(0, 'requests', 'counter', 5));
    expect(table.outOfOrder).toBe(1);
  });
});

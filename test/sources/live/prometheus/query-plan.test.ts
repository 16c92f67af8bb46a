/**
 * The query planner sizes shards and chunks from the fleet's estimate so that each query fits
 * the budgets. Figures worked by hand; the budgets are the defaults (10 M subquery points,
 * 200 M stored samples per query) unless a case says otherwise.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_BUDGETS, type FleetEstimate, planQueries, type PlannedQueries } from '../../../../src/sources/live/prometheus/query-plan.js';

const DAY = 86_400;
const HEX = '0123456789abcdef';

/** `perDigit` GPUs under each first UUID hex digit, each with one series of every metric. */
function evenFleet(perDigit: number, metrics: readonly string[], samplesPerSecond: number): FleetEstimate {
  return {
    seriesByDigit: new Map([...HEX].map((digit) => [digit, new Map(metrics.map((name) => [name, perDigit]))])),
    samplesPerSecond,
  };
}

const queries = (windowDays: number, overrides: Partial<PlannedQueries> = {}): PlannedQueries => ({
  windowSeconds: windowDays * DAY,
  stepSeconds: 300,
  chunkSeconds: 7 * DAY,
  signals: ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED'],
  compute: ['DCGM_FI_DEV_GPU_UTIL'],
  ...overrides,
});

describe('planQueries', () => {
  it('keeps a 1,024-GPU month in one shard and cuts chunks to the subquery budget', () => {
    // Whole window: 1,024 series x 2,592,000 s / 60 s = 44,236,800 samples, under 200 M: one shard.
    // Chunk: the device query's 7 subqueries over 2,048 series = 14,336 points per 300 s step;
    // 10 M x 300 / 14,336 = 209,263 s, 697 whole steps = 209,100 s (under a week).
    const plan = planQueries(evenFleet(64, ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED'], 1 / 60), queries(30), DEFAULT_QUERY_BUDGETS);
    expect(plan.shards).toHaveLength(1);
    expect(plan.shards[0]!.matcher).toBeUndefined();
    expect(plan.shards[0]!.series.get('DCGM_FI_DEV_GPU_UTIL')).toBe(1024);
    expect(plan.chunkSeconds).toBe(209_100);
  });

  it('splits 10,240 GPUs x 90 days at 15 s into 32 shards of two UUID digits', () => {
    // Whole window per metric: 10,240 x 7,776,000 s / 15 s = 5,308,416,000 samples. 16 shards
    // hold 640 GPUs: 331,776,000, over 200 M; 32 hold 320: 165,888,000, within.
    // Chunk: 7 x 640 series / 300 s = 14.9 points/s: a week is 9,031,680 points, within 10 M.
    const plan = planQueries(evenFleet(640, ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED'], 1 / 15), queries(90), DEFAULT_QUERY_BUDGETS);
    expect(plan.shards).toHaveLength(32);
    expect(plan.shards.slice(0, 3).map((shard) => shard.matcher)).toEqual([
      'UUID=~"GPU-[0][01234567].*"',
      'UUID=~"GPU-[0][89abcdefABCDEF].*"',
      'UUID=~"GPU-[1][01234567].*"',
    ]);
    expect(plan.shards[31]!.matcher).toBe('UUID=~"GPU-[fF][89abcdefABCDEF].*"');
    expect(plan.shards.every((shard) => shard.series.get('DCGM_FI_DEV_GPU_UTIL') === 320)).toBe(true);
    expect(plan.chunkSeconds).toBe(7 * DAY);
  });

  it('names each of 16 shards by one first digit, in either case, and adds a shard for UUIDs of another form only where there are some', () => {
    const fleet = evenFleet(100, ['DCGM_FI_DEV_GPU_UTIL'], 1);
    // 100 series x 86,400 s x 1/s = 8,640,000 per digit; a budget of 9 M takes 16 shards (two digits per shard: 17.3 M).
    const budgets = { points: 1e12, samples: 9_000_000 };
    const plan = planQueries(fleet, queries(1, { signals: ['DCGM_FI_DEV_GPU_UTIL'] }), budgets);
    expect(plan.shards.map((shard) => shard.matcher)).toEqual([...HEX].map((digit) => `UUID=~"GPU-[${digit}${/[a-f]/.test(digit) ? digit.toUpperCase() : ''}].*"`));

    const withOthers: FleetEstimate = { ...fleet, seriesByDigit: new Map([...fleet.seriesByDigit, ['', new Map([['DCGM_FI_DEV_GPU_UTIL', 3]])]]) };
    const shards = planQueries(withOthers, queries(1, { signals: ['DCGM_FI_DEV_GPU_UTIL'] }), budgets).shards;
    expect(shards).toHaveLength(17);
    expect(shards[16]).toEqual({ matcher: 'UUID!~"GPU-[0123456789abcdefABCDEF].*"', series: new Map([['DCGM_FI_DEV_GPU_UTIL', 3]]) });
  });

  it('shards before it cuts chunks below an hour, and keeps whole steps', () => {
    // 16 x 1,000 series of one metric, 300 s step: the device query is 7 x 16,000 / 300 = 373.3
    // points/s; a 1 M budget allows 2,679 s, under an hour. Two shards: 186.7 points/s, 5,357 s,
    // 17 whole steps = 5,100 s.
    const plan = planQueries(evenFleet(1000, ['DCGM_FI_DEV_GPU_UTIL'], 1 / 60), queries(7, { signals: ['DCGM_FI_DEV_GPU_UTIL'] }), { points: 1_000_000, samples: 1e12 });
    expect(plan.shards.map((shard) => shard.matcher)).toEqual(['UUID=~"GPU-[01234567].*"', 'UUID=~"GPU-[89abcdefABCDEF].*"']);
    expect(plan.chunkSeconds).toBe(5_100);
  });

  it('falls back to one shard and chunks as asked when the estimate found nothing', () => {
    const plan = planQueries({ seriesByDigit: new Map(), samplesPerSecond: 0 }, queries(30), DEFAULT_QUERY_BUDGETS);
    expect(plan).toEqual({ shards: [{ series: new Map() }], chunkSeconds: 7 * DAY });
  });

  it('never makes a chunk shorter than one step', () => {
    const plan = planQueries(evenFleet(1_000_000, ['DCGM_FI_DEV_GPU_UTIL'], 1), queries(1, { signals: ['DCGM_FI_DEV_GPU_UTIL'] }), { points: 10, samples: 10 });
    expect(plan.shards).toHaveLength(256);
    expect(plan.chunkSeconds).toBe(300);
  });
});

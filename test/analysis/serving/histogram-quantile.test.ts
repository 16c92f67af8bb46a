/**
 * histogram_quantile as Prometheus computes it, checked against values worked out by hand
 * from the buckets.
 */
import { describe, expect, it } from 'vitest';
import { histogramQuantile } from '../../../src/analysis/serving/histogram-quantile.js';

// 100 requests: 10 within 0.1 s, 60 more within 0.5 s, 25 more within 1 s, 5 above 1 s.
const BUCKETS = [
  { bound: 0.1, count: 10 },
  { bound: 0.5, count: 70 },
  { bound: 1, count: 95 },
  { bound: Infinity, count: 100 },
];

describe('histogramQuantile', () => {
  it('interpolates inside the bucket that holds the rank', () => {
    // p50: rank 50 lies in (0.1, 0.5], 40 of its 60: 0.1 + 0.4 x 40/60 = 0.36667.
    expect(histogramQuantile(0.5, BUCKETS)!.value).toBeCloseTo(0.1 + 0.4 * (40 / 60), 12);
    // p90: rank 90 in (0.5, 1], 20 of 25: 0.5 + 0.5 x 20/25 = 0.9.
    expect(histogramQuantile(0.9, BUCKETS)).toEqual({ value: 0.9, above: false });
    // p05: rank 5 in the first bucket, from 0: 0.1 x 5/10 = 0.05.
    expect(histogramQuantile(0.05, BUCKETS)).toEqual({ value: 0.05, above: false });
  });

  it('answers the highest finite bound, marked above, where the rank falls in +Inf', () => {
    // p99: rank 99 > 95, the count at 1 s: the quantile is above 1 s.
    expect(histogramQuantile(0.99, BUCKETS)).toEqual({ value: 1, above: true });
  });

  it('reads buckets in any order and keeps their counts cumulative', () => {
    const shuffled = [BUCKETS[3]!, BUCKETS[1]!, BUCKETS[0]!, BUCKETS[2]!];
    expect(histogramQuantile(0.9, shuffled)).toEqual({ value: 0.9, above: false });
    // A count that falls (readings a moment apart) is raised to the one below it, as Prometheus does.
    expect(histogramQuantile(0.5, [{ bound: 1, count: 10 }, { bound: 2, count: 8 }, { bound: Infinity, count: 10 }])).toEqual({ value: 0.5, above: false });
  });

  it('has no quantile for a cut histogram (no +Inf) or one without observations', () => {
    expect(histogramQuantile(0.5, BUCKETS.slice(0, 3))).toBeNull();
    expect(histogramQuantile(0.5, [{ bound: 1, count: 0 }, { bound: Infinity, count: 0 }])).toBeNull();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SampleValues } from '../../src/analysis/sample-values.js';
import { LARGEST_INTERVALS_KEPT, SeriesRecorder } from '../../src/analysis/series.js';
import { LargestK } from '../../src/analysis/stats/largest-k.js';

type Reading = [timeMs: number, values: SampleValues];

/**
 * What a series remembered before its samples were stored as rows: a heap of
 * {startMs, values} objects, offered each committed sample (merged readings included) with its
 * interval. The recorder must keep the same intervals, with the same samples, in the same heap
 * order (close takes weight back in that order, and float sums depend on it).
 */
function objectHeapOf(readings: readonly Reading[]): { intervalMs: number; startMs: number; values: SampleValues }[] {
  const heap = new LargestK<{ startMs: number; values: SampleValues }>(LARGEST_INTERVALS_KEPT);
  let pending: Reading | undefined;
  for (const [timeMs, values] of readings) {
    if (pending !== undefined && timeMs === pending[0]) {
      pending = [timeMs, { ...values, ...pending[1] }];
      continue;
    }
    if (pending !== undefined) {
      const intervalMs = timeMs - pending[0];
      if (heap.admits(intervalMs)) heap.offer(intervalMs, { startMs: pending[0], values: pending[1] });
    }
    pending = [timeMs, { ...values }];
  }
  return heap.entries().map(({ key, item }) => ({ intervalMs: key, startMs: item.startMs, values: item.values }));
}

function recorded(readings: readonly Reading[]): SeriesRecorder {
  const series = new SeriesRecorder(5);
  for (const [timeMs, values] of readings) series.record(timeMs, { ...values });
  return series;
}

const T0 = Date.UTC(2026, 10, 2);

describe('SeriesRecorder kept intervals', () => {
  it('keeps every interval of a short series, each with the sample it weighted', () => {
    // 4 scrapes 30 s apart, then one 90 s later: 3 intervals of 30 000 ms and one of 90 000 ms
    const readings: Reading[] = [0, 30_000, 60_000, 90_000, 180_000].map((offset, i) => [T0 + offset, { utilizationPct: 10 * i, memoryTotalMiB: 81_920 }]);
    const kept = recorded(readings).keptIntervals();
    expect(kept).toEqual(objectHeapOf(readings));
    expect(kept.map(({ intervalMs }) => intervalMs).sort((a, b) => a - b)).toEqual([30_000, 30_000, 30_000, 90_000]);
    expect(kept.find(({ intervalMs }) => intervalMs === 90_000)).toEqual({ intervalMs: 90_000, startMs: T0 + 90_000, values: { utilizationPct: 30, memoryTotalMiB: 81_920 } });
  });

  it('keeps a reading merged into its sample (one metric per line) with that sample', () => {
    const readings: Reading[] = [[T0, { utilizationPct: 40 }], [T0, { memoryUsedMiB: 512 }], [T0 + 1000, { utilizationPct: 41 }], [T0 + 3000, { utilizationPct: 42 }]];
    expect(recorded(readings).keptIntervals()).toEqual([
      { intervalMs: 1000, startMs: T0, values: { utilizationPct: 40, memoryUsedMiB: 512 } },
      { intervalMs: 2000, startMs: T0 + 1000, values: { utilizationPct: 41 } },
    ]);
  });

  it('keeps the same top K in the same order as the heap of objects, past K and with ties', () => {
    // Intervals from a few lengths, more of them than K: the longest win, ties stay out in
    // arrival order, and a row freed by a pushed-out interval is written again.
    const interval = fc.constantFrom(1000, 1000, 1000, 1001, 2000, 5000, 60_000);
    fc.assert(fc.property(fc.array(fc.tuple(interval, fc.nat(100), fc.boolean()), { minLength: LARGEST_INTERVALS_KEPT - 5, maxLength: LARGEST_INTERVALS_KEPT + 600 }), (steps) => {
      let timeMs = T0;
      const readings: Reading[] = steps.map(([stepMs, percent, withMemory]) => {
        timeMs += stepMs;
        return [timeMs, withMemory ? { smActivePct: percent, memoryUsedMiB: percent * 64 } : { smActivePct: percent }];
      });
      const series = recorded(readings);
      expect(series.keptIntervals()).toEqual(objectHeapOf(readings));
      expect(series.longestIntervals.size).toBe(Math.min(LARGEST_INTERVALS_KEPT, readings.length - 1));
    }), { numRuns: 12 });
  });
});

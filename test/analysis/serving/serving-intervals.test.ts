/**
 * The grid of serving intervals: one width for every instance, widened along the ladder of
 * scrape multiples (1, 5, 15, 30, 60 minutes, then doubling) when a window would hold more than
 * MAX_INTERVALS, merging what it joins; the scrape time covered, counted once per scrape
 * whatever order a file lists its series in; and the report's points from them.
 */
import { describe, expect, it } from 'vitest';
import type { ServingSample } from '../../../src/model/index.js';
import { servingEntries } from '../../../src/analysis/serving/serving-entries.js';
import { MAX_INTERVALS } from '../../../src/analysis/serving/serving-intervals.js';
import { MAX_TIMELINE_INSTANCES, ServingTable } from '../../../src/analysis/serving/serving-table.js';

const MINUTE = 60_000;
const base = { server: 'vllm', host: 'node-a', model: 'llama', namespace: null, pod: null, series: '' } as const;
const requests = (instance: string, time: number, value: number): ServingSample => ({ ...base, instance, time, metric: 'requests', kind: 'counter', value });
const waiting = (instance: string, time: number, value: number): ServingSample => ({ ...base, instance, time, metric: 'waiting', kind: 'gauge', value });

describe('the serving interval grid', () => {
  it('puts each counter increase and the scrape time it covers in the interval its later scrape falls in', () => {
    const table = new ServingTable();
    // 30 s scrapes: 0, 30, 60, 90 s; 15 + 15 requests in minute 0, 30 + 60 in minute 1.
    [[0, 0], [30_000, 15], [60_000, 30], [90_000, 60], [120_000, 120]].forEach(([time, value]) => table.add(requests('a', time!, value!)));
    const intervals = table.instances.get('a')!.intervals!;
    expect(table.grid.widthMs).toBe(MINUTE);
    expect([...intervals].map(([key, interval]) => [key, interval.spanMs, interval.requests])).toEqual([[0, 30_000, 15], [1, 60_000, 45], [2, 30_000, 60]]);
  });

  it('counts a scrape\'s covered time once when the file lists each series with all its times before the next', () => {
    const table = new ServingTable();
    for (const time of [0, MINUTE, 2 * MINUTE]) table.add(requests('a', time, time / 1000));
    for (const time of [0, MINUTE, 2 * MINUTE]) table.add(waiting('a', time, 2));
    const [entry] = servingEntries(table.instances.values(), table.grid.widthMs).entries;
    // 60 requests in each 60 s: 1 request/s, waiting 2 at each scrape.
    expect(entry!.series).toEqual([1, 2].map((key) => ({
      start: new Date(key * MINUTE).toISOString(), requestsPerSecond: 1, generationTokensPerSecond: 0, e2eP95Seconds: null, e2eP95Above: false, waitingMean: 2,
    })));
    expect(entry!.intervalSeconds).toBe(60);
  });

  it('widens to 5 minutes for every instance, merging intervals, once a window outgrows MAX_INTERVALS minutes', () => {
    const table = new ServingTable();
    // Two servers, one scrape a minute each: MAX_INTERVALS + 1 minutes after the first scrape (which covers none).
    for (let minute = 0; minute <= MAX_INTERVALS + 1; minute += 1) {
      table.add(requests('a', minute * MINUTE, minute));
      table.add(requests('b', minute * MINUTE, 2 * minute));
    }
    expect(table.grid.widthMs).toBe(5 * MINUTE);
    const a = table.instances.get('a')!.intervals!;
    const b = table.instances.get('b')!.intervals!;
    expect([...a.keys()]).toEqual([...b.keys()]);
    // Minutes 1 to MAX_INTERVALS + 1, five to an interval.
    expect(a.size).toBe(Math.floor((MAX_INTERVALS + 1) / 5) + 1);
    // Interval 1 holds minutes 5-9: 5 requests in 300 s of scrapes.
    expect(a.get(1)).toMatchObject({ spanMs: 5 * MINUTE, requests: 5 });
    expect(b.get(1)).toMatchObject({ spanMs: 5 * MINUTE, requests: 10 });
  });

  it('keeps intervals for the first MAX_TIMELINE_INSTANCES instances only, so memory stays bounded', () => {
    const table = new ServingTable();
    for (let index = 0; index <= MAX_TIMELINE_INSTANCES; index += 1) table.add(requests(`server-${index}`, 0, 0));
    expect(table.instances.get('server-0')!.intervals).not.toBeNull();
    expect(table.instances.get(`server-${MAX_TIMELINE_INSTANCES}`)!.intervals).toBeNull();
  });

  it('bounds the intervals of a window spanning decades: the grid widens, it does not grow', () => {
    const table = new ServingTable();
    const year = 365 * 24 * 60 * MINUTE;
    for (let index = 0; index < 2000; index += 1) table.add(requests('a', index * 20 * year / 2000, index));
    expect(table.instances.get('a')!.intervals!.size).toBeLessThanOrEqual(MAX_INTERVALS);
  });
});

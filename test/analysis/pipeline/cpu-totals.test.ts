/**
 * CPU figures from counter increases a query already summed (live Prometheus): the same
 * definitions as from raw counters (src/analysis/pipeline/cpu-usage.ts).
 */
import { describe, expect, it } from 'vitest';
import { containerCpuFromTotals, hostCpuFromTotals } from '../../../src/analysis/pipeline/index.js';

describe('host CPU from totals', () => {
  it('is busy for every mode but idle and iowait', () => {
    // 8 cores x 3,600 s = 28,800 CPU-seconds: idle 6,000 + iowait 1,200 = 7,200 not busy;
    // busy share = 1 - 7,200 / 28,800 = 0.75.
    const [figures] = hostCpuFromTotals({
      host: 'node-1', cores: 8, windowSeconds: 3_600, counterResets: 0,
      secondsByMode: { user: 18_000, system: 3_000, iowait: 1_200, idle: 6_000, softirq: 600 },
    });
    expect(figures).toEqual({ host: 'node-1', cores: 8, busyFraction: 0.75, windowSeconds: 3_600, counterResets: 0 });
  });

  it('gives nothing for a host whose counters never advanced', () => {
    expect(hostCpuFromTotals({ host: 'node-2', cores: 4, windowSeconds: 0, counterResets: 0, secondsByMode: { idle: 0, user: 0 } })).toEqual([]);
  });
});

describe('container CPU from totals', () => {
  it('gives cores used over the time the counter was present, and the throttled share of CFS periods', () => {
    // 5,400 CPU-seconds over 1,800 s present = 3 cores; 900 of 18,000 periods throttled = 0.05.
    expect(containerCpuFromTotals({
      host: 'node-1', namespace: 'ml', pod: 'trainer-0', container: 'main',
      usageSeconds: 5_400, presentSeconds: 1_800, periods: 18_000, throttledPeriods: 900,
    })).toEqual({ host: 'node-1', namespace: 'ml', pod: 'trainer-0', container: 'main', coresUsed: 3, throttledFraction: 0.05 });
  });

  it('leaves out what its counters cannot give: no limit, no periods; one reading, no rate', () => {
    expect(containerCpuFromTotals({ host: 'node-1', namespace: 'ml', pod: 'sidecar', container: 'log', usageSeconds: 10, presentSeconds: 0 }))
      .toEqual({ host: 'node-1', namespace: 'ml', pod: 'sidecar', container: 'log' });
  });
});

/**
 * CPU figures from counter increases a query already summed (live Prometheus): the same
 * definitions, and the same code, as from raw counters (src/analysis/cpu-pipeline/cpu-usage.ts).
 */
import { describe, expect, it } from 'vitest';
import { containerCpuFromTotals, CpuUsageTable, hostCpuFromTotals } from '../../../src/analysis/cpu-pipeline/index.js';

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

describe('raw counters and summed totals', () => {
  const T0 = Date.UTC(2024, 4, 1);

  it('give a host the same busy share: CpuUsageTable sums its counters and applies the same rule', () => {
    // 2 CPUs over 60 s: user +45 and +30, iowait +5 and +0, idle +10 and +30.
    // all modes 120 s, not busy 5 + 10 + 0 + 30 = 45 s: busy share 1 - 45 / 120 = 0.625.
    const table = new CpuUsageTable();
    const increases = [['0', 'user', 45], ['0', 'iowait', 5], ['0', 'idle', 10], ['1', 'user', 30], ['1', 'iowait', 0], ['1', 'idle', 30]] as const;
    for (const [cpu, mode, increase] of increases) {
      table.hostCpu({ host: 'node-1', time: T0, cpu, mode, secondsTotal: 1_000 });
      table.hostCpu({ host: 'node-1', time: T0 + 60_000, cpu, mode, secondsTotal: 1_000 + increase });
    }
    const fromTotals = hostCpuFromTotals({
      host: 'node-1', cores: 2, windowSeconds: 60, counterResets: 0, secondsByMode: { user: 75, iowait: 5, idle: 40 },
    });
    expect(table.hosts()).toEqual(fromTotals);
    expect(fromTotals[0]!.busyFraction).toBe(0.625);
  });

  it('give a container the same cores and throttled share, and neither a rate from one reading', () => {
    // main: 90 CPU-seconds over 30 s = 3 cores; 30 of 300 periods throttled = 0.1.
    // log: one usage reading, no CFS counters: nothing to report.
    const table = new CpuUsageTable();
    const read = (container: string, counter: 'usage-seconds' | 'cfs-periods' | 'cfs-throttled-periods', time: number, value: number) =>
      table.containerCpu({ host: 'node-1', namespace: 'ml', pod: 'trainer-0', container, counter, time, value });
    read('main', 'usage-seconds', T0, 10);
    read('main', 'usage-seconds', T0 + 30_000, 100);
    read('main', 'cfs-periods', T0, 0);
    read('main', 'cfs-periods', T0 + 30_000, 300);
    read('main', 'cfs-throttled-periods', T0, 0);
    read('main', 'cfs-throttled-periods', T0 + 30_000, 30);
    read('log', 'usage-seconds', T0, 5);
    const id = { host: 'node-1', namespace: 'ml', pod: 'trainer-0' };
    expect(table.containers()).toEqual([
      containerCpuFromTotals({ ...id, container: 'main', usageSeconds: 90, presentSeconds: 30, periods: 300, throttledPeriods: 30 }),
      containerCpuFromTotals({ ...id, container: 'log' }),
    ]);
    expect(table.containers()).toEqual([{ ...id, container: 'main', coresUsed: 3, throttledFraction: 0.1 }, { ...id, container: 'log' }]);
  });
});

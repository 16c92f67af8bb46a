/**
 * Time-series hygiene (README "Time-series hygiene"): what the analyzer does with timestamps and
 * identities that cannot all be true. Each rule has one defined outcome, a warning where data
 * is set aside, and no time counted twice. Clocks that go backwards and repeated timestamps
 * are specified in weighting.test.ts ("samples out of order").
 */
import { describe, expect, it } from 'vitest';
import { FUTURE_SAMPLE_TOLERANCE_MS } from '../../src/analysis/options.js';
import { analyze, at, gpu0, hours, HOST, MASKED_UUID, only, samplesAt, UUID_0 } from './events.js';

describe('samples from the future', () => {
  // The audit runs at 600 s; a sample may be stamped up to 1 h (3600 s) later than that.
  const nowMs = at(600);

  it('are dropped, counted and warned about once per series; they add no time and do not stretch the window', () => {
    // 0, 60, 120, 180 are real; 600 + 3600 + 1 s and a year later are from a clock set ahead.
    // Kept intervals 60 60 60, median 60 -> 4 samples x 60 s = 240 s.
    const profile = analyze(
      [
        { source: 'ahead.csv', samples: samplesAt(gpu0, [0, 60, 120, 180, 600 + 3600 + 1, 365 * 86_400], [{ utilizationPct: 50 }]) },
        { source: 'later.csv', samples: samplesAt(gpu0, [86_400 * 30], [{ utilizationPct: 50 }]) },
      ],
      5,
      { nowMs },
    );
    const gpu = only(profile.gpus);
    expect(gpu.samples).toBe(4);
    expect(gpu.gpuHours).toBeCloseTo(hours(240), 12);
    expect(profile.window).toEqual({ startMs: at(0), endMs: at(240), seconds: 240 });
    expect(profile.warnings).toEqual([
      { source: 'ahead.csv', message: `GPU ${gpu.id}: 2 samples stamped more than 1 h after the audit time were skipped (a clock set ahead?)` },
      { source: 'later.csv', message: `GPU ${gpu.id}: 1 sample stamped more than 1 h after the audit time was skipped (a clock set ahead?)` },
    ]);
  });

  it('are kept up to the tolerance: clocks of collector and auditor drift apart', () => {
    expect(FUTURE_SAMPLE_TOLERANCE_MS).toBe(3_600_000);
    // the second sample is stamped exactly now + 1 h: kept; 2 samples x 60 s = 120 s
    const profile = analyze([{ source: 'skew.csv', samples: samplesAt(gpu0, [0, 60], [{ utilizationPct: 50 }]) }], 5, { nowMs: at(60 - 3600) });
    expect(only(profile.gpus).gpuHours).toBeCloseTo(hours(120), 12);
    expect(profile.warnings).toEqual([]);
  });

  it('are not judged when the analysis is given no now', () => {
    const profile = analyze([{ source: 'any.csv', samples: samplesAt(gpu0, [0, 60, 365 * 86_400], [{ utilizationPct: 50 }]) }]);
    expect(only(profile.gpus).samples).toBe(3);
  });
});

describe('a GPU that disappears for days and comes back', () => {
  // Samples every 60 s from 0 to 600 s at 80 % (busy), then nothing for three days, then every
  // 60 s from D = 259200 s to D + 600 s at 0 % (idle). Intervals: 10 x 60, one of D - 600, 10 x 60;
  // median 60, cap 2 x 60 = 120 s.
  const D = 3 * 86_400;
  const busy = samplesAt(gpu0, Array.from({ length: 11 }, (_, i) => i * 60), [{ utilizationPct: 80 }]);
  const idle = samplesAt(gpu0, Array.from({ length: 11 }, (_, i) => D + i * 60), [{ utilizationPct: 0 }]);
  const profile = analyze([{ source: 'reboot.csv', samples: [...busy, ...idle] }]);
  const gpu = only(profile.gpus);

  it('stays one GPU', () => {
    expect(gpu.samples).toBe(22);
    expect(gpu.firstSeen).toBe(new Date(at(0)).toISOString());
    expect(gpu.lastSeen).toBe(new Date(at(D + 600)).toISOString());
  });

  it('counts the gap as the cap only: neither its days of absence as busy nor as idle', () => {
    // busy: 10 x 60 + the sample before the gap capped at 120 = 720 s
    // idle: 10 x 60 + the last sample (median 60) = 660 s; observed 720 + 660 = 1380 s, not 3 days
    expect(gpu.gpuHours).toBeCloseTo(hours(1380), 12);
    expect(gpu.idleHours).toBeCloseTo(hours(660), 12);
    expect(gpu.idleFraction).toBeCloseTo(660 / 1380, 12);
    // time-weighted mean: 80 x 720 / 1380 = 41.74 %
    expect(gpu.utilization!.mean).toBeCloseTo((80 * 720) / 1380, 12);
  });

  it('needs no warning: the gaps fit the remembered longest intervals', () => {
    expect(profile.warnings).toEqual([]);
  });
});

describe('a UUID seen on two hosts', () => {
  // Two boards report the same distinctive UUID: a host renamed mid-window, or cloned labels.
  const profile = analyze([
    { source: 'a.csv', samples: samplesAt({ host: 'node-a', uuid: UUID_0 }, [0, 60], [{ utilizationPct: 10 }]) },
    { source: 'b.csv', samples: samplesAt({ host: 'node-b', uuid: UUID_0 }, [0, 60, 120], [{ utilizationPct: 90 }]) },
  ]);

  it('is two GPUs with ids told apart by @host, each with its own time: none counted twice', () => {
    expect(profile.gpus.map((gpu) => [gpu.id, gpu.host])).toEqual([[`${UUID_0}@node-a`, 'node-a'], [`${UUID_0}@node-b`, 'node-b']]);
    // node-a: 2 x 60 s; node-b: 3 x 60 s
    expect(profile.gpus.map((gpu) => gpu.gpuHours)).toEqual([hours(120), hours(180)]);
  });

  it('is warned about in each input that named it, naming the hosts and the ids given', () => {
    const message = `GPU UUID ${UUID_0} appeared on 2 hosts (node-a, node-b): reported as 2 GPUs (${UUID_0}@node-a, ${UUID_0}@node-b), never merged; a UUID names one board, so check host names and labels`;
    expect(profile.warnings).toEqual([{ source: 'a.csv', message }, { source: 'b.csv', message }]);
  });

  it('names at most 8 hosts and GPUs, however many repeat it (a fleet of logs copied under new host names)', () => {
    const hosts = Array.from({ length: 12 }, (_, index) => `node-${String(index).padStart(2, '0')}`);
    const many = analyze(hosts.map((host) => ({ source: `${host}.csv`, samples: samplesAt({ host, uuid: UUID_0 }, [0], [{ utilizationPct: 1 }]) })));
    const shown = hosts.slice(0, 8);
    expect(many.warnings).toHaveLength(12);
    expect(many.warnings[0]!.message).toBe(
      `GPU UUID ${UUID_0} appeared on 12 hosts (${shown.join(', ')} and 4 more): reported as 12 GPUs ` +
        `(${shown.map((host) => `${UUID_0}@${host}`).join(', ')} and 4 more), never merged; a UUID names one board, so check host names and labels`,
    );
  });

  it('is warned about once when one input holds both hosts', () => {
    const one = analyze([{ source: 'fleet.prom', samples: [
      ...samplesAt({ host: 'node-a', uuid: UUID_0 }, [0], [{ utilizationPct: 1 }]),
      ...samplesAt({ host: 'node-b', uuid: UUID_0 }, [0], [{ utilizationPct: 1 }]),
    ] }]);
    expect(one.warnings.map((warning) => warning.source)).toEqual(['fleet.prom']);
  });

  it('is not warned about when the UUID is masked: masking collectors print it on every host', () => {
    const masked = analyze([{ source: 'fleet.prom', samples: [
      ...samplesAt({ host: HOST, uuid: MASKED_UUID }, [0], [{ utilizationPct: 1 }]),
      ...samplesAt({ host: 'node-b', uuid: MASKED_UUID }, [0], [{ utilizationPct: 1 }]),
    ] }]);
    expect(masked.gpus).toHaveLength(2);
    expect(masked.warnings).toEqual([]);
  });
});

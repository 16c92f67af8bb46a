/**
 * Several sources for one device: series that do not overlap in time are chained; series
 * that overlap are never double counted: the one with more samples is kept, with a warning.
 */
import { describe, expect, it } from 'vitest';
import { analyze, at, gpu0, hours, only, samplesAt } from './events.js';

describe('consecutive sources (rotated logs)', () => {
  it('chain into one timeline: the join stands for the time to the next file', () => {
    // a.csv 0 60 120 at 10 %, b.csv 180 240 300 at 30 %. a's last sample stands for 180 - 120 = 60 s
    // (under a's cap of 120 s); b's last for b's median 60 s. 6 x 60 = 360 s, mean (3x10 + 3x30) / 6 = 20.
    const profile = analyze([
      { source: 'a.csv', samples: samplesAt(gpu0, [0, 60, 120], [{ utilizationPct: 10 }]) },
      { source: 'b.csv', samples: samplesAt(gpu0, [180, 240, 300], [{ utilizationPct: 30 }]) },
    ]);
    const gpu = only(profile.gpus);
    expect(gpu.gpuHours).toBeCloseTo(hours(360), 12);
    expect(gpu.utilization!.mean).toBeCloseTo(20, 12);
    expect(gpu.samples).toBe(6);
    expect(profile.window).toEqual({ startMs: at(0), endMs: at(360), seconds: 360 });
    expect(profile.warnings).toEqual([]);
  });

  it('cap the break between files like any gap', () => {
    // b.csv starts an hour later: the join of 3600 - 120 = 3480 s is capped at 2 x 60 = 120 s.
    // weights 60 60 120 | 60 60 60 = 420 s
    const gpu = only(analyze([
      { source: 'a.csv', samples: samplesAt(gpu0, [0, 60, 120], [{ utilizationPct: 10 }]) },
      { source: 'b.csv', samples: samplesAt(gpu0, [3600, 3660, 3720], [{ utilizationPct: 30 }]) },
    ]).gpus);
    expect(gpu.gpuHours).toBeCloseTo(hours(420), 12);
  });

  it('keep each file its own cadence', () => {
    // fast.log every 1 s at 0..4 s (median 1 s, cap 2 s); slow.csv every 60 s at 10, 70, 130 s.
    // fast: 4 x 1 s + last min(join 10 - 4 = 6 s, cap 2 s) = 6 s; slow: 60 + 60 + last 60 = 180 s. Total 186 s.
    const gpu = only(analyze([
      { source: 'fast.log', samples: samplesAt(gpu0, [0, 1, 2, 3, 4], [{ utilizationPct: 100 }]) },
      { source: 'slow.csv', samples: samplesAt(gpu0, [10, 70, 130], [{ utilizationPct: 0 }]) },
    ]).gpus);
    expect(gpu.gpuHours).toBeCloseTo(hours(186), 12);
    expect(gpu.idleHours).toBeCloseTo(hours(180), 12);
  });

  it('snapshot files, one sample each, borrow the median of the joins', () => {
    // three files at 0, 60, 120 s: joins 60 60, median 60 -> each snapshot stands for 60 s
    const gpu = only(analyze([0, 60, 120].map((second) => ({
      source: `snap-${second}.xml`, samples: samplesAt(gpu0, [second], [{ utilizationPct: 40 }]),
    }))).gpus);
    expect(gpu.gpuHours).toBeCloseTo(hours(180), 12);
    expect(gpu.samples).toBe(3);
  });
});

describe('overlapping sources', () => {
  // long.csv every 60 s from 0 to 300 s (6 samples, 0 %); short.csv 120..240 s (3 samples, 100 %)
  const profile = analyze([
    { source: 'long.csv', samples: samplesAt(gpu0, [0, 60, 120, 180, 240, 300], [{ utilizationPct: 0 }]) },
    { source: 'short.csv', samples: samplesAt(gpu0, [120, 180, 240], [{ utilizationPct: 100 }]), run: (sink) => sink.process({ ref: gpu0, pid: 2, name: 'left-out' }) },
    { source: 'apps.csv', run: (sink) => sink.process({ ref: gpu0, pid: 1, name: 'kept' }) },
  ]);
  const gpu = only(profile.gpus);

  it('keep the series with more samples and never double count', () => {
    // long.csv alone: 6 x 60 s = 360 s, all idle
    expect(gpu.gpuHours).toBeCloseTo(hours(360), 12);
    expect(gpu.samples).toBe(6);
    expect(gpu.idleFraction).toBe(1);
    expect(gpu.utilization!.max).toBe(0);
  });

  it('say which source was left out', () => {
    expect(profile.warnings).toEqual([{
      source: 'short.csv',
      message: `GPU ${gpu.id}: its 3 samples overlap in time with the 6 of long.csv; only those were used`,
    }]);
  });

  it('leave out the processes of the source left out, not those of a source that only lists processes', () => {
    expect(gpu.processes.map((process) => process.pid)).toEqual([1]);
  });

  it('the same file read twice counts once', () => {
    const twice = analyze([
      { source: 'gpu.csv', samples: samplesAt(gpu0, [0, 60, 120], [{ utilizationPct: 50 }]) },
      { source: 'gpu.csv', samples: samplesAt(gpu0, [0, 60, 120], [{ utilizationPct: 50 }]) },
    ]);
    expect(only(twice.gpus).gpuHours).toBeCloseTo(hours(180), 12);
    expect(twice.warnings).toHaveLength(1);
  });
});

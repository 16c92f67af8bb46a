/**
 * A sample stands for the time until the next sample of its series, capped at 2x the series'
 * median interval; the last sample stands for the median interval (DESIGN.md section 5).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFleetAnalyzer } from '../../src/analysis/index.js';
import { analyze, at, gpu0, hours, only, samplesAt } from './events.js';

describe('a series with a gap', () => {
  // Samples at 0, 60, 120, 180, 900, 960 s. Intervals 60 60 60 720 60: sorted 60 60 60 60 720,
  // median 60, cap 2 x 60 = 120. Weights: 60 60 60 min(720,120)=120 60, last = median 60.
  const profile = analyze([{
    source: 'gpu.csv',
    samples: samplesAt(gpu0, [0, 60, 120, 180, 900, 960], [0, 10, 20, 30, 40, 50].map((utilizationPct) => ({ utilizationPct }))),
  }]);
  const gpu = only(profile.gpus);

  it('counts the gap as twice the median interval, and the last sample as one', () => {
    // 60 + 60 + 60 + 120 + 60 + 60 = 420 s
    expect(gpu.gpuHours).toBeCloseTo(hours(420), 12);
    expect(gpu.samples).toBe(6);
  });

  it('weights the mean by those durations', () => {
    // (0x60 + 10x60 + 20x60 + 30x120 + 40x60 + 50x60) / 420 = 10800 / 420 = 25.714...
    expect(gpu.utilization!.mean).toBeCloseTo(10800 / 420, 12);
  });

  it('weights the quantiles by those durations', () => {
    // value:weight 0:60 10:60 20:60 30:120 40:60 50:60; p50 target 210 -> 30; p95 target 399 -> 50
    expect(gpu.utilization).toMatchObject({ p50: 30, p95: 50, max: 50 });
  });

  it('counts idle time from the same weights', () => {
    // only the first sample (0 %) is below 5 %: 60 s of 420
    expect(gpu.idleFraction).toBeCloseTo(60 / 420, 12);
    expect(gpu.idleHours).toBeCloseTo(hours(60), 12);
  });

  it('spans the window from the first sample to the end of the last one', () => {
    // 0 s .. 960 + 60 s
    expect(profile.window).toEqual({ startMs: at(0), endMs: at(1020), seconds: 1020 });
    expect(gpu.firstSeen).toBe('2026-01-01T00:00:00.000Z');
    expect(gpu.lastSeen).toBe('2026-01-01T00:16:00.000Z');
  });
});

describe('the last sample', () => {
  it('stands for the median interval, whatever came before it', () => {
    // intervals 10 10 30: sorted 10 10 30, median 10, cap 20 -> weights 10 10 20, last 10
    const gpu = only(analyze([{
      source: 'a.csv',
      samples: samplesAt(gpu0, [0, 10, 20, 50], [{ utilizationPct: 100 }, { utilizationPct: 100 }, { utilizationPct: 100 }, { utilizationPct: 0 }]),
    }]).gpus);
    expect(gpu.gpuHours).toBeCloseTo(hours(10 + 10 + 20 + 10), 12);
    // the last sample (0 %) is idle for its 10 s out of 50 s
    expect(gpu.idleFraction).toBeCloseTo(10 / 50, 12);
  });
});

describe('samples out of order', () => {
  it('drops a sample older than the one before it, counts it and warns once per series', () => {
    // 0, 60, 30 (dropped), 45 (dropped), 120: intervals 60 60, median 60 -> weights 60 60 60
    const profile = analyze([{ source: 'back.csv', samples: samplesAt(gpu0, [0, 60, 30, 45, 120], [{ utilizationPct: 50 }]) }]);
    const gpu = only(profile.gpus);
    expect(gpu.samples).toBe(3);
    expect(gpu.gpuHours).toBeCloseTo(hours(180), 12);
    expect(profile.warnings).toEqual([
      { source: 'back.csv', message: `GPU ${gpu.id}: 2 samples went back in time and were skipped` },
    ]);
  });

  it('drops a second reading of a field at the same timestamp, but merges a reading that adds fields', () => {
    const profile = analyze([{
      source: 'dup.prom',
      samples: [
        { ref: gpu0, time: at(0), utilizationPct: 10 },
        { ref: gpu0, time: at(0), memoryUsedMiB: 1000 }, // complements: merged into the sample at 0
        { ref: gpu0, time: at(60), utilizationPct: 20, memoryUsedMiB: 3000 },
        { ref: gpu0, time: at(60), utilizationPct: 90 }, // repeats utilization: dropped
      ],
    }]);
    const gpu = only(profile.gpus);
    expect(gpu.samples).toBe(2);
    // two samples, 60 s each (the last gets the median 60): mean utilization (10 + 20) / 2, memory (1000 + 3000) / 2
    expect(gpu.utilization).toMatchObject({ mean: 15, max: 20 });
    expect(gpu.memoryUsedMiB).toMatchObject({ mean: 2000, max: 3000 });
    expect(profile.warnings.map((warning) => warning.message)).toEqual([`GPU ${gpu.id}: 1 sample repeated a timestamp and were skipped`]);
  });
});

describe('point values (no timestamp)', () => {
  const profile = analyze([{
    source: 'snapshot.xml',
    samples: [0, 3, 50, 100].map((utilizationPct) => ({ ref: gpu0, utilizationPct, memoryUsedMiB: 1024 })),
  }]);
  const gpu = only(profile.gpus);

  it('have no duration', () => {
    expect(gpu.gpuHours).toBe(0);
    expect(gpu.idleHours).toBe(0);
    expect(profile.window).toEqual({ startMs: null, endMs: null, seconds: 0 });
  });

  it('give the share of readings that were idle and unweighted statistics', () => {
    // 0 and 3 are below 5 %: 2 of 4
    expect(gpu.idleFraction).toBe(0.5);
    // mean (0 + 3 + 50 + 100) / 4 = 38.25; p50 target 2 of 4 -> 3; p95 target 3.8 -> 100
    expect(gpu.utilization).toEqual({ mean: 38.25, p50: 3, p95: 100, max: 100 });
    expect(gpu.samples).toBe(4);
  });

  it('a lone timestamped snapshot is a point value too', () => {
    const lone = analyze([{ source: 'one.xml', samples: [{ ref: gpu0, time: at(0), utilizationPct: 0 }] }]);
    expect(only(lone.gpus)).toMatchObject({ gpuHours: 0, idleHours: 0, idleFraction: 1, samples: 1, firstSeen: '2026-01-01T00:00:00.000Z' });
    expect(lone.window).toEqual({ startMs: at(0), endMs: at(0), seconds: 0 });
  });
});

describe('weights against a direct computation (property)', () => {
  // Intervals drawn from whole seconds that never share a sketch bucket, so the median is exact
  // and the analyzer must match the definition computed with a sort.
  const interval = fc.constantFrom(1, 2, 5, 10, 60, 300, 3600);
  const utilization = fc.integer({ min: 0, max: 100 });

  it('gpuHours, mean and idle time match sort-and-cap on every series', () => {
    fc.assert(fc.property(fc.array(fc.tuple(interval, utilization), { minLength: 1, maxLength: 60 }), utilization, (steps, lastUtilization) => {
      const times = [0];
      for (const [step] of steps) times.push(times.at(-1)! + step);
      const values = [...steps.map(([, u]) => u), lastUtilization];
      const gpu = only(analyze([{ source: 's', samples: samplesAt(gpu0, times, values.map((utilizationPct) => ({ utilizationPct }))) }]).gpus);

      const intervals = steps.map(([step]) => step);
      const median = [...intervals].sort((a, b) => a - b)[Math.ceil(intervals.length / 2) - 1]!; // lower median
      const weights = [...intervals.map((step) => Math.min(step, 2 * median)), median];
      const total = weights.reduce((sum, w) => sum + w, 0);
      const mean = weights.reduce((sum, w, i) => sum + w * values[i]!, 0) / total;
      const idle = weights.reduce((sum, w, i) => sum + (values[i]! < 5 ? w : 0), 0);

      expect(gpu.gpuHours).toBeCloseTo(hours(total), 9);
      expect(gpu.utilization!.mean).toBeCloseTo(mean, 9);
      expect(gpu.idleHours).toBeCloseTo(hours(idle), 9);
    }));
  });
});

describe('many gaps', () => {
  it('are all capped while they fit in the remembered longest intervals', () => {
    // 10,000 samples 1 s apart, except that 1,000 of the 9,999 intervals are 1 h outages.
    // median 1 s, cap 2 s: 8,999 x 1 s + 1,000 x 2 s + last 1 s = 11,000 s
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('gappy.csv');
    let second = 0;
    for (let i = 0; i < 10_000; i += 1) {
      analyzer.sample({ ref: gpu0, time: at(second), utilizationPct: 50 });
      second += i % 10 === 4 ? 3600 : 1; // after samples 4, 14, ..., 9994: 1,000 outages
    }
    const profile = analyzer.finish();
    expect(only(profile.gpus).gpuHours).toBeCloseTo(hours(11_000), 9);
    expect(profile.warnings).toEqual([]);
  });
});

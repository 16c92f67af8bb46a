/**
 * GpuEntry.timeline: compute and memory over the window in equal, epoch-aligned buckets,
 * weighted like every other figure (DESIGN.md section 5). T0 (2026-01-01T00:00Z) is a
 * multiple of 60 s, so the first 60 s bucket starts at T0.
 */
import { describe, expect, it } from 'vitest';
import { createFleetAnalyzer } from '../../src/analysis/index.js';
import { computePercents, RUNG_COUNT } from '../../src/analysis/compute-percent.js';
import type { SampleValues } from '../../src/analysis/sample-values.js';
import { STREAMING_BUCKET_CAP, TimelineBuckets } from '../../src/analysis/timeline-buckets.js';
import { TIMELINE_MAX_BUCKETS } from '../../src/model/report.js';
import { analyze, at, gpu0, only, samplesAt, T0 } from './events.js';

describe('a sample that crosses a bucket edge', () => {
  // Samples at 30, 90, 150 s: intervals 60 60, median 60; the last stands for 60 s.
  // Times: [30,90) 10 %, [90,150) 20 %, [150,210) 30 %.
  const gpu = only(analyze([{
    source: 'gpu.csv',
    samples: samplesAt(gpu0, [30, 90, 150], [
      { utilizationPct: 10, memoryUsedMiB: 100 },
      { utilizationPct: 20, memoryUsedMiB: 300 },
      { utilizationPct: 30, memoryUsedMiB: 200 },
    ]),
  }]).gpus);

  it('is split by time between the buckets it covers', () => {
    // [0,60): 30 s of 10 -> 10; [60,120): 30 s of 10 + 30 s of 20 -> 15;
    // [120,180): 30 s of 20 + 30 s of 30 -> 25; [180,240): 30 s of 30 -> 30.
    expect(gpu.timeline).toEqual({
      start: new Date(T0).toISOString(),
      bucketSeconds: 60,
      computeMeanPct: [10, 15, 25, 30],
      // Largest reading of any sample whose time reaches the bucket: [0,60) only the first (100);
      // [60,120) first and second (300); [120,180) second and third (300); [180,240) the third (200).
      memoryUsedMaxMiB: [100, 300, 300, 200],
    });
  });
});

describe('a gap in a series', () => {
  // The series of weighting.test.ts: samples at 0 60 120 180 900 960 s, median 60, cap 120.
  // Times: [0,60) 0, [60,120) 10, [120,180) 20, [180,300) 30 (720 s capped at 120), [900,960) 40, [960,1020) 50.
  const gpu = only(analyze([{
    source: 'gpu.csv',
    samples: samplesAt(gpu0, [0, 60, 120, 180, 900, 960], [0, 10, 20, 30, 40, 50].map((pct) => ({ utilizationPct: pct, memoryUsedMiB: pct * 100 }))),
  }]).gpus);

  it('leaves the buckets beyond the cap unobserved', () => {
    const gap = new Array<null>(10).fill(null); // buckets 5-14: [300, 900)
    expect(gpu.timeline?.computeMeanPct).toEqual([0, 10, 20, 30, 30, ...gap, 40, 50]);
    // The 30 % sample reaches 300 s (capped): buckets 3 and 4 hold its 3000 MiB, bucket 5 does not.
    expect(gpu.timeline?.memoryUsedMaxMiB).toEqual([0, 1000, 2000, 3000, 3000, ...gap, 4000, 5000]);
  });
});

describe('a window longer than 500 minutes', () => {
  // Samples every 300 s for two days: 576 samples at 0 .. 172500 s, the last standing for 300 s,
  // so the window is [0, 172800). 172800 s / 500 = 345.6 s: widths double 60 -> 120 -> 240 -> 480,
  // the first that fits: 172800 / 480 = 360 buckets. Utilization is 100 before 3600 s, 0 after.
  const seconds = Array.from({ length: 576 }, (_, i) => i * 300);
  const gpu = only(analyze([{
    source: 'gpu.csv',
    samples: seconds.map((second) => ({ ref: gpu0, time: at(second), utilizationPct: second < 3600 ? 100 : 0, memoryUsedMiB: 500 })),
  }]).gpus);

  it('widens the buckets by doubling until at most 500 remain', () => {
    expect(gpu.timeline?.bucketSeconds).toBe(480);
    expect(gpu.timeline?.computeMeanPct).toHaveLength(360);
    expect(gpu.timeline?.memoryUsedMaxMiB).toHaveLength(360);
  });

  it('keeps time-weighted means across the merged buckets', () => {
    // 3600 / 480 = 7.5: buckets 0-6 are all 100 %, bucket 7 [3360, 3840) is 240 s at 100 and 240 s at 0.
    expect(gpu.timeline?.computeMeanPct.slice(0, 9)).toEqual([100, 100, 100, 100, 100, 100, 100, 50, 0]);
    expect(gpu.timeline?.computeMeanPct.slice(9).every((pct) => pct === 0)).toBe(true);
    expect(gpu.timeline?.memoryUsedMaxMiB.every((mib) => mib === 500)).toBe(true);
  });
});

describe('the compute basis', () => {
  it('follows the ladder: SM active wins over utilization', () => {
    const gpu = only(analyze([{
      source: 'dcgm.txt',
      samples: samplesAt(gpu0, [0, 60], [{ utilizationPct: 90, smActivePct: 40 }]),
    }]).gpus);
    expect(gpu.computeBasis).toBe('sm-active');
    expect(gpu.timeline?.computeMeanPct).toEqual([40, 40]);
  });

  it('reads 100 while a compute process runs and 0 when none does on the processes rung', () => {
    // [0,60) one process, [60,120) none -> 100, 0.
    const gpu = only(analyze([{
      source: 'mig.csv',
      samples: samplesAt({ ...gpu0, gpuInstanceId: 1 }, [0, 60], [{ computeProcessCount: 1 }, { computeProcessCount: 0 }]),
    }]).gpus.filter((entry) => entry.parentId !== null));
    expect(gpu.computeBasis).toBe('processes');
    expect(gpu.timeline?.computeMeanPct).toEqual([100, 0]);
  });
});

describe('devices without timed samples', () => {
  it('have neither timeline nor hour-of-week when they only have point values', () => {
    const gpu = only(analyze([{ source: 'snapshot.xml', samples: [{ ref: gpu0, utilizationPct: 30, memoryUsedMiB: 10 }] }]).gpus);
    expect(gpu.timeline).toBeNull();
    expect(gpu.hourOfWeekComputePct).toBeNull();
  });

  it('have neither when the whole chain is one snapshot', () => {
    const gpu = only(analyze([{ source: 'one.xml', samples: samplesAt(gpu0, [0], [{ utilizationPct: 30 }]) }]).gpus);
    expect(gpu.timeline).toBeNull();
    expect(gpu.hourOfWeekComputePct).toBeNull();
  });
});

describe('series chained from several files', () => {
  it('share one timeline', () => {
    // a.csv: 0, 60 (10 %); b.csv: 120, 180 (30 %). Each median 60; a's last reaches b's start.
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('a.csv');
    for (const sample of samplesAt(gpu0, [0, 60], [{ utilizationPct: 10 }])) analyzer.sample(sample);
    analyzer.beginSource('b.csv');
    for (const sample of samplesAt(gpu0, [120, 180], [{ utilizationPct: 30 }])) analyzer.sample(sample);
    const gpu = only(analyzer.finish().gpus);
    expect(gpu.timeline?.computeMeanPct).toEqual([10, 10, 30, 30]);
  });
});

/** The per-rung percents of a sample, as the activity profile hands them to the buckets. */
function percentsOf(values: SampleValues): Float64Array {
  const percents = new Float64Array(RUNG_COUNT);
  computePercents(values, percents);
  return percents;
}

describe('TimelineBuckets', () => {
  it('never holds more than the streaming cap, whatever the window', () => {
    // 30 days of 1-minute samples: 43200 spans.
    const buckets = new TimelineBuckets();
    let largest = 0;
    for (let minute = 0; minute < 30 * 24 * 60; minute += 1) {
      buckets.addSample(T0 + minute * 60_000, 60_000, percentsOf({ utilizationPct: 50 }), undefined);
      largest = Math.max(largest, buckets.budgetedCount);
    }
    expect(largest).toBeLessThanOrEqual(STREAMING_BUCKET_CAP);
    buckets.settle(120_000);
    buckets.shrinkTo(TIMELINE_MAX_BUCKETS);
    // 2592000 s / 500 = 5184 s -> 60 x 2^7 = 7680 s; T0 is a multiple of 7680 s? 1767225600 / 7680 = 230107.5, so
    // the first bucket starts 3840 s before T0 and 2592000 + 3840 = 2595840 s span 338 buckets.
    const timeline = buckets.toTimeline(2);
    expect(timeline?.bucketSeconds).toBe(7680);
    expect(timeline?.start).toBe(new Date(T0 - 3_840_000).toISOString());
    expect(timeline?.computeMeanPct).toHaveLength(338);
    expect(timeline?.computeMeanPct.every((pct) => pct === 50)).toBe(true);
  });

  it('sums two timelines of different widths after widening the finer', () => {
    const fine = new TimelineBuckets();
    fine.addSample(T0, 60_000, percentsOf({ utilizationPct: 20 }), undefined);
    const coarse = new TimelineBuckets();
    coarse.addSample(T0 + 60_000, 60_000, percentsOf({ utilizationPct: 40 }), undefined);
    coarse.addSample(T0 + 120_000, 60_000 * 20_000, percentsOf({ utilizationPct: 0 }), undefined); // 20,000 minutes: past a week, which forces widening
    fine.settle(Infinity);
    coarse.settle(Infinity);
    fine.merge(coarse);
    const timeline = fine.toTimeline(2)!;
    // Both end at the coarse width; the first coarse bucket starts at or before T0 and holds
    // 60 s of 20 %, 60 s of 40 % and the rest of its width at 0 %.
    expect(timeline.bucketSeconds).toBeGreaterThan(60);
    const first = timeline.computeMeanPct[0]!;
    const bucketMs = timeline.bucketSeconds * 1000;
    const startMs = Date.parse(timeline.start);
    const zeroMs = startMs + bucketMs - (T0 + 120_000);
    expect(first).toBeCloseTo((20 * 60_000 + 40 * 60_000) / (120_000 + zeroMs), 9);
  });
});

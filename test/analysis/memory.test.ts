/**
 * What the analyzer holds must not grow with samples: per series a bounded interval histogram,
 * at most LARGEST_INTERVALS_KEPT remembered gaps (fewer where many long series share the
 * fleet's MAX_KEPT_INTERVALS) and bounded quantile sketches (not timed).
 */
import { describe, expect, it } from 'vitest';
import { createInspectableFleetAnalyzer } from '../../src/analysis/fleet-analyzer.js';
import type { DeviceRef, GpuSample } from '../../src/model/observations.js';
import { LARGEST_INTERVALS_KEPT, MAX_KEPT_INTERVALS } from '../../src/analysis/series.js';
import { INTERVAL_MS_RANGE, MIB_RANGE, PERCENT_RANGE, WeightedQuantileSketch } from '../../src/analysis/stats/weighted-quantile-sketch.js';
import { gpu0, gpu1, T0 } from './events.js';

describe('a million samples of one GPU', () => {
  it('keep the retained state under its caps', () => {
    const analyzer = createInspectableFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('long.csv');
    let time = T0;
    const sizes: ReturnType<typeof analyzer.retainedState>[] = [];
    for (let i = 0; i < 1_000_000; i += 1) {
      // 1 s cadence with up to 20 ms of jitter, and a 10-60 min outage every 150 samples
      // (6,666 gaps: more than the 4,096 that can be corrected).
      time += i % 150 === 149 ? 600_000 + (i % 3000) * 1000 : 1000 + (i % 21);
      analyzer.sample({ ref: gpu0, time, utilizationPct: (i * 7) % 101, memoryUsedMiB: (i * 7919) % 81920, smActivePct: ((i * 13) % 10_000) / 100 });
      if (i % 250_000 === 0) sizes.push(analyzer.retainedState());
    }
    const end = analyzer.retainedState();
    const profile = analyzer.finish();

    expect(end.deviceRefs).toBe(1);
    expect(end.series).toBe(1);
    expect(end.largestIntervalHeap).toBe(LARGEST_INTERVALS_KEPT);
    expect(end.largestIntervalHistogramBuckets).toBeLessThanOrEqual(WeightedQuantileSketch.maxBucketCount(INTERVAL_MS_RANGE));
    expect(end.sketchBuckets).toBeLessThanOrEqual(4 * WeightedQuantileSketch.maxBucketCount(PERCENT_RANGE) + WeightedQuantileSketch.maxBucketCount(MIB_RANGE));
    // Past the first quarter nothing grows any more: the state is a function of distinct values, not of samples.
    expect(sizes.at(-1)!.sketchBuckets).toBe(end.sketchBuckets);

    const gpu = profile.gpus[0]!;
    expect(gpu.samples).toBe(1_000_000);
    expect(profile.warnings).toEqual([{
      source: 'long.csv',
      message: `GPU ${gpu.id}: more than ${LARGEST_INTERVALS_KEPT} gaps exceed twice the median sample interval; the longest were capped, the rest count in full`,
    }]);
  });
});

describe('a fleet of long series', () => {
  // 200 GPUs on hosts of their own, 1,400 samples each at 1 s with up to 20 ms of jitter, and
  // `gaps` 10-minute outages per GPU: 279,800 intervals, more than the fleet's 262,144.
  const GPUS = 200;
  const SAMPLES = 1400;
  const refOf = (gpu: number): DeviceRef => ({ host: `node-${String(gpu).padStart(3, '0')}`, uuid: `GPU-${String(gpu).padStart(8, '0')}-0000-0000-0000-000000000000`, index: 0 });
  function samplesOf(gpu: number, gaps: number): GpuSample[] {
    const ref = refOf(gpu);
    const spacing = Math.floor((SAMPLES - 1) / (gaps + 1));
    let time = T0;
    return Array.from({ length: SAMPLES }, (_, i) => {
      time += i > 0 && i % spacing === 0 && i / spacing <= gaps ? 600_000 : 1000 + ((i * 7 + gpu) % 21);
      return { ref, time, utilizationPct: (i * 7 + gpu) % 101, memoryUsedMiB: ((i + gpu) * 7919) % 81920 };
    });
  }
  function analyzeFleet(gpus: number[], gapsOf: (gpu: number) => number) {
    const analyzer = createInspectableFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('fleet.csv');
    const series = gpus.map((gpu) => samplesOf(gpu, gapsOf(gpu)));
    // Tick by tick, as a fleet's scrapes come.
    for (let i = 0; i < SAMPLES; i += 1) for (const samples of series) analyzer.sample(samples[i]!);
    const retained = analyzer.retainedState();
    return { retained, profile: analyzer.finish() };
  }
  const everyGpu = Array.from({ length: GPUS }, (_, gpu) => gpu);

  it('share one budget of remembered intervals: each series is cut to what fits in half of it', () => {
    const { retained, profile } = analyzeFleet(everyGpu, () => 3);
    // Cut when the 262,145th interval came (about 1,311 per series): to floor(131,072 / 200) = 655 each.
    expect(retained.largestIntervalHeap).toBe(655);
    expect(retained.keptIntervals).toBe(GPUS * 655);
    expect(profile.warnings).toEqual([]);
    expect(profile.gpus.map(({ samples }) => samples)).toEqual(everyGpu.map(() => SAMPLES));
  });

  it('gives each GPU the figures it has alone: only ordinary intervals were forgotten', () => {
    const { profile } = analyzeFleet(everyGpu, () => 3);
    for (const gpu of [0, 77, 199]) {
      const alone = analyzeFleet([gpu], () => 3).profile.gpus[0]!;
      expect(profile.gpus.find((entry) => entry.host === refOf(gpu).host)).toEqual(alone);
    }
  });

  it('warns for a GPU with more long gaps than its share, naming the shared limit', () => {
    // GPU 5: an outage after every other sample, 680 of them, still fewer than its ordinary intervals.
    const { profile } = analyzeFleet(everyGpu, (gpu) => (gpu === 5 ? 680 : 3));
    const id = profile.gpus.find((entry) => entry.host === refOf(5).host)!.id;
    expect(profile.warnings).toEqual([{
      source: 'fleet.csv',
      message: `GPU ${id}: more than 655 gaps exceed twice the median sample interval; the longest were capped, the rest count in full (not ${LARGEST_INTERVALS_KEPT}: the audit's many long series share ${MAX_KEPT_INTERVALS} remembered intervals)`,
    }]);
  });
});

describe('a fleet of long timelines', () => {
  // 300 GPUs sampled every minute for 900 minutes: some 900 one-minute buckets each while
  // streaming, 270,000 in all, more than the fleet's 262,144.
  const GPUS = 300;
  const SAMPLES = 901;
  const refOf = (gpu: number): DeviceRef => ({ host: `node-${String(gpu).padStart(3, '0')}`, index: 0 });
  function analyzeFleet(gpus: number[]) {
    const analyzer = createInspectableFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('fleet.prom');
    for (let i = 0; i < SAMPLES; i += 1) {
      for (const gpu of gpus) analyzer.sample({ ref: refOf(gpu), time: T0 + i * 60_000, utilizationPct: (i * 7 + gpu) % 101, memoryUsedMiB: ((i + gpu) * 7919) % 81920 });
    }
    const retained = analyzer.retainedState();
    return { retained, profile: analyzer.finish() };
  }

  it('share one budget of buckets: past it every timeline holds fewer, wider buckets', () => {
    const { retained, profile } = analyzeFleet(Array.from({ length: GPUS }, (_, gpu) => gpu));
    // Cut at 874 buckets each to at most floor(131,072 / 300) = 436: widened twice, to 4 minutes.
    expect(retained.timelineBuckets).toBeLessThanOrEqual(GPUS * 436);
    for (const gpu of profile.gpus) {
      expect(gpu.timeline!.bucketSeconds).toBe(240);
      expect(gpu.timeline!.computeMeanPct.length).toBeLessThanOrEqual(436);
    }
  });

  it('changes nothing but the timeline\'s resolution: its memory maxima are those of the finer one, pair by pair', () => {
    const { profile } = analyzeFleet(Array.from({ length: GPUS }, (_, gpu) => gpu));
    for (const gpu of [0, 150, 299]) {
      const alone = analyzeFleet([gpu]).profile.gpus[0]!;
      const inFleet = profile.gpus.find((entry) => entry.host === refOf(gpu).host)!;
      // Ids differ (a host of its own needs no host in it); the rest does not.
      const { timeline: fine, computeSeries: fineSeries, id: _aloneId, ...aloneRest } = alone;
      const { timeline: coarse, computeSeries: coarseSeries, id: _fleetId, ...fleetRest } = inFleet;
      expect(fleetRest).toEqual(aloneRest);
      // The compute series: minute by minute alone, at the fleet's 4 minutes in the fleet.
      expect([fineSeries!.bucketSeconds, fineSeries!.meanPct.length]).toEqual([60, 901]);
      expect(coarseSeries!.bucketSeconds).toBe(240);
      // Alone: 901 one-minute buckets, shrunk to 451 of 2 minutes for the report.
      expect(fine!.bucketSeconds).toBe(120);
      const coarseStart = Date.parse(coarse!.start);
      const expected: (number | null)[] = coarse!.memoryUsedMaxMiB.map(() => null);
      fine!.memoryUsedMaxMiB.forEach((memory, bucket) => {
        const at = Math.floor((Date.parse(fine!.start) + bucket * 120_000 - coarseStart) / 240_000);
        if (memory !== null) expected[at] = Math.max(expected[at] ?? -Infinity, memory);
      });
      expect(coarse!.memoryUsedMaxMiB).toEqual(expected);
    }
  });
});

describe('after finish', () => {
  it('holds nothing of the devices: their series, points and tables were let go as their entries were built', () => {
    // Two GPUs in two inputs, with timed samples, point values and processes; the profile is
    // what stays, so that analysis state and report entries do not add up in a large fleet.
    const analyzer = createInspectableFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('a.csv');
    for (let i = 0; i < 100; i += 1) analyzer.sample({ ref: i % 2 === 0 ? gpu0 : gpu1, time: T0 + i * 500, utilizationPct: i % 101 });
    analyzer.process({ ref: gpu0, pid: 42, name: 'python', usedMemoryMiB: 1024 });
    analyzer.beginSource('b.xml');
    analyzer.sample({ ref: gpu1, utilizationPct: 50 });
    expect(analyzer.retainedState()).toMatchObject({ deviceRefs: 2, series: 2, processes: 1 });
    const profile = analyzer.finish();
    expect(profile.gpus.map(({ samples }) => samples)).toEqual([50, 51]);
    expect(analyzer.retainedState()).toEqual({ deviceRefs: 0, series: 0, largestIntervalHistogramBuckets: 0, largestIntervalHeap: 0, keptIntervals: 0, timelineBuckets: 0, sketchBuckets: 0, processes: 0 });
  });
});

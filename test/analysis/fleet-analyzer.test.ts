import { describe, expect, it } from 'vitest';
import { createFleetAnalyzer } from '../../src/analysis/index.js';
import { at, gpu0, gpu1 } from './events.js';

describe('the analyzer as a sink', () => {
  it('needs beginSource before events, and takes none after finish', () => {
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    expect(() => analyzer.sample({ ref: gpu0, time: at(0) })).toThrow(/beginSource/);
    analyzer.beginSource('a.csv');
    analyzer.sample({ ref: gpu0, time: at(0) });
    analyzer.finish();
    expect(() => analyzer.sample({ ref: gpu0, time: at(60) })).toThrow(/after finish/);
    expect(() => analyzer.finish()).toThrow(/twice/);
  });

  it('passes the parsers\' warnings on with the source they came from', () => {
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('a.csv');
    analyzer.warn({ location: 'line 17', message: 'expected 12 cells, found 11' });
    expect(analyzer.finish().warnings).toEqual([{ source: 'a.csv', message: 'line 17: expected 12 cells, found 11' }]);
  });

  it('leaves out values outside their domain and says so once per input and figure; NVML\'s sentinel is no value, unsaid', () => {
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('bad.csv');
    const readings = [
      { utilizationPct: 50, memoryUsedMiB: 1_000, memoryTotalMiB: 81_559 },
      { utilizationPct: 4_294_967_295, memoryUsedMiB: 999_999, memoryTotalMiB: 81_559 },
      { utilizationPct: 150, memoryUsedMiB: 2_000, memoryTotalMiB: 81_559 },
      { utilizationPct: -5, memoryUsedMiB: 3_000, memoryTotalMiB: 81_559 },
      { utilizationPct: 40, memoryUsedMiB: 3_000, memoryTotalMiB: 81_559 },
    ];
    readings.forEach((values, index) => analyzer.sample({ ref: gpu0, time: at(index * 60), ...values }));
    const profile = analyzer.finish();
    expect(profile.warnings).toEqual([
      { source: 'bad.csv', message: 'left out 1 memory used reading outside 0 to the memory total (the first: 999999): no value, not a figure' },
      { source: 'bad.csv', message: 'left out 2 GPU utilization readings outside 0-100 % (the first: 150): no value, not a figure' },
    ]);
    // Only 50 and 40 remain: no mean of 1,431,655,771 %, no negative headroom.
    expect(profile.gpus[0]!.utilization!.max).toBe(50);
    expect(profile.gpus[0]!.memoryUsedMiB!.max).toBe(3_000);
  });

  it('spans the fleet window over every device', () => {
    // gpu0 at 0 and 60 s (ends 120 s), gpu1 at 30 and 90 s (ends 150 s): 0 .. 150 s
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('fleet.csv');
    for (const [ref, second] of [[gpu0, 0], [gpu1, 30], [gpu0, 60], [gpu1, 90]] as const) analyzer.sample({ ref, time: at(second), utilizationPct: 1 });
    expect(analyzer.finish().window).toEqual({ startMs: at(0), endMs: at(150), seconds: 150 });
  });

  it('fills inventory gaps from later documents without overwriting what is known', () => {
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('a.xml');
    analyzer.device({ ref: gpu0, model: 'NVIDIA H100 80GB HBM3' });
    analyzer.device({ ref: gpu0, model: 'something else', memoryTotalMiB: 81559, driverVersion: '550.54.15' });
    const profile = analyzer.finish();
    expect(profile.gpus[0]).toMatchObject({ model: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559, samples: 0, utilization: null, computeBasis: 'unknown' });
    expect(profile.deviceFacts.get(profile.gpus[0]!.id)).toMatchObject({ driverVersion: '550.54.15' });
  });

  it('derives VRAM headroom from the peak', () => {
    // total 23028 MiB, peak 17271 MiB -> headroom 5757 MiB = 25 %
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('q.csv');
    analyzer.sample({ ref: gpu0, time: at(0), memoryUsedMiB: 1000, memoryTotalMiB: 23028 });
    analyzer.sample({ ref: gpu0, time: at(60), memoryUsedMiB: 17271, memoryTotalMiB: 23028 });
    expect(analyzer.finish().gpus[0]).toMatchObject({ memoryTotalMiB: 23028, vramHeadroomMiB: 5757, vramHeadroomPct: 25 });
  });
});

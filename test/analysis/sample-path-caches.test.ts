/**
 * The shortcuts on the per-sample path of the fleet analyzer: the ref object looked for as the
 * last one or the one that followed it last time, frozen refs trusted without comparing their
 * fields, a pod container matched against the last one seen on its device, a sample inside one
 * timeline bucket added without the bucket loop, one empty point-value accumulator shared by the
 * devices without point values, and the last instant's ISO text remembered. Each must give what
 * the long way gives.
 */
import { describe, expect, it } from 'vitest';
import { computePercents, RUNG_COUNT } from '../../src/analysis/compute-percent.js';
import { IsoTimes } from '../../src/analysis/iso-time.js';
import { TimelineBuckets } from '../../src/analysis/timeline-buckets.js';
import type { DeviceRef, GpuSample } from '../../src/model/observations.js';
import { analyze, at, HOST, T0, UUID_0, UUID_1 } from './events.js';

const frozen0: DeviceRef = Object.freeze({ host: HOST, uuid: UUID_0, index: 0 });
const frozen1: DeviceRef = Object.freeze({ host: HOST, uuid: UUID_1, index: 1 });
const UUID_2 = 'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';

/** Samples every 10 s for `rounds` rounds, one per ref per round, in the order given. */
function rounds(refs: readonly DeviceRef[], count: number, utilizationOf: (ref: number) => number): GpuSample[] {
  const samples: GpuSample[] = [];
  for (let round = 0; round < count; round += 1) {
    refs.forEach((ref, position) => samples.push({ ref, time: at(10 * round), utilizationPct: utilizationOf(position) }));
  }
  return samples;
}

describe('finding the device of a sample', () => {
  it('keeps two GPUs that alternate sample by sample apart', () => {
    // 0, 1, 0, 1 ...: each GPU gets its own 6 samples, 10 s apart, at its own utilization.
    const { gpus } = analyze([{ source: 'log.csv', samples: rounds([frozen0, frozen1], 6, (position) => (position === 0 ? 20 : 80)) }]);
    expect(gpus.map((gpu) => [gpu.uuid, gpu.samples, gpu.utilization?.mean])).toEqual([[UUID_0, 6, 20], [UUID_1, 6, 80]]);
  });

  it('finds every device when the order of a round changes', () => {
    // Rounds 0 1 2, then 2 0 1, then 1 2 0: the device that followed last time is not the next one.
    const refs = [frozen0, frozen1, Object.freeze({ host: HOST, uuid: UUID_2, index: 2 })];
    const orders = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1]];
    const samples = orders.flatMap((order, round) => order.map((position) => ({ ref: refs[position]!, time: at(10 * round), utilizationPct: 10 * (position + 1) })));
    const { gpus } = analyze([{ source: 'log.csv', samples }]);
    expect(gpus.map((gpu) => [gpu.uuid, gpu.samples, gpu.utilization?.mean])).toEqual([[UUID_0, 4, 10], [UUID_1, 4, 20], [UUID_2, 4, 30]]);
  });

  it('treats a plain ref whose fields changed as the device it names now', () => {
    // The same object names GPU 0 for two samples, then (edited in place) GPU 1 for two.
    const ref: DeviceRef = { host: HOST, uuid: UUID_0, index: 0 };
    const samples: GpuSample[] = [
      { ref, time: at(0), utilizationPct: 10 },
      { ref, time: at(10), utilizationPct: 10 },
    ];
    const analyzer = analyze([{
      source: 'log.csv',
      run: (sink) => {
        for (const sample of samples) sink.sample(sample);
        ref.uuid = UUID_1;
        ref.index = 1;
        sink.sample({ ref, time: at(20), utilizationPct: 90 });
        sink.sample({ ref, time: at(30), utilizationPct: 90 });
      },
    }]);
    expect(analyzer.gpus.map((gpu) => [gpu.uuid, gpu.samples, gpu.utilization?.mean])).toEqual([[UUID_0, 2, 10], [UUID_1, 2, 90]]);
  });

  it('keeps each input apart for the same ref object', () => {
    // One frozen ref in two inputs that overlap in time: two series, the larger one is kept.
    const profile = analyze([
      { source: 'a.csv', samples: rounds([frozen0], 3, () => 10) },
      { source: 'b.csv', samples: rounds([frozen0], 2, () => 90) },
    ]);
    expect(profile.gpus.map((gpu) => [gpu.samples, gpu.utilization?.mean])).toEqual([[3, 10]]);
    expect(profile.warnings.map((warning) => warning.source)).toEqual(['b.csv']);
  });
});

describe('pod containers seen scrape after scrape', () => {
  it('counts a container that alternates with another on one device, with first and last sightings', () => {
    // Scrapes at 0, 60, 120, 180 s: trainer in every one, log-shipper in the two middle ones.
    const profile = analyze([{
      source: 'scrape.prom',
      samples: [0, 60, 120, 180].map((second) => ({ ref: frozen0, time: at(second), utilizationPct: 50 })),
      run: (sink) => {
        for (const second of [0, 60, 120, 180]) {
          sink.assignment?.({ ref: frozen0, time: at(second), namespace: 'ml', pod: 'trainer-0', container: 'trainer' });
          if (second === 60 || second === 120) sink.assignment?.({ ref: frozen0, time: at(second), namespace: 'ml', pod: 'trainer-0', container: 'log-shipper' });
        }
        // A sighting without a timestamp counts, and moves neither first nor last.
        sink.assignment?.({ ref: frozen0, namespace: 'ml', pod: 'trainer-0', container: 'trainer' });
      },
    }]);
    expect(profile.podAssignments.get(UUID_0)).toEqual([
      { namespace: 'ml', pod: 'trainer-0', container: 'log-shipper', firstSeenMs: at(60), lastSeenMs: at(120), samples: 2 },
      { namespace: 'ml', pod: 'trainer-0', container: 'trainer', firstSeenMs: at(0), lastSeenMs: at(180), samples: 5 },
    ]);
  });

  it('tells containers apart by pod and by name, a missing name included', () => {
    const profile = analyze([{
      source: 'scrape.prom',
      samples: [{ ref: frozen0, time: at(0), utilizationPct: 50 }],
      run: (sink) => {
        sink.assignment?.({ ref: frozen0, time: at(0), namespace: 'ml', pod: 'a' });
        sink.assignment?.({ ref: frozen0, time: at(0), namespace: 'ml', pod: 'a' });
        sink.assignment?.({ ref: frozen0, time: at(0), namespace: 'ml', pod: 'b', container: 'x' });
      },
    }]);
    expect(profile.podAssignments.get(UUID_0)?.map(({ pod, container, samples }) => [pod, container, samples])).toEqual([['a', null, 2], ['b', 'x', 1]]);
  });
});

describe('a sample inside one timeline bucket', () => {
  const percents = (utilizationPct: number): Float64Array => {
    const out = new Float64Array(RUNG_COUNT);
    computePercents({ utilizationPct }, out);
    return out;
  };

  it('is added to that bucket alone, up to a sample that ends exactly on its edge', () => {
    // [0, 20 s) at 10 %, [20, 60 s) at 40 % (ends on the edge), [60, 90 s) at 70 %:
    // bucket [0,60): (20 x 10 + 40 x 40) / 60 = 30; bucket [60,120): 70.
    const buckets = new TimelineBuckets();
    buckets.addSample(T0, 20_000, percents(10), 100);
    buckets.addSample(T0 + 20_000, 40_000, percents(40), 300);
    buckets.addSample(T0 + 60_000, 30_000, percents(70), 200);
    buckets.settle(Infinity);
    expect(buckets.toTimeline(2)).toEqual({ start: new Date(T0).toISOString(), bucketSeconds: 60, computeMeanPct: [30, 70], memoryUsedMaxMiB: [300, 200] });
  });

  it('and one that crosses the edge by a millisecond still reaches the next bucket', () => {
    // [50 s, 60.001 s) at 40 %: 10 s in the first bucket, 1 ms in the second, whose memory it carries.
    const buckets = new TimelineBuckets();
    buckets.addSample(T0 + 50_000, 10_001, percents(40), 300);
    buckets.settle(Infinity);
    expect(buckets.toTimeline(2)).toEqual({ start: new Date(T0).toISOString(), bucketSeconds: 60, computeMeanPct: [40, 40], memoryUsedMaxMiB: [300, 300] });
  });
});

describe('devices without point values', () => {
  it('share empty point-value figures that the point values of other devices never reach', () => {
    // GPU 0: timed samples without a memory total; GPU 1: point values only, 80 GB total;
    // GPU 2: one timed sample (a point value for want of an interval) at 70 %.
    const gpu2: DeviceRef = Object.freeze({ host: HOST, uuid: UUID_2, index: 2 });
    const { gpus } = analyze([{
      source: 'mixed',
      samples: [
        { ref: frozen0, time: at(0), utilizationPct: 20 },
        { ref: frozen0, time: at(10), utilizationPct: 20 },
        { ref: frozen1, utilizationPct: 90, memoryUsedMiB: 1000, memoryTotalMiB: 81_920 },
        { ref: gpu2, time: at(0), utilizationPct: 70 },
      ],
    }]);
    expect(gpus.map((gpu) => [gpu.uuid, gpu.samples, gpu.utilization?.mean, gpu.memoryTotalMiB])).toEqual([
      [UUID_0, 2, 20, null],
      [UUID_1, 1, 90, 81_920],
      [UUID_2, 1, 70, null],
    ]);
  });
});

describe('IsoTimes', () => {
  it('gives the text of toISOString for instants met again, in turn or not', () => {
    const times = new IsoTimes();
    const instants = [T0, T0, at(60), T0, at(60), at(60), -1, 0];
    expect(instants.map((ms) => times.of(ms))).toEqual(instants.map((ms) => new Date(ms).toISOString()));
  });
});

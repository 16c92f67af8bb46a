/**
 * Idle: the compute signal of the device's basis strictly below idleThresholdPct; the basis
 * follows the ladder sm-active > gr-engine-active > utilization > processes (DESIGN.md section 5).
 */
import { describe, expect, it } from 'vitest';
import type { DeviceRef } from '../../src/model/observations.js';
import { analyze, gpu0, hours, only, samplesAt } from './events.js';

describe('the idle threshold', () => {
  it('is strict: exactly 5 % is busy, 4.99 % is idle', () => {
    // four samples 60 s apart, each stands for 60 s; idle: 4.99 and 0 -> 120 of 240 s
    const gpu = only(analyze([{
      source: 'edge.csv',
      samples: samplesAt(gpu0, [0, 60, 120, 180], [5, 4.99, 0, 5].map((utilizationPct) => ({ utilizationPct }))),
    }]).gpus);
    expect(gpu.idleFraction).toBe(0.5);
    expect(gpu.idleHours).toBeCloseTo(hours(120), 12);
  });

  it('follows the configured threshold', () => {
    // threshold 10: 5, 4.99, 0 and 5 are all idle
    const gpu = only(analyze([{
      source: 'edge.csv',
      samples: samplesAt(gpu0, [0, 60, 120, 180], [5, 4.99, 0, 5].map((utilizationPct) => ({ utilizationPct }))),
    }], 10).gpus);
    expect(gpu.idleFraction).toBe(1);
  });
});

describe('the compute basis ladder', () => {
  const times = [0, 60];

  it('prefers SM activity to utilization (a kernel running is not the SMs being busy)', () => {
    // utilization 80 % says busy; SM active 2 % says idle; sm-active wins
    const gpu = only(analyze([{ source: 'dcgm.prom', samples: samplesAt(gpu0, times, [{ utilizationPct: 80, smActivePct: 2, grEngineActivePct: 30 }]) }]).gpus);
    expect(gpu.computeBasis).toBe('sm-active');
    expect(gpu.idleFraction).toBe(1);
    expect(gpu.utilization!.mean).toBe(80);
    expect(gpu.smActive!.mean).toBe(2);
    expect(gpu.grEngineActive!.mean).toBe(30);
  });

  it('takes GR engine activity next, then utilization, then processes', () => {
    const basisOf = (values: object): string =>
      only(analyze([{ source: 's', samples: samplesAt(gpu0, times, [values]) }]).gpus).computeBasis;
    expect(basisOf({ grEngineActivePct: 1, utilizationPct: 50 })).toBe('gr-engine-active');
    expect(basisOf({ utilizationPct: 50, computeProcessCount: 0 })).toBe('utilization');
    expect(basisOf({ computeProcessCount: 0, memoryUsedMiB: 500 })).toBe('processes');
    expect(basisOf({ memoryUsedMiB: 500 })).toBe('unknown');
  });

  it('has no idle fraction without a signal, and counts no idle hours', () => {
    const gpu = only(analyze([{ source: 's', samples: samplesAt(gpu0, times, [{ memoryUsedMiB: 500 }]) }]).gpus);
    expect(gpu).toMatchObject({ computeBasis: 'unknown', idleFraction: null, idleHours: 0 });
    expect(gpu.gpuHours).toBeCloseTo(hours(120), 12);
  });

  it('measures idleness over the time the signal was read, and counts only that idle time', () => {
    // 0 s: 0 % (idle), 60 s: no utilization, 120 s: 50 %; each 60 s.
    // Utilization read for 120 s, idle 60 s -> idleFraction 0.5, idleHours 60 s of the 180 s observed.
    const gpu = only(analyze([{
      source: 's',
      samples: samplesAt(gpu0, [0, 60, 120], [{ utilizationPct: 0 }, { memoryUsedMiB: 10 }, { utilizationPct: 50 }]),
    }]).gpus);
    expect(gpu.idleFraction).toBe(0.5);
    expect(gpu.idleHours).toBeCloseTo(hours(60), 12);
    expect(gpu.gpuHours).toBeCloseTo(hours(180), 12);
  });
});

describe('MIG', () => {
  const parent: DeviceRef = { host: 'dgx', uuid: 'GPU-aaaaaaaa-0000-0000-0000-000000000001', pciBusId: '00000000:07:00.0', index: 0 };
  const instance = (gpuInstanceId: number): DeviceRef => ({ ...parent, gpuInstanceId });
  const times = [0, 60, 120, 180];
  const profile = analyze([{
    source: 'mig.xml',
    run: (sink) => {
      sink.device({ ref: parent, model: 'NVIDIA A100-SXM4-40GB', memoryTotalMiB: 40960, migMode: 'enabled', pciDeviceId: '20B010DE' });
      sink.device({ ref: instance(1), memoryTotalMiB: 19968, migProfile: '3g.20gb', multiprocessorCount: 42 });
      sink.device({ ref: instance(2), memoryTotalMiB: 9856, migProfile: '2g.10gb' });
    },
    samples: [
      // The parent prints utilization N/A under MIG: it has only memory and its process count.
      ...samplesAt(parent, times, [{ memoryUsedMiB: 13000, computeProcessCount: 1 }, { memoryUsedMiB: 13000, computeProcessCount: 0 }]),
      // Instance 1 always runs a process; instance 2 never does. A stray utilization reading on
      // an instance is not its own (no per-instance utilization exists) and must not decide.
      ...samplesAt(instance(1), times, [{ memoryUsedMiB: 12000, computeProcessCount: 1 }]),
      ...samplesAt(instance(2), times, [{ memoryUsedMiB: 0, computeProcessCount: 0, utilizationPct: 60 }]),
    ],
  }]);
  const [board, gi1, gi2] = profile.gpus;

  it('lists the parent board and then its instances, with UUID/GI ids', () => {
    expect(profile.gpus.map((gpu) => [gpu.id, gpu.parentId])).toEqual([
      [parent.uuid, null],
      [`${parent.uuid}/1`, parent.uuid],
      [`${parent.uuid}/2`, parent.uuid],
    ]);
    expect(gi1).toMatchObject({ migProfile: '3g.20gb', memoryTotalMiB: 19968, model: 'NVIDIA A100-SXM4-40GB', index: 0 });
    expect(profile.deviceFacts.get(`${parent.uuid}/1`)).toEqual({ pciDeviceId: '20B010DE', driverVersion: null, architecture: null, multiprocessorCount: 42 });
  });

  it('takes an instance idleness from its processes', () => {
    expect(gi1).toMatchObject({ computeBasis: 'processes', idleFraction: 0 });
    expect(gi2).toMatchObject({ computeBasis: 'processes', idleFraction: 1 });
    expect(gi2!.idleHours).toBeCloseTo(hours(240), 12);
  });

  it('takes the MIG-enabled parent idleness from its processes when utilization is N/A', () => {
    // process counts 1 0 1 0 over four 60 s samples: idle half the time
    expect(board).toMatchObject({ computeBasis: 'processes', idleFraction: 0.5, utilization: null, migMode: 'enabled' });
  });

  it('gives each instance its own hours', () => {
    for (const gpu of profile.gpus) expect(gpu.gpuHours).toBeCloseTo(hours(240), 12);
  });
});

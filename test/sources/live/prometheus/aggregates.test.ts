/**
 * analysis/aggregates.ts: the analysis entry point for pushed-down aggregates (the Prometheus
 * source's output), tested here beside its only producer.
 */
import { describe, expect, it } from 'vitest';
import { gpuEntriesFromAggregates, hourOfWeekProfile } from '../../../../src/analysis/aggregates.js';
import type { DeviceAggregates } from '../../../../src/model/index.js';
import { MAX_CONTAINERS_PER_DEVICE } from '../../../../src/analysis/pod-assignments.js';

const MONDAY = Date.parse('2026-11-02T00:00:00Z');
const H = 3_600_000;
const window = { startMs: MONDAY, endMs: MONDAY + 26 * H };

const h100: DeviceAggregates = {
  ref: { host: 'node-1', uuid: 'GPU-h100', index: 0 },
  model: 'NVIDIA H100 80GB HBM3',
  memoryTotalMiB: 81_559,
  percent: { utilizationPct: { mean: 57.6, p50: 94, p95: 100, max: 100 } },
  memoryUsedMiB: { mean: 44_655, p95: 72_776, max: 72_788 },
  idle: { utilization: { observedSeconds: 93_900, idleSeconds: 36_300 } },
  observedSeconds: 93_900,
  samples: 312,
  firstSeenMs: MONDAY,
  lastSeenMs: MONDAY + 26 * H - 116_000,
  hourlyComputePct: { startMs: MONDAY, values: [0, 50, null] },
  timeline: { startMs: MONDAY, bucketSeconds: 240, computeMeanPct: [0, null, 50], memoryUsedMaxMiB: [1, 1, 72_788] },
};

const migInstance: DeviceAggregates = {
  ref: { host: 'node-2', uuid: 'GPU-a100', index: 1, gpuInstanceId: 3 },
  model: 'NVIDIA A100-SXM4-80GB',
  migProfile: '2g.20gb',
  memoryTotalMiB: 19_968,
  percent: {},
  memoryUsedMiB: { mean: 4_420, p95: 14_453, max: 14_508 },
  idle: {},
  observedSeconds: 93_600,
  samples: 312,
  firstSeenMs: MONDAY + 2_000,
  lastSeenMs: MONDAY + 26 * H - 226_000,
};

describe('GPU entries from aggregates', () => {
  const { gpus, window: reportWindow } = gpuEntriesFromAggregates([migInstance, h100], { timeZone: 'UTC', window });

  it('takes figures as given and derives the rest as the streaming analysis does', () => {
    expect(gpus.map((gpu) => gpu.id)).toEqual(['GPU-h100', 'GPU-a100', 'GPU-a100/3']);
    const [gpu] = gpus;
    expect(gpu).toMatchObject({
      host: 'node-1', index: 0, uuid: 'GPU-h100', model: 'NVIDIA H100 80GB HBM3', modelKey: 'unknown',
      computeBasis: 'utilization',
      // 36,300 / 93,900 s idle; 36,300 s = 10.083 h; 93,900 s = 26.083 h
      idleFraction: 36_300 / 93_900,
      idleHours: 36_300 / 3600,
      gpuHours: 93_900 / 3600,
      // 81,559 - 72,788 = 8,771 MiB = 10.75 % of the board
      vramHeadroomMiB: 8_771,
      vramHeadroomPct: (8_771 / 81_559) * 100,
      firstSeen: '2026-11-02T00:00:00.000Z',
      processes: [],
    });
    expect(gpu!.hourOfWeekComputePct!.slice(0, 3)).toEqual([0, 50, null]);
    expect(gpu!.timeline).toEqual({ start: '2026-11-02T00:00:00.000Z', bucketSeconds: 240, computeMeanPct: [0, null, 50], memoryUsedMaxMiB: [1, 1, 72_788] });
  });

  it('gives a MIG instance without series of its board a parent that exists because it does', () => {
    const [, parent, instance] = gpus;
    expect(parent).toMatchObject({ id: 'GPU-a100', parentId: null, migMode: 'enabled', samples: 0, gpuHours: 93_600 / 3600, utilization: null });
    // No DCGM activity and no utilization under MIG: idleness unknown, never guessed.
    expect(instance).toMatchObject({ parentId: 'GPU-a100', migProfile: '2g.20gb', computeBasis: 'unknown', idleFraction: null, idleHours: 0, timeline: null, hourOfWeekComputePct: null });
  });

  it('spans the report window from the first to the last sample seen', () => {
    expect(reportWindow).toEqual({ startMs: MONDAY, endMs: MONDAY + 26 * H - 116_000, seconds: (26 * H - 116_000) / 1000 });
  });
});

describe('hour-of-week profile', () => {
  it('puts each hour in its slot in the report time zone and averages the weeks', () => {
    // Two Mondays 00:00 UTC one week apart: 10 and 30 average to 20 in slot 0.
    const values = new Array<number | null>(169).fill(null);
    values[0] = 10;
    values[168] = 30;
    expect(hourOfWeekProfile({ startMs: MONDAY, values }, 'UTC')![0]).toBe(20);
    // In New York (UTC-5 in November) Monday 00:00 UTC is Sunday 19:00: slot 6 x 24 + 19 = 163.
    const inNewYork = hourOfWeekProfile({ startMs: MONDAY, values }, 'America/New_York')!;
    expect(inNewYork[163]).toBe(20);
    expect(inNewYork.filter((value) => value !== null)).toHaveLength(1);
  });

  it('is null without any observed hour', () => {
    expect(hourOfWeekProfile(undefined, 'UTC')).toBeNull();
    expect(hourOfWeekProfile({ startMs: MONDAY, values: [null, null] }, 'UTC')).toBeNull();
  });
});

describe('pod assignments from aggregates', () => {
  const pod = (name: string, steps: number) => ({ namespace: 'ml', pod: name, container: 'main', steps, firstSeenMs: MONDAY, lastSeenMs: MONDAY + steps * 60_000 });

  it('files the pods of each device under its report id, MIG instances under board/GI', () => {
    const devices = [{ ...h100, pods: [pod('trainer-0', 120)] }, { ...migInstance, pods: [{ ...pod('notebook', 30), container: undefined }] }];
    const { podAssignments: assignments } = gpuEntriesFromAggregates(devices, { timeZone: 'UTC', window });
    expect([...assignments.keys()]).toEqual(['GPU-h100', 'GPU-a100/3']);
    expect(assignments.get('GPU-h100')).toEqual([
      { namespace: 'ml', pod: 'trainer-0', container: 'main', firstSeenMs: MONDAY, lastSeenMs: MONDAY + 120 * 60_000, samples: 120 },
    ]);
    expect(assignments.get('GPU-a100/3')![0]!.container).toBeNull(); // no container label: null, as from files
  });

  it('files the pods of a series that names its board by fewer labels under that board', () => {
    // The same board seen once by uuid and index, once by uuid alone: one entry, and both series' pods on it
    // (trainer-0 through both: once, with the most steps).
    const byUuid: DeviceAggregates = { ...h100, ref: { host: 'node-1', uuid: 'GPU-h100' }, pods: [pod('sidecar', 10), pod('trainer-0', 100)] };
    const { gpus, podAssignments } = gpuEntriesFromAggregates([{ ...h100, pods: [pod('trainer-0', 120)] }, byUuid], { timeZone: 'UTC', window });
    expect(gpus.map((gpu) => gpu.id)).toEqual(['GPU-h100']);
    expect(podAssignments.get('GPU-h100')!.map((assignment) => [assignment.pod, assignment.samples])).toEqual([['trainer-0', 120], ['sidecar', 10]]);
  });

  it(`keeps the ${MAX_CONTAINERS_PER_DEVICE} seen longest, in the producer's order`, () => {
    // 66 pods: pod-0 holds the GPU 1 step, pod-1 2 steps ... pod-65 66 steps; the two shortest go.
    const pods = Array.from({ length: MAX_CONTAINERS_PER_DEVICE + 2 }, (_, index) => pod(`pod-${index}`, index + 1));
    const devices = [{ ...h100, pods }];
    const kept = gpuEntriesFromAggregates(devices, { timeZone: 'UTC', window }).podAssignments.get('GPU-h100')!;
    expect(kept).toHaveLength(MAX_CONTAINERS_PER_DEVICE);
    expect(kept.map((record) => record.pod)).toEqual(pods.slice(2).map((record) => record.pod));
  });
});

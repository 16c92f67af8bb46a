/** A GpuEntry with every figure spelled out, for tests of functions that read entries only. */
import type { GpuEntry } from '../../src/model/report.js';

export function gpuEntry(overrides: Partial<GpuEntry> & Pick<GpuEntry, 'id'>): GpuEntry {
  return {
    host: 'node-a',
    index: 0,
    uuid: overrides.id,
    pciBusId: null,
    model: 'NVIDIA A10G',
    modelKey: 'unknown',
    memoryTotalMiB: 23028,
    migMode: null,
    parentId: null,
    migProfile: null,
    instanceType: null,
    instanceTypeBasis: null,
    utilization: { mean: 50, p50: 50, p95: 90, max: 100 },
    smActive: null,
    tensorActive: null,
    grEngineActive: null,
    computeBasis: 'utilization',
    memoryUsedMiB: { mean: 15000, p95: 20000, max: 21000 },
    vramHeadroomMiB: 2028,
    vramHeadroomPct: (2028 / 23028) * 100,
    idleFraction: 0,
    idleHours: 0,
    gpuHours: 100,
    samples: 6000,
    firstSeen: '2026-01-01T00:00:00.000Z',
    lastSeen: '2026-01-05T04:00:00.000Z',
    processes: [],
    hourlyCostUsd: null,
    timeline: null,
    hourOfWeekComputePct: null,
    ...overrides,
  };
}

import { describe, expect, it } from 'vitest';
import type { WorkloadDefinition } from '../../src/analysis/workloads/index.js';
import type { GpuEntry, WorkloadEntry } from '../../src/model/report.js';
import { demandUnitsFromWorkloads } from '../../src/recommend/workload-units.js';

function gpu(id: string, overrides: Partial<GpuEntry> = {}): GpuEntry {
  return {
    id, host: 'node-1', index: 0, uuid: null, pciBusId: null, model: 'NVIDIA H200', modelKey: 'h200-sxm-141gb', memoryTotalMiB: 143771, migMode: 'disabled', parentId: null, migProfile: null,
    instanceType: 'p5en.48xlarge', instanceTypeBasis: 'config', utilization: { mean: 4, p50: 0, p95: 40, max: 80 }, smActive: null, tensorActive: null, grEngineActive: null,
    computeBasis: 'utilization', memoryUsedMiB: { mean: 60000, p95: 60000, max: 60000 }, vramHeadroomMiB: null, vramHeadroomPct: null, idleFraction: 0.8, idleHours: 20.8, gpuHours: 26,
    samples: 312, firstSeen: null, lastSeen: null, processes: [{ pid: 1, name: 'python3 -m vllm.entrypoints.openai.api_server', type: 'C', maxMemoryMiB: 60000, samples: 312 }],
    hourlyCostUsd: 7.912, timeline: null, hourOfWeekComputePct: null,
    ...overrides,
  };
}

function workload(name: string, gpus: string[], overrides: Partial<WorkloadEntry> = {}): WorkloadEntry {
  return {
    name, kind: 'inference', gpus,
    vram: { peakMiB: 60000, p95MiB: 60000, requiredMiB: 40000, basis: 'estimated', preallocating: true },
    compute: { basis: 'utilization', mean: 4, p95: 40, busyFraction: 0.2 },
    cpuPipeline: { verdict: 'unknown', evidence: [] }, sidecars: { cpuCores: null, memoryMiB: null, overheadPct: null }, cost: { hourlyUsd: 7.912, wasteHourlyUsd: null },
    tenant: 'product-a',
    ...overrides,
  };
}

const chat: WorkloadDefinition = {
  name: 'chat', kind: 'inference', match: {},
  slo: { p95Ms: 800 }, throughputPerGpu: { value: 2400, unit: 'tokens/s' }, peakDemand: { value: 6000, unit: 'tokens/s' },
};

describe('demand units from workload profiles', () => {
  it('carries the config facts the recommenders need: tenant, SLO, throughput, peak demand', () => {
    const [unit] = demandUnitsFromWorkloads([workload('chat', ['g0'])], [chat], [gpu('g0')], 0.15);
    expect(unit).toMatchObject({ id: 'chat', gpuIds: ['g0'], tenant: 'product-a', kind: 'inference', hourlyUsdPerGpu: 7.912 });
    expect(unit!.serving).toEqual({ unit: 'tokens/s', perGpuThroughputPerSecond: 2400, peakDemandPerSecond: 6000, latencySloMs: 800, coldStartSeconds: null, rampPerMinute: null, measured: null, autoscaling: null });
  });

  it('does not compare throughput and demand given in different units', () => {
    const mixed = { ...chat, peakDemand: { value: 9, unit: 'requests/s' as const } };
    const [unit] = demandUnitsFromWorkloads([workload('chat', ['g0'])], [mixed], [gpu('g0')], 0.15);
    expect(unit!.serving).toMatchObject({ perGpuThroughputPerSecond: null, peakDemandPerSecond: null, latencySloMs: 800 });
  });

  it('converts checkpoint minutes to seconds', () => {
    const train: WorkloadDefinition = { name: 'train', kind: 'training', match: {}, checkpoint: { intervalMinutes: 120, restoreMinutes: 12 } };
    const [unit] = demandUnitsFromWorkloads([workload('train', ['g0'], { kind: 'training' })], [train], [gpu('g0')], 0.15);
    expect(unit!.checkpoint).toEqual({ intervalSeconds: 7200, restoreSeconds: 720 });
  });

  it('sizes at the measured peak at least, unless the server preallocates (its peak is its allocation)', () => {
    const measured = workload('batch', ['g0'], { vram: { peakMiB: 60000, p95MiB: 58000, requiredMiB: 50000, basis: 'declared', preallocating: false } });
    expect(demandUnitsFromWorkloads([measured], [], [gpu('g0')], 0.15)[0]!.vram.requiredMiB).toBe(60000);
    expect(demandUnitsFromWorkloads([workload('chat', ['g0'])], [], [gpu('g0')], 0.15)[0]!.vram.requiredMiB).toBe(40000);
  });

  it('falls back to per-GPU units for shared GPUs and for GPUs no workload holds; never a unit for `unassigned`', () => {
    const shared = workload('a', ['g0'], { sharedGpus: ['g0'] });
    const unassigned = workload('unassigned', ['g1']);
    const units = demandUnitsFromWorkloads([shared, unassigned], [], [gpu('g0'), gpu('g1')], 0.15);
    expect(units.map((unit) => unit.id)).toEqual(['g0', 'g1']);
  });
});

import { describe, expect, it } from 'vitest';
import type { GpuEntry } from '../../src/model/report.js';
import { demandUnitsFromGpus, kindFromProcesses, vramProfileOf } from '../../src/recommend/demand-units.js';

function gpu(overrides: Partial<GpuEntry> & { id: string }): GpuEntry {
  return {
    host: 'node-1', index: 0, uuid: null, pciBusId: null, model: 'NVIDIA H200', modelKey: 'h200-sxm-141gb', memoryTotalMiB: 143771, migMode: 'disabled', parentId: null, migProfile: null,
    instanceType: 'p5en.48xlarge', instanceTypeBasis: 'inferred', utilization: { mean: 4, p50: 0, p95: 40, max: 80 }, smActive: null, tensorActive: null, grEngineActive: null,
    computeBasis: 'utilization', memoryUsedMiB: { mean: 62418, p95: 62418, max: 62418 }, vramHeadroomMiB: null, vramHeadroomPct: null, idleFraction: 0.85, idleHours: 22, gpuHours: 26,
    samples: 312, firstSeen: null, lastSeen: null, processes: [], hourlyCostUsd: 7.912, timeline: null, hourOfWeekComputePct: null,
    ...overrides,
  };
}

describe('demand units from GPUs (the fallback before workload profiles)', () => {
  it('takes the required VRAM as peak x 1.15 for measured use', () => {
    // 10,000 x 1.15 = 11,500 MiB.
    expect(vramProfileOf(10000, 9000, false, 0.15)).toEqual({ peakMiB: 10000, p95MiB: 9000, requiredMiB: 11500, basis: 'measured' });
  });

  it('takes the peak itself, never less, for a preallocating server, and marks it an upper bound', () => {
    const [unit] = demandUnitsFromGpus([gpu({ id: 'g0', processes: [{ pid: 1, name: '/usr/bin/python3 -m vllm.entrypoints.openai.api_server', type: 'C', maxMemoryMiB: 62412, samples: 312 }] })], 0.15);
    expect(unit!.vram).toEqual({ peakMiB: 62418, p95MiB: 62418, requiredMiB: 62418, basis: 'upper-bound' });
    expect(unit!.kind).toBe('inference');
    expect(unit!.compute).toEqual({ basis: 'utilization', meanPct: 4, p95Pct: 40, busyFraction: 0.15000000000000002, bound: 'unknown' });
  });

  it('reads the workload kind from process names', () => {
    expect(kindFromProcesses(['python3 -m ipykernel_launcher -f kernel.json'])).toBe('interactive');
    expect(kindFromProcesses(['python3 /workspace/train.py'])).toBe('training');
    expect(kindFromProcesses(['/opt/tritonserver/bin/tritonserver'])).toBe('inference');
    expect(kindFromProcesses(['python3 /srv/jobs/embed_batch.py'])).toBe('batch');
    expect(kindFromProcesses(['blender'])).toBe('unknown');
  });

  it('makes one unit per MIG device of a MIG-enabled GPU, priced and keyed through its parent', () => {
    const parent = gpu({ id: 'P', migMode: 'enabled', modelKey: 'a100-sxm4-80gb', hourlyCostUsd: 3.43 });
    const child = gpu({ id: 'P/2', parentId: 'P', migProfile: '3g.40gb', modelKey: 'unknown', hourlyCostUsd: null, computeBasis: 'processes', utilization: null });
    const units = demandUnitsFromGpus([parent, child], 0.15);
    expect(units.map((unit) => [unit.id, unit.gpuIds, unit.modelKey, unit.hourlyUsdPerGpu, unit.migProfile])).toEqual([['P/2', ['P'], 'a100-sxm4-80gb', 3.43, '3g.40gb']]);
  });
});

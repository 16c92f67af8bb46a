/**
 * Workload profiles from priced GPU entries: VRAM need and its basis, compute over several
 * devices, and cost and waste in dollars worked out by hand (monthly = 730 h).
 */
import { describe, expect, it } from 'vitest';
import { deviceHourlyCosts, profileWorkloads, type WorkloadDefinition } from '../../../src/analysis/workloads/index.js';
import type { ProcessSummary } from '../../../src/model/report.js';
import { gpuEntry } from '../gpu-fixtures.js';

const process = (pid: number, name: string, maxMemoryMiB: number | null): ProcessSummary => ({ pid, name, type: 'C', maxMemoryMiB, samples: 10 });

const define = (name: string, rest: Partial<WorkloadDefinition> = {}): WorkloadDefinition => ({ name, kind: 'inference', match: { gpus: [`GPU-${name}`] }, ...rest });

describe('workload cost and waste', () => {
  // One GPU at $4.00/h, 80,000 MiB, idle 25% of the time, the workload alone on it with a 40,000 MiB peak.
  const gpu = gpuEntry({
    id: 'GPU-svc',
    hourlyCostUsd: 4,
    idleFraction: 0.25,
    memoryTotalMiB: 80_000,
    memoryUsedMiB: { mean: 30_000, p95: 38_000, max: 40_000 },
    processes: [process(1, 'python3 serve.py', 39_990)],
  });

  it('prices idle time and unneeded memory', () => {
    const [entry] = profileWorkloads([gpu], [define('svc')]);
    // required  = 40,000 x 1.15 = 46,000 MiB (measured)
    // hourly    = $4.00;            monthly = 4 x 730 = $2,920
    // idle      = 4 x 0.25 = $1.00/h;                   monthly $730
    // VRAM      = 4 x (1 - 0.25) x (1 - 46,000 / 80,000) = 4 x 0.75 x 0.425 = $1.275/h; monthly $930.75
    // waste     = 1.00 + 1.275 = $2.275/h;               monthly $1,660.75
    expect(entry!.vram).toMatchObject({ peakMiB: 40_000, p95MiB: 38_000, basis: 'measured', preallocating: false });
    expect(entry!.vram.requiredMiB).toBeCloseTo(46_000, 9);
    expect(entry!.cost.hourlyUsd).toBe(4);
    expect(entry!.cost.wasteHourlyUsd).toBeCloseTo(2.275, 12);
    expect(entry!.cost.monthlyUsd).toBe(2920);
    expect(entry!.cost.monthlyWasteUsd).toBeCloseTo(1660.75, 9);
    expect(entry!.cost.wasteBreakdown!.idleMonthlyUsd).toBeCloseTo(730, 9);
    expect(entry!.cost.wasteBreakdown!.vramOverprovisionMonthlyUsd).toBeCloseTo(930.75, 9);
  });

  it('charges no VRAM waste once the need fills the GPU, and all of an idle GPU as idle waste', () => {
    const full = gpuEntry({ ...gpu, memoryUsedMiB: { mean: 75_000, p95: 76_000, max: 76_000 } });
    const [busy] = profileWorkloads([full], [define('svc')]);
    // 76,000 x 1.15 = 87,400 MiB > 80,000: max(0, 1 - 87,400 / 80,000) = 0
    expect(busy!.cost.wasteBreakdown!.vramOverprovisionMonthlyUsd).toBe(0);
    const idle = gpuEntry({ ...gpu, idleFraction: 1 });
    const [unused] = profileWorkloads([idle], [define('svc')]);
    // idle 4 x 1 = $4/h = $2,920/month; VRAM 4 x (1 - 1) x 0.425 = 0
    expect(unused!.cost.wasteBreakdown).toEqual({ idleMonthlyUsd: 2920, vramOverprovisionMonthlyUsd: 0 });
  });

  it('splits a shared GPU\'s cost and idle waste by the processes\' memory, and charges no VRAM waste on it', () => {
    const shared = gpuEntry({ ...gpu, processes: [process(1, 'python3 a.py', 30_000), process(2, 'python3 b.py', 10_000)] });
    const [a, b] = profileWorkloads([shared], [
      { name: 'a', kind: 'batch', match: { process: 'a\\.py' } },
      { name: 'b', kind: 'batch', match: { process: 'b\\.py' } },
    ]);
    // shares 30,000 / 40,000 = 0.75 and 0.25: hourly $3 and $1; idle waste 3 x 0.25 = $0.75/h and $0.25/h
    expect([a!.cost.hourlyUsd, b!.cost.hourlyUsd]).toEqual([3, 1]);
    expect([a!.cost.wasteHourlyUsd, b!.cost.wasteHourlyUsd]).toEqual([0.75, 0.25]);
    expect(a!.sharedGpus).toEqual(['GPU-svc']);
    // A's peak on a shared GPU is its own processes' memory: 30,000 MiB, no p95.
    expect([a!.vram.peakMiB, a!.vram.p95MiB]).toEqual([30_000, null]);
    // gpuHours 100 x 0.75 = 75
    expect(a!.gpuHours).toBe(75);
  });

  it('leaves cost null rather than a partial sum when a device has no price', () => {
    const unpriced = gpuEntry({ id: 'GPU-svc-2', hourlyCostUsd: null });
    const [entry] = profileWorkloads([gpu, unpriced], [{ name: 'svc', kind: 'inference', match: { gpus: ['GPU-svc', 'GPU-svc-2'] } }]);
    expect(entry!.cost).toMatchObject({ hourlyUsd: null, wasteHourlyUsd: null, monthlyUsd: null, monthlyWasteUsd: null });
  });
});

describe('VRAM need', () => {
  const vllm = gpuEntry({
    id: 'GPU-chat',
    hourlyCostUsd: 8,
    idleFraction: 0.5,
    memoryTotalMiB: 143_771,
    memoryUsedMiB: { mean: 62_418, p95: 62_418, max: 62_418 },
    processes: [process(2714, '/usr/bin/python3 -m vllm.entrypoints.openai.api_server', 62_412)],
  });

  it('takes a preallocating server\'s memory as an upper bound when nothing else is known', () => {
    const [entry] = profileWorkloads([vllm], [define('chat')]);
    // 62,418 x 1.15 = 71,780.7 MiB, basis upper-bound
    expect(entry!.vram).toMatchObject({ basis: 'upper-bound', preallocating: true, preallocatingServer: 'vLLM', estimate: null });
    expect(entry!.vram.requiredMiB).toBeCloseTo(71_780.7, 9);
  });

  it('sizes a preallocating server by its model estimate, not by what it reserved', () => {
    const model = { parameters: 8.03e9, dtype: 'bf16', layers: 32, kvHeads: 8, headDim: 128, contextTokens: 8192, concurrency: 16 } as const;
    const [entry] = profileWorkloads([vllm], [define('chat', { model })]);
    // weights 8.03e9 x 2 B = 16,060,000,000 B = 15,316.009521484375 MiB
    // KV 2 x 32 x 8 x 128 x 2 B = 131,072 B per token x 131,072 tokens = 16,384 MiB
    // overhead 1,024 + 1,531.6009521484375 = 2,555.6009521484375 MiB
    // need 34,255.61047363281 MiB; required x 1.15 = 39,393.95204467773 MiB
    expect(entry!.vram.basis).toBe('estimated');
    expect(entry!.vram.estimate!.totalMiB).toBeCloseTo(34_255.61047363281, 6);
    expect(entry!.vram.requiredMiB).toBeCloseTo(39_393.95204467773, 6);
    // VRAM waste: 8 x (1 - 0.5) x (1 - 39,393.952 / 143,771) = 4 x 0.72599... = $2.9040/h
    expect(entry!.cost.wasteBreakdown!.vramOverprovisionMonthlyUsd).toBeCloseTo(4 * (1 - 39_393.95204467773 / 143_771) * 730, 6);
  });

  it('takes the larger of measured peak and declared need, and says which', () => {
    const plain = gpuEntry({ id: 'GPU-job', memoryUsedMiB: { mean: 10_000, p95: 12_000, max: 12_000 }, processes: [process(1, 'python3 job.py', 12_000)] });
    const [declaredWins] = profileWorkloads([plain], [define('job', { vramMiB: 20_000 })]);
    expect(declaredWins!.vram).toMatchObject({ basis: 'declared', declaredMiB: 20_000 });
    expect(declaredWins!.vram.requiredMiB).toBeCloseTo(23_000, 9); // 20,000 x 1.15
    const [measuredWins] = profileWorkloads([plain], [define('job', { vramMiB: 8_000 })], { vramHeadroomPct: 25 });
    expect(measuredWins!.vram).toMatchObject({ basis: 'measured', requiredMiB: 15_000, headroomPct: 25 }); // 12,000 x 1.25
  });

  it('says unknown when no memory was measured and nothing was declared', () => {
    const blind = gpuEntry({ id: 'GPU-x', memoryUsedMiB: null, processes: [] });
    const [entry] = profileWorkloads([blind], [define('x')]);
    expect(entry!.vram).toMatchObject({ peakMiB: null, requiredMiB: null, basis: 'unknown' });
  });
});

describe('compute over several devices', () => {
  const a = gpuEntry({ id: 'GPU-a', gpuHours: 10, idleFraction: 0.2, utilization: { mean: 60, p50: 60, p95: 90, max: 100 } });
  const b = gpuEntry({ id: 'GPU-b', gpuHours: 30, idleFraction: 0.6, utilization: { mean: 20, p50: 10, p95: 50, max: 80 } });
  const both = { name: 'w', kind: 'training', match: { gpus: ['GPU-a', 'GPU-b'] } };

  it('weighs each device by its GPU-hours, and takes the highest p95', () => {
    const [entry] = profileWorkloads([a, b], [both]);
    // mean (60 x 10 + 20 x 30) / 40 = 30; idle (0.2 x 10 + 0.6 x 30) / 40 = 0.5; p95 max(90, 50) = 90
    expect(entry!.compute).toMatchObject({ basis: 'utilization', mean: 30, p95: 90, idleFraction: 0.5, busyFraction: 0.5 });
    expect(entry!.compute.signals).toEqual({ smActivePct: null, tensorActivePct: null, grEngineActivePct: null, utilizationPct: 30 });
  });

  it('falls to the weakest basis among its devices', () => {
    const byProcesses = gpuEntry({ ...b, computeBasis: 'processes', utilization: null });
    const [entry] = profileWorkloads([a, byProcesses], [both]);
    expect(entry!.compute).toMatchObject({ basis: 'processes', mean: null, p95: null, busyFraction: 0.5 });
  });

  it('combines the devices\' hour-of-week profiles hour by hour', () => {
    const week = (value: number | null) => Array.from({ length: 168 }, (_, hour) => (hour === 0 ? value : 10));
    const [entry] = profileWorkloads([{ ...a, hourOfWeekComputePct: week(80) }, { ...b, hourOfWeekComputePct: week(null) }], [both]);
    // hour 0: only A observed -> 80; other hours (10 x 10 + 10 x 30) / 40 = 10
    expect(entry!.compute.hourOfWeekPct).toHaveLength(168);
    expect(entry!.compute.hourOfWeekPct![0]).toBe(80);
    expect(entry!.compute.hourOfWeekPct![1]).toBe(10);
  });

  it('fills the CPU pipeline and sidecars as unknown', () => {
    const [entry] = profileWorkloads([a], [both]);
    expect(entry!.cpuPipeline).toEqual({ verdict: 'unknown', evidence: ['no CPU metrics in the inputs'] });
    expect(entry!.sidecars).toEqual({ cpuCores: null, memoryMiB: null, overheadPct: null });
  });
});

describe('listing', () => {
  it('lists every configured workload, also one that matched nothing, and unassigned last', () => {
    const gpus = [gpuEntry({ id: 'GPU-1', processes: [process(1, 'python3 x.py', 100)] })];
    const entries = profileWorkloads(gpus, [define('missing'), { name: 'other', kind: 'batch', tenant: 'team-b', version: '2', match: { process: 'nothing' } }]);
    expect(entries.map((entry) => [entry.name, entry.kind, entry.gpus])).toEqual([
      ['missing', 'inference', []],
      ['other', 'batch', []],
      ['unassigned', 'unknown', ['GPU-1']],
    ]);
    expect(entries[1]).toMatchObject({ tenant: 'team-b', version: '2', gpuHours: 0 });
    expect(entries[0]!.cost.hourlyUsd).toBeNull();
  });
});

describe('deviceHourlyCosts', () => {
  it('splits a MIG board\'s price by compute slices: 3g + 2g + 1g + 1g of $7/h = $3, $2, $1, $1', () => {
    const board = gpuEntry({ id: 'GPU-m', hourlyCostUsd: 7, migMode: 'enabled' });
    const children = ['3g.40gb', '2g.20gb', '1g.10gb', '1g.10gb'].map((migProfile, index) =>
      gpuEntry({ id: `GPU-m/${index}`, parentId: 'GPU-m', migProfile, hourlyCostUsd: null }));
    const costs = deviceHourlyCosts([board, ...children]);
    expect(children.map((child) => costs.get(child.id))).toEqual([3, 2, 1, 1]);
  });

  it('gives instances the whole board even when slices are left unpartitioned, equally where a profile is unknown', () => {
    const board = gpuEntry({ id: 'GPU-m', hourlyCostUsd: 3.4, migMode: 'enabled' });
    const halves = ['3g.40gb', '3g.40gb'].map((migProfile, index) => gpuEntry({ id: `GPU-m/${index}`, parentId: 'GPU-m', migProfile }));
    expect(halves.map((child) => deviceHourlyCosts([board, ...halves]).get(child.id))).toEqual([1.7, 1.7]);
    const unknown = [gpuEntry({ id: 'GPU-m/1', parentId: 'GPU-m', migProfile: '3g.40gb' }), gpuEntry({ id: 'GPU-m/2', parentId: 'GPU-m', migProfile: null })];
    expect(unknown.map((child) => deviceHourlyCosts([board, ...unknown]).get(child.id))).toEqual([1.7, 1.7]);
  });
});

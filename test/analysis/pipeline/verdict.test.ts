/**
 * The CPU pipeline verdict: a rule table over GPU compute and CPU figures. GPU idleness only
 * ever comes from GPU signals.
 */
import { describe, expect, it } from 'vitest';
import { CpuUsageTable } from '../../../src/analysis/pipeline/cpu-usage.js';
import { pipelineVerdict, type PipelineFigures } from '../../../src/analysis/pipeline/verdict.js';

const T0 = 1_700_000_000_000;
const base: PipelineFigures = { gpuBusyPct: 20, gpuComputeBasis: 'sm-active', idleThresholdPct: 5 };

/** An 8-core host whose CPUs spent `busySeconds` of 10 s in user mode and the rest idle. */
function hostOf8Cores(busySeconds: number): { busyFraction: number; cores: number } {
  const table = new CpuUsageTable();
  for (let cpu = 0; cpu < 8; cpu += 1) {
    table.hostCpu({ host: 'h', time: T0, cpu: String(cpu), mode: 'user', secondsTotal: 100 });
    table.hostCpu({ host: 'h', time: T0, cpu: String(cpu), mode: 'idle', secondsTotal: 100 });
    table.hostCpu({ host: 'h', time: T0 + 10_000, cpu: String(cpu), mode: 'user', secondsTotal: 100 + busySeconds });
    table.hostCpu({ host: 'h', time: T0 + 10_000, cpu: String(cpu), mode: 'idle', secondsTotal: 100 + 10 - busySeconds });
  }
  const [host] = table.hosts();
  return { busyFraction: host!.busyFraction, cores: host!.cores };
}

describe('acceptance', () => {
  it('input-bound: GPU 20% busy while 8 of 8 cores are saturated', () => {
    // Each core: user +10 s, idle +0 s in 10 s -> busy = 1 - 0 / 80 = 1.0 (8.0 of 8 cores).
    const host = hostOf8Cores(10);
    expect(host).toEqual({ busyFraction: 1, cores: 8 });
    const judgement = pipelineVerdict({ ...base, hostCpuBusyFraction: host.busyFraction, hostCores: host.cores });
    expect(judgement.verdict).toBe('input-bound');
    expect(judgement.evidence).toContain('GPU 20% busy (sm-active)');
    expect(judgement.evidence).toContain('host CPU 100% busy (8.0 of 8 cores)');
  });

  it('gpu-bound: GPU 95% busy while the CPU is 30% busy', () => {
    // Each core: user +3 s, idle +7 s -> busy = 1 - 56 / 80 = 0.3 (2.4 of 8 cores).
    const host = hostOf8Cores(3);
    expect(host.busyFraction).toBeCloseTo(0.3, 12);
    const judgement = pipelineVerdict({ ...base, gpuBusyPct: 95, hostCpuBusyFraction: host.busyFraction, hostCores: 8 });
    expect(judgement.verdict).toBe('gpu-bound');
    expect(judgement.evidence).toEqual(['GPU at least 80% busy', 'GPU 95% busy (sm-active)', 'host CPU 30% busy (2.4 of 8 cores)']);
  });
});

describe('rules', () => {
  it('an idle GPU beside a saturated CPU is idle, never input-bound', () => {
    const judgement = pipelineVerdict({ ...base, gpuBusyPct: 2, hostCpuBusyFraction: 1, hostCores: 8, containerThrottledFraction: 0.9 });
    expect(judgement.verdict).toBe('idle');
    expect(judgement.evidence[0]).toBe('GPU below the 5% idle threshold: nothing is being fed');
  });

  it('without a GPU compute figure the verdict is unknown, whatever the CPU says', () => {
    expect(pipelineVerdict({ ...base, gpuBusyPct: null, gpuComputeBasis: 'unknown', hostCpuBusyFraction: 1 }).verdict).toBe('unknown');
  });

  it('without CPU figures a lightly used GPU is unknown', () => {
    const judgement = pipelineVerdict(base);
    expect(judgement).toEqual({ verdict: 'unknown', evidence: ['no CPU metrics for the workload\'s hosts or containers', 'GPU 20% busy (sm-active)'] });
  });

  it('a throttled container makes a lightly used GPU input-bound even on a quiet host', () => {
    // Container throttled in 300 of 1000 CFS periods = 30% >= 25%; host only 40% busy.
    const judgement = pipelineVerdict({ ...base, gpuBusyPct: 35, hostCpuBusyFraction: 0.4, containerThrottledFraction: 300 / 1000 });
    expect(judgement.verdict).toBe('input-bound');
    expect(judgement.evidence).toContain('container CPU throttled in 30% of CFS periods');
  });

  it('throttling just under 25% with a host under 90% is not saturation', () => {
    expect(pipelineVerdict({ ...base, gpuBusyPct: 35, hostCpuBusyFraction: 0.89, containerThrottledFraction: 0.24 }).verdict).toBe('unknown');
  });

  it('high PCIe receive with a lightly used GPU is input-bound without CPU figures', () => {
    // 5 GiB/s = 5 x 1024 x 1024 KiB/s >= 4 GiB/s.
    const judgement = pipelineVerdict({ ...base, gpuBusyPct: 30, pcieRxKiBps: 5 * 1024 * 1024 });
    expect(judgement.verdict).toBe('input-bound');
    expect(judgement.evidence).toContain('PCIe receive 5.00 GiB/s');
  });

  it('a moderately busy GPU beside an unsaturated CPU is gpu-bound; beside a saturated one, unknown', () => {
    expect(pipelineVerdict({ ...base, gpuBusyPct: 60, hostCpuBusyFraction: 0.5 }).verdict).toBe('gpu-bound');
    expect(pipelineVerdict({ ...base, gpuBusyPct: 60, hostCpuBusyFraction: 0.95 }).verdict).toBe('unknown');
  });
});

/**
 * The CPU pipeline verdict: a rule table over GPU compute and CPU figures. GPU idleness only
 * ever comes from GPU signals.
 */
import { describe, expect, it } from 'vitest';
import { CpuUsageTable } from '../../../src/analysis/cpu-pipeline/cpu-usage.js';
import { pipelineVerdict, type PipelineFigures } from '../../../src/analysis/cpu-pipeline/verdict.js';

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

  it('high PCIe receive with a lightly used GPU is input-bound without CPU figures (link not reported: 4096 MiB/s)', () => {
    // 5 GiB/s = 5120 MiB/s >= the 4096 MiB/s that stands in for an unknown link.
    const judgement = pipelineVerdict({ ...base, gpuBusyPct: 30, pcieRx: { gpu: 'GPU-a', meanMiBps: 5120 } });
    expect(judgement.verdict).toBe('input-bound');
    expect(judgement.evidence[0]).toBe('GPU below 50% busy while PCIe receive averaged at least 4096 MiB/s (link not reported): waiting on host-to-device copies');
    expect(judgement.evidence).toContain('PCIe receive of GPU-a averaged 5120.0 MiB/s (link not reported)');
    // 4000 MiB/s is under it: nothing to judge by without CPU figures.
    expect(pipelineVerdict({ ...base, gpuBusyPct: 30, pcieRx: { gpu: 'GPU-a', meanMiBps: 4000 } }).verdict).toBe('unknown');
  });

  // telegraf-rtx-3080-v13.xml (corpus): rx_util 14742333 KB/s = 14742333 / 1024 = 14396.81 MiB/s.
  const RTX_3080_RX_MIBPS = 14_742_333 / 1024;
  // Gen4 x16: 16e9 x 128/130 x 16 / 8 = 31,507,692,308 B/s / 2^20 = 30048.08 MiB/s each way.
  const GEN4_X16 = { generation: 4, width: 16, bandwidthMiBps: (16e9 * (128 / 130) * 16) / 8 / 2 ** 20 };
  // Gen3 x16: 8e9 x 128/130 x 16 / 8 = 15,753,846,154 B/s / 2^20 = 15024.04 MiB/s.
  const GEN3_X16 = { generation: 3, width: 16, bandwidthMiBps: (8e9 * (128 / 130) * 16) / 8 / 2 ** 20 };

  it('with the link known, PCIe receive is high from half its bandwidth: 14397 MiB/s is 48% of Gen4 x16, 96% of Gen3 x16', () => {
    // 14396.81 / 30048.08 = 0.479 < 0.5: not waiting on copies; no CPU figures -> unknown.
    const onGen4 = pipelineVerdict({ ...base, gpuBusyPct: 30, pcieRx: { gpu: 'GPU-3080', meanMiBps: RTX_3080_RX_MIBPS, link: GEN4_X16 } });
    expect(onGen4.verdict).toBe('unknown');
    expect(onGen4.evidence).toContain('PCIe receive of GPU-3080 averaged 14396.8 MiB/s (47.9% of its Gen4 x16 link\'s 30048 MiB/s)');
    // 14396.81 / 15024.04 = 0.958 >= 0.5: input-bound.
    const onGen3 = pipelineVerdict({ ...base, gpuBusyPct: 30, pcieRx: { gpu: 'GPU-3080', meanMiBps: RTX_3080_RX_MIBPS, link: GEN3_X16 } });
    expect(onGen3.verdict).toBe('input-bound');
    expect(onGen3.evidence[0]).toBe('GPU below 50% busy while PCIe receive averaged at least 50% of the link\'s bandwidth: waiting on host-to-device copies');
    expect(onGen3.evidence).toContain('PCIe receive of GPU-3080 averaged 14396.8 MiB/s (95.8% of its Gen3 x16 link\'s 15024 MiB/s)');
  });

  it('high PCIe receive never makes an idle or a busy GPU input-bound', () => {
    const flood = { gpu: 'GPU-a', meanMiBps: 20_000, link: GEN3_X16 };
    expect(pipelineVerdict({ ...base, gpuBusyPct: 2, pcieRx: flood }).verdict).toBe('idle');
    expect(pipelineVerdict({ ...base, gpuBusyPct: 85, pcieRx: flood }).verdict).toBe('gpu-bound');
  });

  it('names the GPU process trees and the cores they used, the busiest first, as evidence only', () => {
    // Tree CPU is part of the host's busy time: it adds evidence, never a verdict of its own.
    const judgement = pipelineVerdict({
      ...base,
      hostCpuBusyFraction: 0.9875,
      hostCores: 8,
      processTrees: [
        { pid: 5762, name: 'python', descendants: 8, coresUsed: 7.9 },
        { pid: 6001, name: 'nvidia-cuda-mps', descendants: 0, coresUsed: 0.01 },
        { pid: 6002, name: 'sidecar', descendants: 1, coresUsed: 0.02 },
      ],
    });
    expect(judgement.verdict).toBe('input-bound');
    expect(judgement.evidence).toEqual([
      'GPU below 50% busy while the CPU is saturated (host at least 90% busy, or a container throttled in at least 25% of CFS periods)',
      'GPU 20% busy (sm-active)',
      'host CPU 99% busy (7.9 of 8 cores)',
      'pid 5762 (python) and 8 child processes used 7.90 of 8 cores',
      'pid 6002 (sidecar) and 1 child process used 0.02 of 8 cores',
      'pid 6001 (nvidia-cuda-mps) used 0.01 of 8 cores',
    ]);
    // Without host figures the trees are still named, and the verdict is not judged from them.
    const alone = pipelineVerdict({ ...base, processTrees: [{ pid: 5762, name: 'python', descendants: 8, coresUsed: 7.9 }] });
    expect(alone.verdict).toBe('unknown');
    expect(alone.evidence).toContain('pid 5762 (python) and 8 child processes used 7.90 cores');
  });

  it('names at most five process trees and counts the rest', () => {
    const trees = [1, 2, 3, 4, 5, 6, 7].map((pid) => ({ pid, name: 'w', descendants: 0, coresUsed: pid / 10 }));
    const evidence = pipelineVerdict({ ...base, processTrees: trees }).evidence;
    // Busiest first: pids 7 (0.70 cores) .. 3 (0.30 cores), then the 2 left.
    expect(evidence.filter((line) => line.startsWith('pid '))).toEqual([7, 6, 5, 4, 3].map((pid) => `pid ${pid} (w) used ${(pid / 10).toFixed(2)} cores`));
    expect(evidence).toContain('and 2 more GPU processes');
  });

  it('a moderately busy GPU beside an unsaturated CPU is gpu-bound; beside a saturated one, unknown', () => {
    expect(pipelineVerdict({ ...base, gpuBusyPct: 60, hostCpuBusyFraction: 0.5 }).verdict).toBe('gpu-bound');
    expect(pipelineVerdict({ ...base, gpuBusyPct: 60, hostCpuBusyFraction: 0.95 }).verdict).toBe('unknown');
  });
});

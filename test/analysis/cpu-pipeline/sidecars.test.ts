/**
 * Sidecar overhead of a GPU workload, worked by hand, and the verdict and sidecars filled into
 * the workload profile from CPU counters, the pod inventory and the priced GPUs.
 */
import { describe, expect, it } from 'vitest';
import { sidecarOverhead } from '../../../src/analysis/kubernetes.js';
import { CpuUsageTable } from '../../../src/analysis/cpu-pipeline/cpu-usage.js';
import { pipelineInputs } from '../../../src/analysis/cpu-pipeline/inputs.js';
import { workloadSidecars } from '../../../src/analysis/cpu-pipeline/sidecars.js';
import { profileWorkloads } from '../../../src/analysis/workloads/index.js';
import type { ContainerInfo, NodeInfo, PodInfo } from '../../../src/sources/kubernetes.js';
import { gpuEntry } from '../gpu-fixtures.js';

const container = (name: string, kind: ContainerInfo['kind'], cpu: number, memoryMiB: number, gpus = 0): ContainerInfo => ({
  name,
  kind,
  gpuResources: gpus === 0 ? {} : { 'nvidia.com/gpu': gpus },
  cpuCores: { request: cpu, limit: undefined },
  memoryMiB: { request: memoryMiB, limit: undefined },
});

// An 8-core pod: the trainer (7.25 cores, 1 GPU) and two sidecars of 0.5 + 0.25 cores.
const pod: PodInfo = {
  namespace: 'ml',
  name: 'trainer-0',
  phase: 'Running',
  nodeName: 'gpu-node-1',
  owner: undefined,
  labels: {},
  containers: [
    container('trainer', 'app', 7.25, 64_000, 1),
    container('log-shipper', 'app', 0.5, 512),
    container('proxy', 'native-sidecar', 0.25, 256),
  ],
  gpuResources: { 'nvidia.com/gpu': 1 },
};

// A 96-core node with 1,048,576 MiB (1 TiB) allocatable and 8 GPUs at $4.00 per GPU-hour: $32/h.
const node: NodeInfo = {
  name: 'gpu-node-1',
  labels: {},
  instanceType: undefined,
  gpuProduct: undefined,
  gpuCount: 8,
  gpuMemoryMiB: undefined,
  migStrategy: undefined,
  gpuCapacity: {},
  gpuAllocatable: {},
  cpuAllocatableCores: 96,
  memoryAllocatableMiB: 1_048_576,
};

const gpus = Array.from({ length: 8 }, (_, index) => gpuEntry({ id: `GPU-${index}`, host: 'gpu-node-1', index, hourlyCostUsd: 4 }));

describe('sidecar share', () => {
  it('is the sidecars\' requests, their share of the node priced per month, and that cost against the workload\'s', () => {
    const overhead = sidecarOverhead(pod, node);
    // CPU: 0.5 + 0.25 = 0.75 cores = 0.75 / 8 = 9.375% of the pod, 0.75 / 96 = 0.78125% of the node.
    // Memory: 512 + 256 = 768 MiB = 768 / 1,048,576 = 0.0732% of the node: CPU is the larger share.
    expect(overhead.cpuPctOfPod).toBeCloseTo(9.375, 12);
    expect(overhead.cpuPctOfNode).toBeCloseTo(0.78125, 12);
    // Hourly = 0.0078125 x $32 = $0.25; monthly = 0.25 x 730 = $182.50.
    // The workload holds 1 GPU at $4/h: overhead = 0.25 / 4 = 6.25%.
    const figures = workloadSidecars([{ overhead, nodeHourlyUsd: 32 }], 4);
    expect(figures.cpuCores).toBe(0.75);
    expect(figures.memoryMiB).toBe(768);
    expect(figures.monthlyCostUsd).toBeCloseTo(182.5, 9);
    expect(figures.overheadPct).toBeCloseTo(6.25, 9);
    expect(figures.cpuUsedCores).toBeNull();
  });

  it('has no cost when the node is not priced, and nothing without pods', () => {
    const figures = workloadSidecars([{ overhead: sidecarOverhead(pod, node) }], 4);
    expect(figures).toMatchObject({ cpuCores: 0.75, monthlyCostUsd: null, overheadPct: null });
    expect(workloadSidecars([], 4)).toEqual({ cpuCores: null, memoryMiB: null, overheadPct: null, monthlyCostUsd: null, cpuUsedCores: null });
  });
});

describe('workload profile', () => {
  const T0 = 1_700_000_000_000;
  const cpu = new CpuUsageTable();
  // Host: 96 cores, each user +57.6 s and idle +2.4 s in 60 s -> busy 1 - 230.4 / 5760 = 0.96.
  for (let core = 0; core < 96; core += 1) {
    for (const [mode, start, step] of [['user', 1000, 57.6], ['idle', 1000, 2.4]] as const) {
      cpu.hostCpu({ host: 'gpu-node-1.example.internal', time: T0, cpu: String(core), mode, secondsTotal: start });
      cpu.hostCpu({ host: 'gpu-node-1.example.internal', time: T0 + 60_000, cpu: String(core), mode, secondsTotal: start + step });
    }
  }
  // log-shipper used 30 s and proxy 6 s in 60 s: 0.5 + 0.1 = 0.6 cores.
  for (const [name, used] of [['log-shipper', 30], ['proxy', 6], ['trainer', 420]] as const) {
    cpu.containerCpu({ host: 'gpu-node-1', time: T0, namespace: 'ml', pod: 'trainer-0', container: name, counter: 'usage-seconds', value: 0 });
    cpu.containerCpu({ host: 'gpu-node-1', time: T0 + 60_000, namespace: 'ml', pod: 'trainer-0', container: name, counter: 'usage-seconds', value: used });
  }

  it('fills cpuPipeline and sidecars for a workload whose pod and host are known', () => {
    const trainerGpu = { ...gpus[0]!, utilization: { mean: 20, p50: 20, p95: 40, max: 60 } };
    const inputs = pipelineInputs({
      cpu: { hosts: cpu.hosts(), containers: cpu.containers() },
      inventory: { pods: [pod], nodes: [node] },
      nodeOfHost: new Map([['gpu-node-1', node]]),
      gpus: [trainerGpu, ...gpus.slice(1)],
      idleThresholdPct: 5,
    });
    const [entry] = profileWorkloads([trainerGpu], [{ name: 'trainer', kind: 'training', match: { pod: 'trainer-0' } }], {
      podsByDevice: new Map([['GPU-0', [{ namespace: 'ml', pod: 'trainer-0', container: 'trainer' }]]]),
      pipeline: inputs,
    });
    // The FQDN host of node_exporter matches the GPU host by its short name.
    expect(entry!.cpuPipeline.verdict).toBe('input-bound');
    expect(entry!.cpuPipeline.evidence).toEqual([
      'GPU below 50% busy while the CPU is saturated (host at least 90% busy, or a container throttled in at least 25% of CFS periods)',
      'GPU 20% busy (utilization)',
      'host CPU 96% busy (92.2 of 96 cores)',
      'containers used 7.00 cores',
    ]);
    // Sidecars as above; usage 0.6 cores.
    expect(entry!.sidecars.cpuCores).toBe(0.75);
    expect(entry!.sidecars.monthlyCostUsd).toBeCloseTo(182.5, 9);
    expect(entry!.sidecars.overheadPct).toBeCloseTo(6.25, 9);
    expect(entry!.sidecars.cpuUsedCores).toBeCloseTo(0.6, 12);
  });
});

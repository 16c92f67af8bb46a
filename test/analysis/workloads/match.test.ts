/**
 * Which workload each device and process belongs to: each rule alone claims a device, the
 * first matching regular expression takes a process, and what nobody takes is `unassigned`.
 */
import { describe, expect, it } from 'vitest';
import { assignDevices, assignableDevices, podMatches, type WorkloadDefinition } from '../../../src/analysis/workloads/index.js';
import type { ProcessSummary } from '../../../src/model/report.js';
import { gpuEntry } from '../gpu-fixtures.js';

const process = (pid: number, name: string, maxMemoryMiB: number | null): ProcessSummary => ({ pid, name, type: 'C', maxMemoryMiB, samples: 10 });

const workload = (name: string, match: WorkloadDefinition['match']): WorkloadDefinition => ({ name, kind: 'inference', match });

const claimsOf = (assignments: ReturnType<typeof assignDevices>) =>
  Object.fromEntries(assignments.map(({ device, claims }) => [device.id, claims.map(({ workload: name, share, processes }) => ({ name, share, pids: processes.map((p) => p.pid) }))]));

describe('assignDevices', () => {
  const gpus = [
    gpuEntry({ id: 'GPU-a', host: 'infer-1', processes: [process(10, '/usr/bin/python3 -m vllm.entrypoints.openai.api_server', 60_000)] }),
    gpuEntry({ id: 'GPU-b', host: 'infer-1', processes: [process(11, 'python3 train.py', 30_000), process(12, 'python3 eval.py', 10_000)] }),
    gpuEntry({ id: 'GPU-c', host: 'spare-1', processes: [] }),
  ];

  it('claims a device by a process regex, and sends what matches nothing to unassigned', () => {
    const assignments = assignDevices(gpus, [workload('chat', { process: 'vllm' })]);
    expect(claimsOf(assignments)).toEqual({
      'GPU-a': [{ name: 'chat', share: 1, pids: [10] }],
      'GPU-b': [{ name: 'unassigned', share: 1, pids: [11, 12] }],
      'GPU-c': [{ name: 'unassigned', share: 1, pids: [] }],
    });
  });

  it('claims whole devices by UUID and by host glob, with the processes nobody else took', () => {
    const assignments = assignDevices(gpus, [workload('pool', { hosts: ['spare-*'] }), workload('lab', { gpus: ['GPU-b'] })]);
    expect(claimsOf(assignments)).toEqual({
      'GPU-a': [{ name: 'unassigned', share: 1, pids: [10] }],
      'GPU-b': [{ name: 'lab', share: 1, pids: [11, 12] }],
      'GPU-c': [{ name: 'pool', share: 1, pids: [] }],
    });
  });

  it('splits a device two workloads share by their processes\' memory (30,000 : 10,000 = 0.75 : 0.25)', () => {
    const [, shared] = assignDevices(gpus, [workload('train', { process: 'train\\.py' }), workload('eval', { process: 'eval\\.py' })]);
    expect(shared!.shareBasis).toBe('process-memory');
    expect(shared!.claims.map(({ workload: name, share }) => [name, share])).toEqual([['train', 0.75], ['eval', 0.25]]);
  });

  it('shares a device with unassigned when some of its processes match no workload', () => {
    const [, shared] = assignDevices(gpus, [workload('train', { process: 'train\\.py' })]);
    expect(shared!.claims.map(({ workload: name, share }) => [name, share])).toEqual([['train', 0.75], ['unassigned', 0.25]]);
  });

  it('gives a workload that holds a device by host the processes no regex took', () => {
    const [, shared] = assignDevices(gpus, [workload('train', { process: 'train\\.py' }), workload('owner', { hosts: ['infer-*'] })]);
    // `owner` holds GPU-b by host and takes eval.py (10,000 MiB): both have memory, so 0.75 : 0.25.
    expect(shared!.claims.map(({ workload: name, share, processes }) => [name, share, processes.map((p) => p.pid)])).toEqual([['train', 0.75, [11]], ['owner', 0.25, [12]]]);
  });

  it('splits equally when a holder has no process with a known memory', () => {
    const noMemory = gpuEntry({ id: 'GPU-d', processes: [process(20, 'python3 train.py', null)] });
    const [equal] = assignDevices([noMemory], [workload('train', { process: 'train' }), workload('owner', { gpus: ['GPU-d'] })]);
    expect(equal!.shareBasis).toBe('equal');
    expect(equal!.claims.map(({ share }) => share)).toEqual([0.5, 0.5]);
  });

  it('gives a process to the first workload (config order) whose regex finds it', () => {
    const [first] = assignDevices(gpus, [workload('a', { process: 'python3' }), workload('b', { process: 'vllm' })]);
    expect(first!.claims.map(({ workload: name }) => name)).toEqual(['a']);
  });

  it('assigns MIG devices, not their board; a board UUID claims all its MIG devices', () => {
    const board = gpuEntry({ id: 'GPU-m', uuid: 'GPU-m', migMode: 'enabled' });
    const gi1 = gpuEntry({ id: 'GPU-m/1', uuid: 'GPU-m', parentId: 'GPU-m', migProfile: '3g.40gb' });
    const gi2 = gpuEntry({ id: 'GPU-m/2', uuid: 'GPU-m', parentId: 'GPU-m', migProfile: '3g.40gb' });
    expect(assignableDevices([board, gi1, gi2]).map((gpu) => gpu.id)).toEqual(['GPU-m/1', 'GPU-m/2']);
    expect(claimsOf(assignDevices([board, gi1, gi2], [workload('eval', { gpus: ['GPU-m'] })]))).toEqual({
      'GPU-m/1': [{ name: 'eval', share: 1, pids: [] }],
      'GPU-m/2': [{ name: 'eval', share: 1, pids: [] }],
    });
    expect(claimsOf(assignDevices([board, gi1, gi2], [workload('eval', { gpus: ['GPU-m/2'] })]))['GPU-m/1']![0]!.name).toBe('unassigned');
  });

  it('claims a device through a pod seen on it, when every part of the selector matches', () => {
    const pods = new Map([['GPU-c', [{ namespace: 'serving', pod: 'chat-7f9c-x2', container: 'vllm', labels: { app: 'chat', tier: 'prod' } }]]]);
    const byPod = assignDevices(gpus, [workload('chat', { namespace: 'serving', pod: 'chat-*', labels: { app: 'chat' } })], pods);
    expect(claimsOf(byPod)['GPU-c']).toEqual([{ name: 'chat', share: 1, pids: [] }]);
    const wrongLabel = assignDevices(gpus, [workload('chat', { pod: 'chat-*', labels: { app: 'search' } })], pods);
    expect(claimsOf(wrongLabel)['GPU-c']![0]!.name).toBe('unassigned');
  });
});

describe('podMatches', () => {
  const pod = { namespace: 'ml', pod: 'trainer-0', container: 'main' };
  it.each<[WorkloadDefinition['match'], boolean]>([
    [{ namespace: 'ml' }, true],
    [{ namespace: 'm?' }, true],
    [{ namespace: 'ml', pod: 'trainer-*' }, true],
    [{ namespace: 'ml', pod: 'eval-*' }, false],
    [{ container: 'main' }, true],
    [{ container: 'side*' }, false],
    [{ labels: { app: 'x' } }, false],
    [{ process: 'trainer' }, false],
  ])('%j -> %s', (rules, expected) => {
    expect(podMatches(rules, pod)).toBe(expected);
  });
});

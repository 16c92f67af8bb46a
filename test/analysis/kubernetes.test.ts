/**
 * Kubernetes attribution: joining pods to GPUs, the allocated-unused finding, sidecar shares,
 * and the fleet analyzer's record of dcgm-exporter pod labels. Inputs are built inline.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ALLOCATED_UNUSED_RULE, attributeKubernetes, nodeNameMatcher, nodesByHost, sidecarOverhead } from '../../src/analysis/kubernetes.js';
import type { KubernetesAttributionInput } from '../../src/analysis/kubernetes.js';
import { MAX_CONTAINERS_PER_DEVICE, type PodAssignmentRecord } from '../../src/analysis/pod-assignments.js';
import type { GpuEntry } from '../../src/model/report.js';
import type { ContainerInfo, NodeInfo, PodInfo } from '../../src/sources/kubernetes.js';
import { analyze, at, gpu0, gpu1, samplesAt, UUID_0, UUID_1 } from './events.js';
import { KUBERNETES_SECTION } from '../fixtures/kubernetes/report-section.js';
import { repoRoot } from '../helpers/corpus.js';
import { gpuEntry } from './gpu-fixtures.js';

function container(name: string, options: Partial<Omit<ContainerInfo, 'name'>> = {}): ContainerInfo {
  return {
    name,
    kind: 'app',
    gpuResources: {},
    cpuCores: { request: undefined, limit: undefined },
    memoryMiB: { request: undefined, limit: undefined },
    ...options,
  };
}

function pod(name: string, options: Partial<PodInfo> = {}): PodInfo {
  const containers = options.containers ?? [container('main', { gpuResources: { 'nvidia.com/gpu': 1 } })];
  const gpuResources: Record<string, number> = {};
  for (const entry of containers) for (const [resource, count] of Object.entries(entry.gpuResources)) gpuResources[resource] = (gpuResources[resource] ?? 0) + count;
  return { namespace: 'ml', name, phase: 'Running', nodeName: 'node-a', owner: undefined, labels: {}, gpuResources, ...options, containers };
}

function node(name: string, options: Partial<NodeInfo> = {}): NodeInfo {
  return {
    name,
    labels: {},
    instanceType: undefined,
    gpuProduct: undefined,
    gpuCount: undefined,
    gpuMemoryMiB: undefined,
    migStrategy: undefined,
    gpuCapacity: {},
    gpuAllocatable: {},
    cpuAllocatableCores: undefined,
    memoryAllocatableMiB: undefined,
    ...options,
  };
}

const seen = (namespace: string, podName: string): PodAssignmentRecord => ({
  namespace, pod: podName, container: 'main', firstSeenMs: 0, lastSeenMs: 3_600_000, samples: 60,
});

/** Idle the whole window: 3.5 h observed, 3.5 h idle. */
const idleGpu = (id: string, overrides: Partial<GpuEntry> = {}): GpuEntry =>
  gpuEntry({ id, idleFraction: 1, idleHours: 3.5, gpuHours: 3.5, hourlyCostUsd: 1.6688, ...overrides });
const busyGpu = (id: string, overrides: Partial<GpuEntry> = {}): GpuEntry =>
  gpuEntry({ id, idleFraction: 0.1, idleHours: 0.35, gpuHours: 3.5, hourlyCostUsd: 1.6688, ...overrides });

function attribute(input: Partial<KubernetesAttributionInput>): ReturnType<typeof attributeKubernetes> {
  return attributeKubernetes({
    inventory: { pods: [], nodes: [] },
    gpus: [],
    podAssignments: new Map(),
    idleThresholdPct: 5,
    ...input,
  });
}

describe('nodes and hosts', () => {
  it('matches the same name, else the one node with the same short name in any case', () => {
    const match = (name: string, candidates: string[]): string | undefined => nodeNameMatcher(candidates)(name);
    expect(match('node-a', ['node-a', 'NODE-A.cluster.local'])).toBe('node-a');
    expect(match('NODE-A', ['node-a.cluster.local'])).toBe('node-a.cluster.local');
    expect(match('ip-10-0-1-2.ec2.internal', ['ip-10-0-1-2'])).toBe('ip-10-0-1-2');
    // Two nodes share the short name: no guess; the same name listed twice is one node.
    expect(match('gpu-1', ['gpu-1.east', 'gpu-1.west'])).toBeUndefined();
    expect(match('gpu-1', ['gpu-1.east', 'gpu-1.east'])).toBe('gpu-1.east');
    expect(match('gpu-2', ['gpu-1'])).toBeUndefined();
  });

  it('maps each host to its node', () => {
    const nodes = [node('gpu-1.example.com'), node('gpu-2')];
    expect([...nodesByHost(nodes, ['gpu-1', 'gpu-2', 'gpu-3'])].map(([host, entry]) => [host, entry.name])).toEqual([
      ['gpu-1', 'gpu-1.example.com'],
      ['gpu-2', 'gpu-2'],
    ]);
  });
});

describe('sidecarOverhead', () => {
  // The trainer pod of test/fixtures/kubernetes/cluster.json.
  const trainer = pod('trainer-0', {
    containers: [
      container('trainer', { gpuResources: { 'nvidia.com/gpu': 1 }, cpuCores: { request: 16, limit: 16 }, memoryMiB: { request: 65_536, limit: 65_536 } }),
      container('log-shipper', { cpuCores: { request: 0.25, limit: 0.5 }, memoryMiB: { request: 256, limit: 512 } }),
      container('fetch-dataset', { kind: 'init', cpuCores: { request: 2, limit: undefined }, memoryMiB: { request: 4096, limit: undefined } }),
      container('otel-agent', { kind: 'native-sidecar', cpuCores: { request: 0.1, limit: undefined }, memoryMiB: { request: 128, limit: undefined } }),
    ],
  });
  const gpuNode = node('node-a', { cpuAllocatableCores: 95.69, memoryAllocatableMiB: 371_664 });

  it('sums the non-GPU containers that run beside the GPU work, and their shares of the pod and node', () => {
    const overhead = sidecarOverhead(trainer, gpuNode);
    expect(overhead.containers).toEqual(['log-shipper', 'otel-agent']);
    // CPU: 0.25 + 0.1 = 0.35 cores of the pod's 16 + 0.25 + 0.1 = 16.35 (the init container has finished by then).
    expect(overhead.cpuRequestCores).toBeCloseTo(0.35, 12);
    expect(overhead.cpuPctOfPod).toBeCloseTo((0.35 / 16.35) * 100, 9); // 2.1407 %
    expect(overhead.cpuPctOfNode).toBeCloseTo((0.35 / 95.69) * 100, 9); // 0.3658 %
    // Memory: 256 + 128 = 384 MiB of 65536 + 256 + 128 = 65920 MiB; of 371664 MiB allocatable.
    expect(overhead.memoryRequestMiB).toBe(384);
    expect(overhead.memoryPctOfPod).toBeCloseTo((384 / 65_920) * 100, 9); // 0.5825 %
    expect(overhead.memoryPctOfNode).toBeCloseTo((384 / 371_664) * 100, 9); // 0.1033 %
    // otel-agent has no limits: the sidecars' total is unbounded.
    expect(overhead.cpuLimitCores).toBeNull();
    expect(overhead.memoryLimitMiB).toBeNull();
  });

  it('gives limits when every sidecar has them, and no node shares without the node', () => {
    const withLimits = pod('p', { containers: [trainer.containers[0]!, trainer.containers[1]!] });
    expect(sidecarOverhead(withLimits, undefined)).toMatchObject({ cpuLimitCores: 0.5, memoryLimitMiB: 512, cpuPctOfNode: null, memoryPctOfNode: null });
  });

  it('is zero for a pod without sidecars, and has no pod share when nothing is requested', () => {
    expect(sidecarOverhead(pod('bare'), undefined)).toEqual({
      containers: [], cpuRequestCores: 0, cpuLimitCores: 0, memoryRequestMiB: 0, memoryLimitMiB: 0,
      cpuPctOfPod: null, memoryPctOfPod: null, cpuPctOfNode: null, memoryPctOfNode: null,
    });
  });
});

describe('attributeKubernetes: which pod holds which GPU', () => {
  it('follows dcgm-exporter pod labels first', () => {
    const { section } = attribute({
      inventory: { pods: [pod('trainer-0'), pod('server')], nodes: [] },
      gpus: [idleGpu('GPU-a'), busyGpu('GPU-b', { index: 1 })],
      podAssignments: new Map([['GPU-a', [seen('ml', 'trainer-0')]], ['GPU-b', [seen('ml', 'server')]]]),
    });
    expect(section.pods.map((entry) => [entry.name, entry.gpus, entry.gpuMatch])).toEqual([
      ['server', ['GPU-b'], 'dcgm-labels'],
      ['trainer-0', ['GPU-a'], 'dcgm-labels'],
    ]);
  });

  it('gives a node\'s GPUs to its only GPU pod when it requests all of them', () => {
    const gpus = [idleGpu('GPU-a'), idleGpu('GPU-b', { index: 1 })];
    const whole = pod('whole', { containers: [container('main', { gpuResources: { 'nvidia.com/gpu': 2 } })] });
    const matched = attribute({ inventory: { pods: [whole], nodes: [node('node-a', { gpuCapacity: { 'nvidia.com/gpu': 2 } })] }, gpus });
    expect(matched.section.pods[0]).toMatchObject({ gpus: ['GPU-a', 'GPU-b'], gpuMatch: 'node' });

    // Half the node: which GPU is unknown.
    const half = attribute({ inventory: { pods: [pod('half')], nodes: [node('node-a', { gpuCapacity: { 'nvidia.com/gpu': 2 } })] }, gpus });
    expect(half.section.pods[0]).toMatchObject({ gpus: [], gpuMatch: null });

    // The telemetry shows two GPUs but the node has eight: the pod holds 2 of 8, not "all".
    const partial = attribute({ inventory: { pods: [whole], nodes: [node('node-a', { gpuCapacity: { 'nvidia.com/gpu': 8 } })] }, gpus });
    expect(partial.section.pods[0]).toMatchObject({ gpus: [], gpuMatch: null });

    // Two GPU pods on the node: neither is alone.
    const two = attribute({ inventory: { pods: [whole, pod('other')], nodes: [] }, gpus });
    expect(two.section.pods.map((entry) => entry.gpuMatch)).toEqual([null, null]);
  });

  it('attributes MIG devices through their own labels', () => {
    const parent = busyGpu('GPU-a', { migMode: 'enabled' });
    const instance = idleGpu('GPU-a/3', { parentId: 'GPU-a', migProfile: '1g.10gb', hourlyCostUsd: null });
    const migPod = pod('small', { containers: [container('main', { gpuResources: { 'nvidia.com/mig-1g.10gb': 1 } })] });
    const { section, findings } = attribute({
      inventory: { pods: [migPod], nodes: [] },
      gpus: [parent, instance],
      podAssignments: new Map([['GPU-a/3', [seen('ml', 'small')]]]),
    });
    expect(section.pods[0]).toMatchObject({ gpus: ['GPU-a/3'], gpuMatch: 'dcgm-labels', gpuResources: { 'nvidia.com/mig-1g.10gb': 1 }, gpusRequested: 1 });
    // An idle MIG instance held by a pod is allocated and unused too; it has no price of its own.
    expect(findings.map((finding) => [finding.target, finding.evidence['gpus'], finding.evidence['hourlyCostUsd']])).toEqual([['ml/small', 'GPU-a/3', null]]);
  });

  it('lists Running and Pending GPU pods, and notes the others', () => {
    const { section, notes, findings } = attribute({
      inventory: {
        pods: [
          pod('waiting', { phase: 'Pending', nodeName: undefined }),
          pod('done', { phase: 'Succeeded' }),
          pod('failed', { phase: 'Failed' }),
          pod('crashed', { phase: 'Failed' }),
          pod('cpu-only', { containers: [container('main')] }),
        ],
        nodes: [],
      },
      gpus: [idleGpu('GPU-a')],
    });
    expect(section.pods.map((entry) => [entry.name, entry.node, entry.gpus])).toEqual([['waiting', null, []]]);
    expect(notes).toEqual([
      '1 GPU pod in phase Succeeded left out: only Running and Pending pods hold GPUs',
      '2 GPU pods in phase Failed left out: only Running and Pending pods hold GPUs',
    ]);
    // An unscheduled pod holds nothing.
    expect(findings).toEqual([]);
  });

  it('notes pods the exporter saw on GPUs that the pod list lacks', () => {
    const { notes, section } = attribute({
      inventory: { pods: [pod('trainer-0')], nodes: [] },
      gpus: [idleGpu('GPU-a'), idleGpu('GPU-b', { index: 1 })],
      podAssignments: new Map([['GPU-a', [seen('ml', 'trainer-0')]], ['GPU-b', [seen('ml', 'gone-1'), seen('batch', 'gone-2')]]]),
    });
    expect(section.pods.map((entry) => entry.name)).toEqual(['trainer-0']);
    expect(notes).toEqual(['2 pods seen on GPUs (dcgm-exporter labels) not in the pod list, finished or from another cluster: batch/gone-2, ml/gone-1']);
  });

  it('lists the nodes with GPUs and the host each is', () => {
    const { section } = attribute({
      inventory: {
        pods: [],
        nodes: [
          node('cpu-node', { instanceType: 'm6i.large', cpuAllocatableCores: 1.93 }),
          node('node-a.ec2.internal', { instanceType: 'g6.24xlarge', gpuProduct: 'NVIDIA-L4', gpuCount: 4, gpuCapacity: { 'nvidia.com/gpu': 4 } }),
          node('idle-gpu-node', { gpuCapacity: { 'nvidia.com/gpu': 1 } }),
        ],
      },
      gpus: [idleGpu('GPU-a')],
    });
    expect(section.nodes.map((entry) => [entry.name, entry.host, entry.instanceType, entry.modelKey])).toEqual([
      ['idle-gpu-node', null, null, 'unknown'],
      ['node-a.ec2.internal', 'node-a', 'g6.24xlarge', 'l4'],
    ]);
  });
});

describe('allocated-unused', () => {
  const trainer = pod('trainer-0', { owner: { kind: 'StatefulSet', name: 'trainer' } });
  const labelled = (gpu: GpuEntry): ReturnType<typeof attributeKubernetes> =>
    attribute({ inventory: { pods: [trainer], nodes: [] }, gpus: [gpu], podAssignments: new Map([[gpu.id, [seen('ml', 'trainer-0')]]]) });

  it('names the pod, its namespace, node and workload, the hours and the idle share', () => {
    const { findings } = labelled(idleGpu('GPU-a'));
    expect(findings).toEqual([{
      id: 'allocated-unused:ml/trainer-0',
      code: 'allocated-unused',
      severity: 'warning',
      target: 'ml/trainer-0',
      message: 'Pod ml/trainer-0 requests 1 GPU, but its GPU was idle 100% of 3.5 h (compute below 5%).',
      evidence: {
        pod: 'trainer-0',
        namespace: 'ml',
        node: 'node-a',
        workload: 'StatefulSet/trainer',
        gpusRequested: 1,
        gpus: 'GPU-a',
        basis: 'dcgm-labels',
        hours: 3.5,
        idleGpuHours: 3.5,
        idleFraction: 1,
        idleThresholdPct: 5,
        hourlyCostUsd: 1.6688,
      },
    }]);
  });

  it('needs the GPUs idle at least 99 % of at least an hour; a day or more is an error', () => {
    // 3.5 h x 0.985 = 3.4475 h idle: a little use is use.
    expect(labelled(idleGpu('GPU-a', { idleFraction: 0.985, idleHours: 3.4475 })).findings).toEqual([]);
    expect(labelled(idleGpu('GPU-a', { idleFraction: 0.995, idleHours: 3.4825 })).findings).toHaveLength(1);
    expect(labelled(idleGpu('GPU-a', { gpuHours: 0.9, idleHours: 0.9 })).findings).toEqual([]);
    expect(labelled(idleGpu('GPU-a', { idleFraction: null })).findings).toEqual([]);
    expect(labelled(idleGpu('GPU-a', { gpuHours: 24, idleHours: 24 })).findings[0]?.severity).toBe(ALLOCATED_UNUSED_RULE.errorSeverity);
    expect(labelled(busyGpu('GPU-a')).findings).toEqual([]);
  });

  it('needs every one of the pod\'s GPUs idle; figures sum over them', () => {
    const twoGpus = pod('trainer-0', { containers: [container('main', { gpuResources: { 'nvidia.com/gpu': 2 } })] });
    const assignments = new Map([['GPU-a', [seen('ml', 'trainer-0')]], ['GPU-b', [seen('ml', 'trainer-0')]]]);
    const busyOne = attribute({ inventory: { pods: [twoGpus], nodes: [] }, gpus: [idleGpu('GPU-a'), busyGpu('GPU-b', { index: 1 })], podAssignments: assignments });
    expect(busyOne.findings).toEqual([]);
    const bothIdle = attribute({
      inventory: { pods: [twoGpus], nodes: [] },
      gpus: [idleGpu('GPU-a'), idleGpu('GPU-b', { index: 1, gpuHours: 3, idleHours: 3 })],
      podAssignments: assignments,
    });
    // hours: the longest observation, 3.5 h; idle GPU-hours 3.5 + 3 = 6.5 of 6.5; cost 2 x 1.6688 = 3.3376 $/h.
    expect(bothIdle.findings[0]?.evidence).toMatchObject({ gpus: 'GPU-a,GPU-b', hours: 3.5, idleGpuHours: 6.5, idleFraction: 1, gpusRequested: 2 });
    expect(bothIdle.findings[0]?.evidence['hourlyCostUsd']).toBeCloseTo(3.3376, 12);
  });

  it('is raised for a pod of unknown GPUs when every GPU of its node was idle', () => {
    const gpus = [idleGpu('GPU-a'), idleGpu('GPU-b', { index: 1 })];
    const { findings } = attribute({ inventory: { pods: [pod('half')], nodes: [] }, gpus });
    // 1 GPU requested of a node whose GPUs cost 1.6688 $/h each.
    expect(findings.map((finding) => finding.evidence)).toEqual([expect.objectContaining({ basis: 'node-idle', gpus: null, gpusRequested: 1, hourlyCostUsd: 1.6688, idleGpuHours: 7 })]);
    expect(findings[0]?.message).toBe('Pod ml/half requests 1 GPU, but every GPU of node node-a was idle 100% of 3.5 h (compute below 5%).');
    // A time-sliced replica's share of a GPU's price is unknown.
    const shared = pod('shared', { containers: [container('main', { gpuResources: { 'nvidia.com/gpu.shared': 1 } })] });
    expect(attribute({ inventory: { pods: [shared], nodes: [] }, gpus }).findings[0]?.evidence['hourlyCostUsd']).toBeNull();
    // One busy GPU on the node: the pod may be the one using it.
    expect(attribute({ inventory: { pods: [pod('half')], nodes: [] }, gpus: [gpus[0]!, busyGpu('GPU-b', { index: 1 })] }).findings).toEqual([]);
  });

  it('says nothing of a pod on a node without telemetry', () => {
    expect(attribute({ inventory: { pods: [pod('elsewhere', { nodeName: 'node-z' })], nodes: [] }, gpus: [idleGpu('GPU-a')] }).findings).toEqual([]);
  });
});

describe('the fleet analyzer records pod assignments', () => {
  it('keeps each container seen on a device with first and last sighting and a count, by GPU id', () => {
    const profile = analyze([{
      source: 'scrape.prom',
      samples: samplesAt(gpu0, [0, 60, 120], [{ utilizationPct: 0 }]).concat(samplesAt(gpu1, [0], [{ utilizationPct: 50 }])),
      run: (sink) => {
        for (const second of [0, 60, 120]) sink.assignment?.({ ref: gpu0, time: at(second), namespace: 'ml', pod: 'trainer-0', container: 'trainer' });
        sink.assignment?.({ ref: gpu0, time: at(60), namespace: 'ml', pod: 'trainer-0', container: 'log-shipper' });
      },
    }]);
    expect(Object.fromEntries(profile.podAssignments)).toEqual({
      [UUID_0]: [
        { namespace: 'ml', pod: 'trainer-0', container: 'log-shipper', firstSeenMs: at(60), lastSeenMs: at(60), samples: 1 },
        { namespace: 'ml', pod: 'trainer-0', container: 'trainer', firstSeenMs: at(0), lastSeenMs: at(120), samples: 3 },
      ],
    });
    expect(profile.podAssignments.has(UUID_1)).toBe(false);
  });

  it('holds at most MAX_CONTAINERS_PER_DEVICE containers per device and says how many sightings it dropped', () => {
    const extra = 3;
    const profile = analyze([{
      source: 'scrape.prom',
      samples: samplesAt(gpu0, [0], [{ utilizationPct: 0 }]),
      run: (sink) => {
        for (let i = 0; i < MAX_CONTAINERS_PER_DEVICE + extra; i += 1) sink.assignment?.({ ref: gpu0, time: at(0), namespace: 'ml', pod: `p-${String(i).padStart(3, '0')}` });
      },
    }]);
    expect(profile.podAssignments.get(UUID_0)).toHaveLength(MAX_CONTAINERS_PER_DEVICE);
    expect(profile.warnings.map((warning) => warning.message)).toContain(
      `GPU ${UUID_0}: more than ${MAX_CONTAINERS_PER_DEVICE} pod containers seen holding it; ${extra} samples of the others were not kept`,
    );
  });
});

describe('the kubernetes report section', () => {
  it('validates against schema/report.schema.json, strictly', () => {
    const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema/report.schema.json'), 'utf8')) as { $defs: Record<string, unknown> };
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(schema, 'report');
    const validate = ajv.getSchema('report#/$defs/KubernetesSection')!;
    const gpu = idleGpu('GPU-a');
    const trainer = pod('trainer-0', {
      owner: { kind: 'StatefulSet', name: 'trainer' },
      labels: { team: 'vision' },
      containers: [
        container('trainer', { gpuResources: { 'nvidia.com/gpu': 1 }, cpuCores: { request: 16, limit: 16 }, memoryMiB: { request: 65_536, limit: undefined } }),
        container('sidecar', { cpuCores: { request: 0.25, limit: 0.5 }, memoryMiB: { request: 256, limit: 512 } }),
      ],
    });
    const { section } = attribute({
      inventory: { pods: [trainer, pod('waiting', { phase: 'Pending', nodeName: undefined })], nodes: [node('node-a', { gpuProduct: 'NVIDIA-L4', cpuAllocatableCores: 8 })] },
      gpus: [gpu],
      podAssignments: new Map([['GPU-a', [seen('ml', 'trainer-0')]]]),
    });
    expect(validate(section), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(KUBERNETES_SECTION), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...section, pods: [{ ...section.pods[0], gpuMatch: 'guess' }] })).toBe(false);
  });
});

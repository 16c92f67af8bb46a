/**
 * Pods and nodes read from `kubectl get pods,nodes -A -o json` output (test/fixtures/kubernetes,
 * written by the project) and from the real manifests in the shared corpus.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { InputError } from '../../../../src/support/errors.js';
import { readKubernetesFiles } from '../../../../src/sources/kubernetes.js';
import { KubernetesObjectReader, readKubernetesObjects } from '../../../../src/sources/formats/kubernetes/objects.js';
import type { PodInfo } from '../../../../src/model/kubernetes.js';
import { corpusFiles, repoRoot } from '../../../helpers/corpus.js';

const CLUSTER = path.join(repoRoot, 'test/fixtures/kubernetes/cluster.json');
const NODE_1 = 'ip-10-0-12-34.us-west-2.compute.internal';

function podNamed(pods: readonly PodInfo[], name: string): PodInfo {
  const pod = pods.find((candidate) => candidate.name === name);
  if (pod === undefined) throw new Error(`no pod ${name}`);
  return pod;
}

const list = (items: unknown[], kind = 'List'): string => JSON.stringify({ apiVersion: 'v1', kind, metadata: { resourceVersion: '' }, items });

describe('kubectl get pods,nodes -A -o json (fixture)', () => {
  const read = readKubernetesObjects(readFileSync(CLUSTER, 'utf8'), 'cluster.json');

  it('reads every Pod and Node item', () => {
    expect(read.records).toBe(9);
    expect(read.pods.map((pod) => `${pod.namespace}/${pod.name}`)).toEqual([
      'ml-training/trainer-0',
      'serving/inference-7d4b9c8f5d-x2x9q',
      'search/embedder-6f8d7c9b4-k7m2p',
      'ml-training/nightly-eval-28973640-q8w2z',
      'research/notebook-5c9f',
      'gpu-operator/nvidia-dcgm-exporter-8xk2d',
    ]);
    expect(read.nodes.map((node) => node.name)).toEqual(['ip-10-0-0-10.us-west-2.compute.internal', NODE_1, 'ip-10-0-40-5.us-west-2.compute.internal']);
    expect(read.warnings).toEqual([]);
  });

  it('reads phase, node, GPU requests and each container\'s CPU and memory', () => {
    const trainer = podNamed(read.pods, 'trainer-0');
    expect(trainer).toMatchObject({ phase: 'Running', nodeName: NODE_1, gpuResources: { 'nvidia.com/gpu': 1 } });
    expect(trainer.labels['team']).toBe('vision');
    expect(trainer.containers).toEqual([
      // 16 cores, 64Gi = 65536 MiB.
      { name: 'trainer', kind: 'app', gpuResources: { 'nvidia.com/gpu': 1 }, cpuCores: { request: 16, limit: 16 }, memoryMiB: { request: 65_536, limit: 65_536 } },
      // 250m = 0.25 cores, 500m = 0.5; 256Mi, 512Mi.
      { name: 'log-shipper', kind: 'app', gpuResources: {}, cpuCores: { request: 0.25, limit: 0.5 }, memoryMiB: { request: 256, limit: 512 } },
      // An init container that runs to completion: not beside the GPU work.
      { name: 'fetch-dataset', kind: 'init', gpuResources: {}, cpuCores: { request: 2, limit: undefined }, memoryMiB: { request: 4096, limit: undefined } },
      // restartPolicy: Always makes an init container a native sidecar (Kubernetes 1.28+).
      { name: 'otel-agent', kind: 'native-sidecar', gpuResources: {}, cpuCores: { request: 0.1, limit: undefined }, memoryMiB: { request: 128, limit: undefined } },
    ]);
    expect(podNamed(read.pods, 'notebook-5c9f')).toMatchObject({ phase: 'Pending', nodeName: undefined, gpuResources: { 'nvidia.com/gpu': 2 } });
    // The exporter DaemonSet requests no GPU.
    expect(podNamed(read.pods, 'nvidia-dcgm-exporter-8xk2d').gpuResources).toEqual({});
  });

  it('resolves the owning workload: a ReplicaSet to its Deployment, others as they are', () => {
    expect(podNamed(read.pods, 'trainer-0').owner).toEqual({ kind: 'StatefulSet', name: 'trainer' });
    expect(podNamed(read.pods, 'inference-7d4b9c8f5d-x2x9q').owner).toEqual({ kind: 'Deployment', name: 'inference' });
    expect(podNamed(read.pods, 'nightly-eval-28973640-q8w2z').owner).toEqual({ kind: 'Job', name: 'nightly-eval-28973640' });
    expect(podNamed(read.pods, 'nvidia-dcgm-exporter-8xk2d').owner).toEqual({ kind: 'DaemonSet', name: 'nvidia-dcgm-exporter' });
    expect(podNamed(read.pods, 'notebook-5c9f').owner).toBeUndefined();
  });

  it('reads instance type, GPU feature discovery labels and allocatable resources of nodes', () => {
    const node = read.nodes.find((candidate) => candidate.name === NODE_1)!;
    expect(node).toMatchObject({
      instanceType: 'g6.24xlarge',
      gpuProduct: 'NVIDIA-L4',
      gpuCount: 4,
      gpuMemoryMiB: 23_034,
      migStrategy: 'single',
      gpuCapacity: { 'nvidia.com/gpu': 4 },
      gpuAllocatable: { 'nvidia.com/gpu': 4 },
      cpuAllocatableCores: 95.69, // 95690m
      memoryAllocatableMiB: 371_664, // 380583936Ki / 1024
    });
    const cpuOnly = read.nodes[0]!;
    expect(cpuOnly).toMatchObject({ instanceType: 'm6i.large', gpuProduct: undefined, gpuCount: undefined, gpuCapacity: {} });
  });
});

describe('the corpus manifests, as kubectl would list their pods', () => {
  const manifests = corpusFiles('kubernetes', (name) => name.endsWith('.yaml')).map((file) => ({
    name: path.basename(file),
    object: parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>,
  }));

  /** The pod a controller makes from its template: the template plus an owner reference (as the API server returns it). */
  function podOf(manifest: Record<string, unknown>): unknown {
    const kind = manifest['kind'] as string;
    const metadata = manifest['metadata'] as { name: string };
    if (kind === 'Pod') return manifest;
    const template = (manifest['spec'] as { template: { metadata?: { labels?: Record<string, string> }; spec: unknown } }).template;
    const hash = '5d8c7f9b6';
    const owner = kind === 'Deployment' ? { kind: 'ReplicaSet', name: `${metadata.name}-${hash}` } : { kind, name: metadata.name };
    const labels = { ...template.metadata?.labels, ...(kind === 'Deployment' ? { 'pod-template-hash': hash } : {}) };
    return {
      kind: 'Pod',
      metadata: { name: `${owner.name}-abcde`, namespace: 'default', labels, ownerReferences: [{ apiVersion: 'apps/v1', controller: true, ...owner }] },
      spec: template.spec,
      status: { phase: 'Running' },
    };
  }

  it('reads one GPU per pod whether the manifest writes it as a string or an integer', () => {
    const read = readKubernetesObjects(list(manifests.map(({ object }) => podOf(object))), 'corpus');
    expect(read.warnings).toEqual([]);
    // Each manifest asks for `nvidia.com/gpu: 1` or `"1"` under resources.limits.
    expect(read.pods.map((pod) => pod.gpuResources)).toEqual(manifests.map(() => ({ 'nvidia.com/gpu': 1 })));
    const byManifest = Object.fromEntries(manifests.map(({ name }, index) => [name, read.pods[index]!]));
    expect(byManifest['gpu-operator-tests-plugin-test.yaml']!.owner).toEqual({ kind: 'Deployment', name: 'nvidia-plugin-test' });
    expect(byManifest['k8s-device-plugin-job-1-gpu-request.yaml']!.owner).toEqual({ kind: 'Job', name: 'j-e2e-1' });
    // A bare manifest has no namespace (kubectl apply would use `default`) and no status.
    expect(byManifest['dcgm-exporter-gpu-pod.yaml']).toMatchObject({ namespace: 'default', phase: 'Unknown', owner: undefined });
    // nbody: requests 100m / 128Mi, limits 200m / 256Mi.
    expect(byManifest['dcgm-exporter-gpu-pod.yaml']!.containers[0]).toMatchObject({ cpuCores: { request: 0.1, limit: 0.2 }, memoryMiB: { request: 128, limit: 256 } });
  });

  it('reads a single Pod manifest on its own', () => {
    const pod = manifests.find(({ name }) => name === 'gpu-operator-tests-gpu-pod.yaml')!.object;
    const read = readKubernetesObjects(JSON.stringify(pod), 'pod.json');
    expect(read.pods.map((entry) => [entry.name, entry.gpuResources])).toEqual([['gpu-operator-test', { 'nvidia.com/gpu': 1 }]]);
  });
});

describe('list shapes and GPU resources', () => {
  const pod = (name: string, containers: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    kind: 'Pod',
    metadata: { name, namespace: 'ml' },
    spec: { nodeName: 'node-1', containers, ...extra },
    status: { phase: 'Running' },
  });
  const gpuContainer = (name: string, limits: Record<string, unknown>): Record<string, unknown> => ({ name, resources: { limits } });

  it('reads PodList and NodeList items, which the API server sends without kind', () => {
    const pods = readKubernetesObjects(list([{ ...pod('a', [gpuContainer('c', { 'nvidia.com/gpu': '2' })]), kind: undefined }], 'PodList'), 'pods.json');
    const nodes = readKubernetesObjects(list([{ metadata: { name: 'node-1', labels: { 'beta.kubernetes.io/instance-type': 'p4d.24xlarge' } } }], 'NodeList'), 'nodes.json');
    expect(pods.pods.map((entry) => entry.gpuResources)).toEqual([{ 'nvidia.com/gpu': 2 }]);
    // Only the deprecated beta label: still the instance type.
    expect(nodes.nodes.map((entry) => entry.instanceType)).toEqual(['p4d.24xlarge']);
  });

  it('counts MIG and shared (time-sliced) resources as devices, and ignores other extended resources', () => {
    const read = readKubernetesObjects(list([pod('mig', [
      gpuContainer('a', { 'nvidia.com/mig-1g.10gb': 2, 'hugepages-2Mi': '1Gi' }),
      gpuContainer('b', { 'nvidia.com/mig-3g.40gb': '1' }),
      gpuContainer('c', { 'nvidia.com/gpu.shared': 1, 'example.com/fpga': 1 }),
    ])]), 'x');
    expect(read.pods[0]!.gpuResources).toEqual({ 'nvidia.com/mig-1g.10gb': 2, 'nvidia.com/mig-3g.40gb': 1, 'nvidia.com/gpu.shared': 1 });
  });

  it('takes the largest init container request where it exceeds what runs together', () => {
    const read = readKubernetesObjects(list([pod('p', [gpuContainer('app', { 'nvidia.com/gpu': 1 })], {
      initContainers: [gpuContainer('warmup', { 'nvidia.com/gpu': 2 }), { ...gpuContainer('proxy', {}), restartPolicy: 'Always' }],
    })]), 'x');
    // Running together: app 1 + native sidecar proxy 0 = 1; the init container alone: 2. The pod needs max(1, 2) = 2.
    expect(read.pods[0]!.gpuResources).toEqual({ 'nvidia.com/gpu': 2 });
  });

  it('defaults a request to the limit, as the API server does', () => {
    const read = readKubernetesObjects(list([pod('p', [{ name: 'c', resources: { limits: { cpu: '2', memory: '1Gi' } } }])]), 'x');
    expect(read.pods[0]!.containers[0]).toMatchObject({ cpuCores: { request: 2, limit: 2 }, memoryMiB: { request: 1024, limit: 1024 } });
  });

  it('warns about quantities it cannot read and skips objects of other kinds', () => {
    const read = readKubernetesObjects(list([
      pod('p', [{ name: 'c', resources: { limits: { cpu: 'lots', 'nvidia.com/gpu': '0.5' } } }]),
      { kind: 'Service', metadata: { name: 's' } },
      { kind: 'Pod', metadata: {} },
    ]), 'x');
    expect(read.records).toBe(3);
    expect(read.warnings).toEqual([
      'items[0]: pod ml/p: container c: limits.nvidia.com/gpu "0.5" is not a whole number of devices; left out',
      'items[0]: pod ml/p: container c: limits.cpu "lots" is not a Kubernetes quantity; left out',
      'items[2]: Pod without metadata.name; skipped',
      '1 object of kind Service skipped: only Pods and Nodes are read',
    ]);
  });
});

describe('names longer than Kubernetes allows', () => {
  it('skips a Pod or Node whose name passes 253 characters, or a namespace past 63, saying so, and keeps the rest', () => {
    const pod = (name: string, namespace = 'ml'): object => ({ kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c' }] } });
    const read = readKubernetesObjects(JSON.stringify({ kind: 'List', items: [
      pod('p'.repeat(254)),
      pod('q', 'n'.repeat(64)),
      { kind: 'Node', metadata: { name: 'n'.repeat(100_000) } },
      pod('p'.repeat(253)),
    ] }), 'x');
    expect(read.pods.map((entry) => entry.name.length)).toEqual([253]);
    expect(read.nodes).toEqual([]);
    expect(read.warnings).toEqual([
      'items[0]: Pod metadata.name of 254 characters, longer than Kubernetes allows (253); skipped',
      'items[1]: Pod q: metadata.namespace of 64 characters, longer than Kubernetes allows (63); skipped',
      'items[2]: Node metadata.name of 100000 characters, longer than Kubernetes allows (253); skipped',
    ]);
  });
});

describe('inputs that are not Kubernetes objects', () => {
  it('names the line and column of a JSON syntax error where the parser gives its offset', () => {
    const error = (() => {
      try {
        // A missing comma: the parser stops at offset 21, the quote that opens "items".
        readKubernetesObjects('{\n  "kind": "List"\n  "items": []\n}', 'pods.json');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).file).toBe('pods.json');
    expect((error as InputError).location).toBe('line 3, column 3');
    expect((error as InputError).message).not.toContain('\n');
  });

  it.each([
    ['an object without kind', '{"items": []}', /not a Kubernetes object/],
    ['a Deployment', '{"kind": "Deployment", "metadata": {"name": "x"}}', /a Deployment, not a Pod or Node/],
    ['YAML', 'apiVersion: v1\nkind: List\n', /not JSON/],
  ])('rejects %s', (_name, text, message) => {
    expect(() => readKubernetesObjects(text, 'x.json')).toThrow(message);
  });
});

describe('readKubernetesFiles', () => {
  it('reads every file of a directory, skipping (and saying so) files that hold no Kubernetes objects', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-k8s-dir-'));
    writeFileSync(path.join(dir, 'pods.json.gz'), gzipSync(list([{ kind: 'Pod', metadata: { name: 'a' } }], 'List')));
    writeFileSync(path.join(dir, 'notes.txt'), 'not json');
    const reads = await readKubernetesFiles([dir]);
    expect(reads.map((read) => [path.basename(read.ref), read.records, read.pods.length, read.warnings.length])).toEqual([
      ['notes.txt', 0, 0, 1],
      ['pods.json.gz', 1, 1, 0],
    ]);
    expect(reads[0]!.warnings[0]).toMatch(/^skipped: not JSON/);
    // Named outright, the same file is an error.
    await expect(readKubernetesFiles([path.join(dir, 'notes.txt')])).rejects.toThrow(InputError);
  });
});

/** `text` fed to a streaming reader in the pieces that `cuts` make. */
function readInPieces(text: string, cuts: readonly number[], ref = 'pods.json') {
  const reader = new KubernetesObjectReader(ref);
  let from = 0;
  for (const cut of [...cuts, text.length].sort((a, b) => a - b)) {
    reader.write(text.slice(from, cut));
    from = cut;
  }
  return reader.end();
}

/** The InputError thrown by `read`, or undefined. */
function inputErrorOf(read: () => unknown): InputError | undefined {
  try {
    read();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  return undefined;
}

describe('a list read as it streams in, one item at a time', () => {
  const cluster = readFileSync(CLUSTER, 'utf8');

  it('reads what the whole document holds, wherever the chunks are cut', () => {
    const whole = readKubernetesObjects(cluster, 'cluster.json');
    fc.assert(fc.property(fc.array(fc.nat(cluster.length), { maxLength: 6 }), (cuts) => {
      expect(readInPieces(cluster, cuts, 'cluster.json')).toEqual(whole);
    }), { numRuns: 60 });
  });

  it("gives a PodList's items, which carry no kind, the list's kind whether it comes before or after them", () => {
    const items = [{ metadata: { name: 'a', namespace: 'ml' }, spec: { nodeName: 'n1', containers: [] } }, { metadata: { name: 'b', namespace: 'ml' } }];
    const kindFirst = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', items });
    const kindLast = JSON.stringify({ apiVersion: 'v1', items, kind: 'PodList' });
    const first = readKubernetesObjects(kindFirst, 'pods.json');
    expect(first.pods.map((pod) => pod.name)).toEqual(['a', 'b']);
    expect(readKubernetesObjects(kindLast, 'pods.json')).toEqual(first);
  });

  it('names the line and column, in the document, of a syntax error inside an item', () => {
    // The second item lacks the comma after "Pod": the parser stops at the quote of "metadata",
    // line 5, column 20.
    const text = [
      '{',
      '  "kind": "List",',
      '  "items": [',
      '    {"kind": "Pod", "metadata": {"name": "a"}},',
      '    {"kind": "Pod" "metadata": {"name": "b"}}',
      '  ]',
      '}',
    ].join('\n');
    for (const cuts of [[], [60], [70, 71, 72]]) {
      const error = inputErrorOf(() => readInPieces(text, cuts));
      expect(error?.location, `cuts ${cuts.join(',')}`).toBe('line 5, column 20');
      // V8's own offset is in the item it parsed: left out, the location says where it is.
      expect(error?.message).toBe(`not JSON (expected the output of kubectl get pods,nodes -A -o json): Expected ',' or '}' after property value`);
    }
  });

  it('names the item and where it starts when the parser gives no offset', () => {
    const text = '{"kind": "List", "items": [\n  {"kind": "Pod"},\n  {"kind": Pod}\n]}';
    expect(inputErrorOf(() => readInPieces(text, []))?.location).toBe('items[1] from line 3, column 3');
  });

  it('names the line and column of a syntax error after the items', () => {
    // No comma after the items' closing bracket: the parser stops at the quote of "kind", line 5, column 3.
    const text = '{\n  "items": [\n    {"kind": "Pod", "metadata": {"name": "a"}}\n  ]\n  "kind": "List"\n}';
    expect(inputErrorOf(() => readInPieces(text, [30]))?.location).toBe('line 5, column 3');
  });

  it('refuses a document that does not open with { at its first character, before reading on', () => {
    const reader = new KubernetesObjectReader('pods.yaml');
    const error = inputErrorOf(() => reader.write('\napiVersion: v1\n'));
    expect(error?.location).toBe('line 2, column 1');
    expect(error?.message).toMatch(/^not JSON/);
    expect(inputErrorOf(() => new KubernetesObjectReader('pods.json').write(' [{"kind": "Pod"}]'))?.message).toMatch(/^not a Kubernetes object/);
  });
});

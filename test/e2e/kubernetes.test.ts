/**
 * `gpu-audit audit --k8s` and `--kubectl`, run through the built CLI as a user runs them, on
 * test/fixtures/kubernetes: dcgm-exporter scrapes of two EKS nodes, every 30 minutes from
 * 08:00 to 11:00 UTC (7 scrapes), and the cluster's `kubectl get pods,nodes -A -o json`.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { bundledCatalog, findInstances } from '../../src/catalog/index.js';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli, type CliRun } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';

const FIXTURES = path.join(repoRoot, 'test/fixtures/kubernetes');
const SCRAPES = path.join(FIXTURES, 'scrapes.prom');
const CLUSTER = path.join(FIXTURES, 'cluster.json');
const NODE_1 = 'ip-10-0-12-34.us-west-2.compute.internal';
const TRAINER_GPU = 'GPU-3f1c9a2e-7b44-4d1e-9c0a-5e2b8f6d1a70';

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'gpu-audit-e2e-k8s-'));
}

/** Runs the CLI with the bundled instance catalog only (an empty cache), so prices are the snapshot's. */
function audit(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  return runBuiltCli(['audit', SCRAPES, '--format', 'json', '--timezone', 'UTC', ...args], { env: { GPU_AUDIT_CACHE_DIR: tempDir(), ...env } });
}

function validReport(run: CliRun): Report {
  expect(run.status, run.stderr).toBe(0);
  const report = JSON.parse(run.stdout) as Report;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(path.join(repoRoot, 'schema/report.schema.json'), 'utf8')) as object);
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  return report;
}

/** The price per GPU of an instance type in the bundled snapshot. */
function perGpuOnDemand(type: string): number {
  const instance = findInstances(bundledCatalog().instances, type)[0]!;
  return instance.prices.onDemand! / instance.gpuCount;
}

/** A fake `kubectl` on a PATH of its own. */
function pathWithKubectl(body: string): string {
  const dir = tempDir();
  const executable = path.join(dir, 'kubectl');
  writeFileSync(executable, `#!${process.execPath}\n${body}\n`);
  chmodSync(executable, 0o755);
  return dir;
}

function expectAcceptance(report: Report): void {
  const finding = report.findings.find((entry) => entry.code === 'allocated-unused' && entry.target === 'ml-training/trainer-0');
  // Each of the 7 samples stands for the 30 minutes to the next one (the last for the median, 30 min): 3.5 h, all at 0 %.
  expect(finding?.evidence).toMatchObject({
    pod: 'trainer-0',
    namespace: 'ml-training',
    node: NODE_1,
    workload: 'StatefulSet/trainer',
    gpus: TRAINER_GPU,
    basis: 'dcgm-labels',
    hours: 3.5,
    idleGpuHours: 3.5,
    idleFraction: 1,
  });
  expect(finding?.severity).toBe('warning');
}

describe('gpu-audit audit --k8s', () => {
  it('finds the pod that holds an idle GPU, with its namespace and hours, and prices nodes by their instance-type label', () => {
    const report = validReport(audit(['--k8s', CLUSTER]));
    expectAcceptance(report);

    // The idle A10G node's only pod requests its one GPU: matched through the node (its exporter has no pod labels).
    const embedder = report.findings.find((entry) => entry.target === 'search/embedder-6f8d7c9b4-k7m2p');
    expect(embedder?.evidence).toMatchObject({ basis: 'node', gpus: 'GPU-4b6d8f0a-2c1e-4d3f-9a5b-7c9e1f3a5b64', hours: 3.5 });
    // The busy inference pod is not in the list.
    expect(report.findings.filter((entry) => entry.code === 'allocated-unused').map((entry) => entry.target)).toEqual([
      'ml-training/trainer-0',
      'search/embedder-6f8d7c9b4-k7m2p',
    ]);

    // Node 1 is labelled g6.24xlarge (4 L4): 6.6752 $/h / 4 = 1.6688 $/h per GPU in the bundled snapshot,
    // where inference from 4 x L4 would have picked the cheaper g6.12xlarge (4.6016 / 4 = 1.1504).
    const trainerGpu = report.gpus.find((gpu) => gpu.id === TRAINER_GPU)!;
    expect(trainerGpu).toMatchObject({ instanceType: 'g6.24xlarge', instanceTypeBasis: 'label' });
    expect(trainerGpu.hourlyCostUsd).toBeCloseTo(perGpuOnDemand('g6.24xlarge'), 9);
    expect(perGpuOnDemand('g6.24xlarge')).not.toBeCloseTo(perGpuOnDemand('g6.12xlarge'), 3);
    expect(report.findings.find((entry) => entry.target === 'ml-training/trainer-0')?.evidence['hourlyCostUsd']).toBeCloseTo(perGpuOnDemand('g6.24xlarge'), 9);

    // The Kubernetes section: GPU pods (Running or Pending) and GPU nodes; the cluster file is a source.
    expect(report.kubernetes?.pods.map((pod) => `${pod.namespace}/${pod.name}:${pod.gpuMatch ?? '-'}`)).toEqual([
      'ml-training/trainer-0:dcgm-labels',
      'research/notebook-5c9f:-',
      'search/embedder-6f8d7c9b4-k7m2p:node',
      'serving/inference-7d4b9c8f5d-x2x9q:dcgm-labels',
    ]);
    expect(report.kubernetes?.nodes.map((node) => [node.name, node.host, node.instanceType])).toEqual([
      [NODE_1, NODE_1, 'g6.24xlarge'],
      ['ip-10-0-40-5.us-west-2.compute.internal', 'ip-10-0-40-5.us-west-2.compute.internal', 'g5.2xlarge'],
    ]);
    const trainer = report.kubernetes!.pods[0]!;
    // Sidecars log-shipper (250m, 256Mi) and native sidecar otel-agent (100m, 128Mi) beside trainer (16, 64Gi):
    // 0.35 / 16.35 cores = 2.14 % of the pod, 384 / 65920 MiB = 0.58 %.
    expect(trainer.sidecars.containers).toEqual(['log-shipper', 'otel-agent']);
    expect(trainer.sidecars.cpuPctOfPod).toBeCloseTo((0.35 / 16.35) * 100, 9);
    expect(trainer.sidecars.memoryPctOfPod).toBeCloseTo((384 / 65_920) * 100, 9);
    expect(report.sources.map((source) => [path.basename(source.ref), source.format, source.records])).toEqual([
      ['scrapes.prom', 'dcgm-exporter', 7],
      ['cluster.json', 'kubernetes', 9],
    ]);
    expect(report.sources[1]!.warnings).toEqual(['1 GPU pod in phase Succeeded left out: only Running and Pending pods hold GPUs']);
  });

  it('reads separate pod and node lists, as the API returns them', () => {
    const cluster = JSON.parse(readFileSync(CLUSTER, 'utf8')) as { items: { kind: string }[] };
    const dir = tempDir();
    const asList = (kind: string): string => {
      // API lists (PodList, NodeList) carry no kind on their items.
      const items = cluster.items.filter((item) => item.kind === kind).map(({ kind: _kind, ...item }) => item);
      const file = path.join(dir, `${kind.toLowerCase()}s.json`);
      writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: `${kind}List`, metadata: { resourceVersion: '48213017' }, items }));
      return file;
    };
    const report = validReport(audit(['--k8s', asList('Pod'), '--k8s', asList('Node')]));
    expectAcceptance(report);
    expect(report.gpus.find((gpu) => gpu.id === TRAINER_GPU)?.instanceTypeBasis).toBe('label');
    expect(report.sources.map((source) => [path.basename(source.ref), source.records])).toEqual([['scrapes.prom', 7], ['pods.json', 6], ['nodes.json', 3]]);
  });

  it('leaves the report without a kubernetes section when no Kubernetes input is given', () => {
    const report = validReport(audit([]));
    expect(report.kubernetes).toBeUndefined();
    expect(report.findings.some((entry) => entry.code === 'allocated-unused')).toBe(false);
  });

  it('exits 2 with the file and place of a broken pod list', () => {
    const file = path.join(tempDir(), 'pods.json');
    writeFileSync(file, '{\n  "kind": "List"\n  "items": []\n}\n');
    const run = audit(['--k8s', file]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`${file}: line 3, column 3: not JSON`);
  });
});

describe('gpu-audit audit --kubectl', () => {
  const printsCluster = `process.stdout.write(require('node:fs').readFileSync(${JSON.stringify(CLUSTER)}, 'utf8'));`;

  it('asks kubectl for the pods and nodes, passing --kube-context through', () => {
    const argsFile = path.join(tempDir(), 'args.json');
    const dir = pathWithKubectl(`require('node:fs').writeFileSync(${JSON.stringify(argsFile)}, JSON.stringify(process.argv.slice(2)));\n${printsCluster}`);
    const report = validReport(audit(['--kubectl', '--kube-context', 'prod-eks'], { PATH: dir }));
    expectAcceptance(report);
    expect(JSON.parse(readFileSync(argsFile, 'utf8'))).toEqual([
      '--context', 'prod-eks', 'get', 'pods,nodes', '--all-namespaces', '--output', 'json', '--request-timeout=60s',
    ]);
    expect(report.sources.at(-1)).toMatchObject({ ref: 'kubectl --context prod-eks', format: 'kubernetes', records: 9 });
  });

  it('exits 2 when kubectl is not installed', () => {
    const run = audit(['--kubectl'], { PATH: tempDir() });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/kubectl is not installed or not on PATH/);
  });

  it('exits 3 when the cluster cannot be reached', () => {
    const dir = pathWithKubectl(`process.stderr.write('Unable to connect to the server: dial tcp 10.0.0.1:443: connect: connection refused\\n'); process.exit(1);`);
    const run = audit(['--kubectl'], { PATH: dir });
    expect(run.status).toBe(3);
    expect(run.stderr).toContain('kubectl: kubectl exited with status 1: Unable to connect to the server');
  });

  it('exits 2 for --kube-context without --kubectl', () => {
    const run = audit(['--kube-context', 'prod']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--kube-context needs --kubectl');
  });

  it('exits 2 when both the sources and --k8s are to be read from standard input', () => {
    const run = runBuiltCli(['audit', '-', '--k8s', '-', '--format', 'json'], { input: readFileSync(SCRAPES), env: { GPU_AUDIT_CACHE_DIR: tempDir() } });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('gpu-audit: standard input (-) can be read once: give it to the sources or to --k8s, not both\n');
  });
});

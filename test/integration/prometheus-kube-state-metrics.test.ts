/**
 * Pods and nodes from kube-state-metrics series in the same Prometheus, in place of `--k8s`:
 * test/fixtures/kubernetes's dcgm-exporter scrapes with kube-state-metrics series written here
 * for two of its pods (each a Deployment's, through its ReplicaSet) and its two GPU nodes, at
 * the same seven scrape times. The Kubernetes section names those pods and nodes as the audit
 * of cluster.json does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { gpuResourceName } from '../../src/sources/live/prometheus/kube-state-metrics.js';
import { runCliInProcess } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { INSTALL_HINT, prometheusAvailable, type RunningPrometheus, serveFiles } from '../helpers/prometheus-server.js';

const FIXTURES = path.join(repoRoot, 'test/fixtures/kubernetes');
const SCRAPES = path.join(FIXTURES, 'scrapes.prom');
const L4_NODE = 'ip-10-0-12-34.us-west-2.compute.internal';
const A10G_NODE = 'ip-10-0-40-5.us-west-2.compute.internal';
const TIMES = Array.from({ length: 7 }, (_, scrape) => Date.parse('2026-11-20T08:00:00Z') + scrape * 1_800_000);
const WINDOW = ['--since', '2026-11-20T07:30:00Z', '--until', '2026-11-20T11:00:00Z', '--step', '30m', '--timezone', 'UTC', '--format', 'json'];
const GIB = 1024 ** 3;

/** kube-state-metrics v2's series for the two Deployment pods and the GPU nodes of cluster.json. */
function kubeStateMetrics(): string {
  const ksm = 'instance="kube-state-metrics:8080",job="kube-state-metrics"';
  const series: [string, string, number][] = [
    ['kube_pod_info', `namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",node="${L4_NODE}",created_by_kind="ReplicaSet",created_by_name="inference-7d4b9c8f5d"`, 1],
    ['kube_pod_info', `namespace="search",pod="embedder-6f8d7c9b4-k7m2p",node="${A10G_NODE}",created_by_kind="ReplicaSet",created_by_name="embedder-6f8d7c9b4"`, 1],
    ['kube_pod_status_phase', 'namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",phase="Running"', 1],
    ['kube_pod_status_phase', 'namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",phase="Pending"', 0],
    ['kube_pod_status_phase', 'namespace="search",pod="embedder-6f8d7c9b4-k7m2p",phase="Running"', 1],
    ['kube_pod_owner', 'namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",owner_kind="ReplicaSet",owner_name="inference-7d4b9c8f5d",owner_is_controller="true"', 1],
    ['kube_pod_owner', 'namespace="search",pod="embedder-6f8d7c9b4-k7m2p",owner_kind="ReplicaSet",owner_name="embedder-6f8d7c9b4",owner_is_controller="true"', 1],
    ['kube_replicaset_owner', 'namespace="serving",replicaset="inference-7d4b9c8f5d",owner_kind="Deployment",owner_name="inference",owner_is_controller="true"', 1],
    ['kube_replicaset_owner', 'namespace="search",replicaset="embedder-6f8d7c9b4",owner_kind="Deployment",owner_name="embedder",owner_is_controller="true"', 1],
    ['kube_pod_container_resource_requests', `namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",container="server",node="${L4_NODE}",resource="cpu",unit="core"`, 4],
    ['kube_pod_container_resource_requests', `namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",container="server",node="${L4_NODE}",resource="memory",unit="byte"`, 24 * GIB],
    ['kube_pod_container_resource_requests', `namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",container="server",node="${L4_NODE}",resource="nvidia_com_gpu",unit="integer"`, 1],
    ['kube_pod_container_resource_limits', `namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",container="server",node="${L4_NODE}",resource="memory",unit="byte"`, 24 * GIB],
    ['kube_pod_container_resource_limits', `namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",container="server",node="${L4_NODE}",resource="nvidia_com_gpu",unit="integer"`, 1],
    ['kube_pod_container_resource_requests', `namespace="search",pod="embedder-6f8d7c9b4-k7m2p",container="embedder",node="${A10G_NODE}",resource="cpu",unit="core"`, 2],
    ['kube_pod_container_resource_requests', `namespace="search",pod="embedder-6f8d7c9b4-k7m2p",container="embedder",node="${A10G_NODE}",resource="memory",unit="byte"`, 8 * GIB],
    ['kube_pod_container_resource_requests', `namespace="search",pod="embedder-6f8d7c9b4-k7m2p",container="embedder",node="${A10G_NODE}",resource="nvidia_com_gpu",unit="integer"`, 1],
    ['kube_pod_container_resource_limits', `namespace="search",pod="embedder-6f8d7c9b4-k7m2p",container="embedder",node="${A10G_NODE}",resource="cpu",unit="core"`, 4],
    ['kube_pod_container_resource_limits', `namespace="search",pod="embedder-6f8d7c9b4-k7m2p",container="embedder",node="${A10G_NODE}",resource="memory",unit="byte"`, 8 * GIB],
    ['kube_pod_container_resource_limits', `namespace="search",pod="embedder-6f8d7c9b4-k7m2p",container="embedder",node="${A10G_NODE}",resource="nvidia_com_gpu",unit="integer"`, 1],
    ['kube_node_info', `node="${L4_NODE}"`, 1],
    ['kube_node_info', `node="${A10G_NODE}"`, 1],
    ['kube_pod_labels', 'namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",label_app="inference",label_pod_template_hash="7d4b9c8f5d"', 1],
    ['kube_pod_labels', 'namespace="search",pod="embedder-6f8d7c9b4-k7m2p",label_app="embedder",label_pod_template_hash="6f8d7c9b4"', 1],
    ['kube_node_labels', `node="${L4_NODE}",label_node_kubernetes_io_instance_type="g6.24xlarge",label_nvidia_com_gpu_product="NVIDIA-L4",label_nvidia_com_gpu_count="4",label_nvidia_com_gpu_memory="23034",label_nvidia_com_mig_strategy="single"`, 1],
    ['kube_node_labels', `node="${A10G_NODE}",label_node_kubernetes_io_instance_type="g5.2xlarge",label_nvidia_com_gpu_product="NVIDIA-A10G",label_nvidia_com_gpu_count="1",label_nvidia_com_gpu_memory="23028",label_nvidia_com_mig_strategy="single"`, 1],
    ['kube_node_status_allocatable', `node="${L4_NODE}",resource="cpu",unit="core"`, 95.69],
    ['kube_node_status_allocatable', `node="${L4_NODE}",resource="memory",unit="byte"`, 380_583_936 * 1024],
    ['kube_node_status_allocatable', `node="${L4_NODE}",resource="nvidia_com_gpu",unit="integer"`, 4],
    ['kube_node_status_capacity', `node="${L4_NODE}",resource="nvidia_com_gpu",unit="integer"`, 4],
    ['kube_node_status_allocatable', `node="${A10G_NODE}",resource="cpu",unit="core"`, 7.91],
    ['kube_node_status_allocatable', `node="${A10G_NODE}",resource="memory",unit="byte"`, 31_369_960 * 1024],
    ['kube_node_status_allocatable', `node="${A10G_NODE}",resource="nvidia_com_gpu",unit="integer"`, 1],
    ['kube_node_status_capacity', `node="${A10G_NODE}",resource="nvidia_com_gpu",unit="integer"`, 1],
  ];
  return `${series.flatMap(([name, labels, value]) => TIMES.map((time) => `${name}{${labels},${ksm}} ${value} ${time}`)).join('\n')}\n`;
}

describe('audit --prometheus with kube-state-metrics series, without --k8s', () => {
  let dir: string;
  let server: RunningPrometheus;
  let fromMetrics: Report;
  let fromObjects: Report;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error(INSTALL_HINT);
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-ksm-'));
    const ksm = path.join(dir, 'kube-state-metrics.prom');
    writeFileSync(ksm, kubeStateMetrics());
    server = await serveFiles([], [SCRAPES, ksm]);
    const [live, files] = await Promise.all([
      runCliInProcess(['audit', '--prometheus', server.url, ...WINDOW]),
      runCliInProcess(['audit', '--prometheus', server.url, ...WINDOW, '--k8s', path.join(FIXTURES, 'cluster.json')]),
    ]);
    expect(live.status, live.stderr).toBe(0);
    expect(files.status, files.stderr).toBe(0);
    fromMetrics = JSON.parse(live.stdout) as Report;
    fromObjects = JSON.parse(files.stdout) as Report;
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('names the pods, their owners, nodes, requests and GPUs as cluster.json does', () => {
    const pick = (report: Report, name: string) => report.kubernetes!.pods.find((pod) => pod.name === name);
    for (const name of ['inference-7d4b9c8f5d-x2x9q', 'embedder-6f8d7c9b4-k7m2p']) {
      // Label names come back as kube-state-metrics wrote them: pod-template-hash as pod_template_hash.
      const { labels, ...rest } = pick(fromObjects, name)!;
      const renamed = Object.fromEntries(Object.entries(labels).map(([label, value]) => [label.replace(/[-./]/gu, '_'), value]));
      expect(pick(fromMetrics, name), name).toEqual({ ...rest, labels: renamed });
    }
    expect(pick(fromMetrics, 'inference-7d4b9c8f5d-x2x9q')).toMatchObject({ workloadKind: 'Deployment', workloadName: 'inference', node: L4_NODE, gpusRequested: 1 });
    expect(fromMetrics.sources.map((source) => source.ref)).toEqual([server.url, `${server.url} (kube-state-metrics)`]);
  });

  it('prices the GPU nodes by their instance-type label, with their allocatable CPU and memory', () => {
    const node = (report: Report, name: string) => report.kubernetes!.nodes.find((entry) => entry.name === name);
    for (const name of [L4_NODE, A10G_NODE]) expect(node(fromMetrics, name), name).toEqual(node(fromObjects, name));
  });

  it('reads kube-state-metrics\' resource names back: dots, slashes and dashes were written as underscores', () => {
    expect(['nvidia_com_gpu', 'nvidia_com_mig_1g_10gb', 'nvidia_com_gpu_shared', 'cpu'].map(gpuResourceName)).toEqual(['nvidia.com/gpu', 'nvidia.com/mig-1g.10gb', 'nvidia.com/gpu.shared', undefined]);
  });
});

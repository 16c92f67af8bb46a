/**
 * `gpu-audit audit --prometheus` with Kubernetes: per-pod attribution from dcgm-exporter's pod
 * labels and the CPU data-pipeline figures from node_exporter and cAdvisor, against a real
 * Prometheus, compared with the file audit of the same series.
 *
 * Data: test/fixtures/kubernetes (dcgm-exporter scrapes of two EKS nodes every 30 minutes from
 * 2026-11-20T08:00Z to 11:00Z, 7 scrapes; the L4 node's exporter maps pods, the A10G node's
 * does not; the cluster's pods and nodes) and CPU counters written here for the same seven
 * scrape times (cpuExposition). The server holds exactly what the files hold; the Prometheus
 * audit reads the window (07:30, 11:00] at a 30-minute step, whose steps fall on the scrapes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { runCliInProcess } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { INSTALL_HINT, prometheusAvailable, type RunningPrometheus, serveFiles } from '../helpers/prometheus-server.js';

const FIXTURES = path.join(repoRoot, 'test/fixtures/kubernetes');
const SCRAPES = path.join(FIXTURES, 'scrapes.prom');
const CLUSTER = path.join(FIXTURES, 'cluster.json');
const L4_NODE = 'ip-10-0-12-34.us-west-2.compute.internal';
const TRAINER_GPU = 'GPU-3f1c9a2e-7b44-4d1e-9c0a-5e2b8f6d1a70';
const FIRST_SCRAPE_MS = Date.parse('2026-11-20T08:00:00Z');
const INTERVAL_MS = 1_800_000;
const SCRAPES_COUNT = 7;
const WINDOW = ['--since', '2026-11-20T07:30:00Z', '--until', '2026-11-20T11:00:00Z', '--step', '30m'];

const CONFIG = `workloads:
  - name: trainer
    kind: training
    match: { namespace: ml-training, pod: trainer-* }
  - name: inference
    kind: inference
    match: { namespace: serving }
`;

/**
 * node_exporter on the L4 node (96 CPUs) and cAdvisor for its two GPU pods, one reading per
 * scrape time. Per CPU and 30-minute interval (1,800 s): user 1,080 s, system 180 s, iowait
 * 36 s, idle 504 s, so the host is 1 - (504 + 36) / 1,800 = 70 % busy. Per interval: trainer
 * uses 900 s (0.5 cores) in 18,000 CFS periods, none throttled; its sidecar log-shipper 180 s
 * (0.1 cores), throttled in 3,600 of 18,000 periods (20 %); its native sidecar otel-agent 90 s
 * (0.05 cores, no CPU limit: no CFS counters); the inference server 5,400 s (3 cores, no limit).
 * The pod cgroup (container="") and the pause container (POD) are there too, as cAdvisor
 * exports them, and must be left out. The A10G node has no node_exporter.
 */
function cpuExposition(): string {
  const lines: string[] = [];
  const times = Array.from({ length: SCRAPES_COUNT }, (_, scrape) => FIRST_SCRAPE_MS + scrape * INTERVAL_MS);
  const perInterval: [string, number][] = [['user', 1080], ['system', 180], ['iowait', 36], ['idle', 504]];
  for (let cpu = 0; cpu < 96; cpu += 1) {
    for (const [mode, seconds] of perInterval) {
      times.forEach((time, scrape) => {
        // Counters start at an arbitrary uptime's worth (mode x 1,000 + cpu).
        lines.push(`node_cpu_seconds_total{cpu="${cpu}",instance="${L4_NODE}:9100",job="node",mode="${mode}"} ${seconds * 1000 + cpu + scrape * seconds} ${time}`);
      });
    }
  }
  const containers: { pod: string; namespace: string; container: string; usage: number; periods?: number; throttled?: number }[] = [
    { namespace: 'ml-training', pod: 'trainer-0', container: 'trainer', usage: 900, periods: 18_000, throttled: 0 },
    { namespace: 'ml-training', pod: 'trainer-0', container: 'log-shipper', usage: 180, periods: 18_000, throttled: 3600 },
    { namespace: 'ml-training', pod: 'trainer-0', container: 'otel-agent', usage: 90 },
    { namespace: 'ml-training', pod: 'trainer-0', container: '', usage: 1170 },
    { namespace: 'ml-training', pod: 'trainer-0', container: 'POD', usage: 0.01 },
    { namespace: 'serving', pod: 'inference-7d4b9c8f5d-x2x9q', container: 'server', usage: 5400 },
  ];
  for (const entry of containers) {
    const labels = `container="${entry.container}",instance="${L4_NODE}",job="kubernetes-cadvisor",namespace="${entry.namespace}",pod="${entry.pod}"`;
    const counters: [string, number | undefined][] = [
      ['container_cpu_usage_seconds_total', entry.usage],
      ['container_cpu_cfs_periods_total', entry.periods],
      ['container_cpu_cfs_throttled_periods_total', entry.throttled],
    ];
    for (const [name, perScrape] of counters) {
      if (perScrape === undefined) continue;
      times.forEach((time, scrape) => lines.push(`${name}{${labels}} ${50_000 + scrape * perScrape} ${time}`));
    }
  }
  return `${lines.join('\n')}\n`;
}

const cli = runCliInProcess;

describe('audit --prometheus --k8s against a real Prometheus: pods and CPU pipeline', () => {
  let dir: string;
  let server: RunningPrometheus;
  let fromFiles: Report;
  let fromPrometheus: Report;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error(INSTALL_HINT);
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-prom-k8s-'));
    const cpuFile = path.join(dir, 'cpu-federate.prom');
    writeFileSync(cpuFile, cpuExposition());
    const config = path.join(dir, 'gpu-audit.yaml');
    writeFileSync(config, CONFIG);
    server = await serveFiles([], [SCRAPES, cpuFile]);
    const common = ['--k8s', CLUSTER, '--config', config, '--timezone', 'UTC', '--format', 'json'];
    const files = await cli(['audit', SCRAPES, cpuFile, ...common]);
    expect(files.status, files.stderr).toBe(0);
    fromFiles = JSON.parse(files.stdout) as Report;
    const live = await cli(['audit', '--prometheus', server.url, ...WINDOW, ...common]);
    expect(live.status, live.stderr).toBe(0);
    fromPrometheus = JSON.parse(live.stdout) as Report;
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('attributes GPUs to pods from the pod labels: the Kubernetes section equals the file audit\'s', () => {
    expect(fromPrometheus.kubernetes?.pods.map((pod) => `${pod.namespace}/${pod.name}:${pod.gpuMatch ?? '-'}`)).toEqual([
      'ml-training/trainer-0:dcgm-labels',
      'research/notebook-5c9f:-',
      'search/embedder-6f8d7c9b4-k7m2p:node',
      'serving/inference-7d4b9c8f5d-x2x9q:dcgm-labels',
    ]);
    expect(fromPrometheus.kubernetes).toEqual(fromFiles.kubernetes);
  });

  it('finds the pod holding an idle GPU (allocated-unused) with the same pod, namespace and hours', () => {
    const unused = (report: Report) => report.findings.filter((entry) => entry.code === 'allocated-unused');
    const finding = unused(fromPrometheus).find((entry) => entry.target === 'ml-training/trainer-0');
    // 7 steps of 30 minutes at which the pod held GPU 0, all at 0 %: 3.5 h, as the file audit's 7 samples.
    expect(finding?.evidence).toMatchObject({ pod: 'trainer-0', namespace: 'ml-training', gpus: TRAINER_GPU, basis: 'dcgm-labels', hours: 3.5, idleGpuHours: 3.5, idleFraction: 1 });
    expect(unused(fromPrometheus).map((entry) => [entry.target, entry.evidence])).toEqual(unused(fromFiles).map((entry) => [entry.target, entry.evidence]));
  });

  it('matches workloads by pod selectors, and gives the same CPU pipeline verdicts and sidecar figures', () => {
    const byName = (report: Report) => new Map(report.workloads.map((workload) => [workload.name, workload]));
    const files = byName(fromFiles);
    const live = byName(fromPrometheus);
    expect([...live.keys()].sort()).toEqual([...files.keys()].sort());
    expect(live.get('trainer')?.gpus).toEqual([TRAINER_GPU]);
    for (const [name, workload] of files) {
      expect(live.get(name)?.cpuPipeline, name).toEqual(workload.cpuPipeline);
      expect(live.get(name)?.sidecars, name).toEqual(workload.sidecars);
    }
    // By hand: host 70 % busy, 0.7 x 96 = 67.2 cores; the inference server used 5,400 s per 1,800 s = 3 cores.
    const inference = live.get('inference')!.cpuPipeline;
    expect(inference.evidence).toEqual(expect.arrayContaining(['host CPU 70% busy (67.2 of 96 cores)', 'containers used 3.00 cores']));
    // The trainer's GPU is idle whatever the CPU: its own container used 0.5 cores, never throttled.
    expect(live.get('trainer')!.cpuPipeline.verdict).toBe('idle');
    expect(live.get('trainer')!.cpuPipeline.evidence).toEqual(expect.arrayContaining(['containers used 0.50 cores', 'container CPU throttled in 0% of CFS periods']));
    // Sidecars log-shipper (0.1 cores) and otel-agent (0.05 cores) used 0.15 cores.
    expect(live.get('trainer')!.sidecars.cpuUsedCores).toBeCloseTo(0.15, 9);
  });

  it('gives the same GPU time figures', () => {
    for (const gpu of fromFiles.gpus) {
      const live = fromPrometheus.gpus.find((other) => other.id === gpu.id);
      expect(live, gpu.id).toBeDefined();
      // 7 samples of 30 minutes either way.
      expect(live!.gpuHours, gpu.id).toBeCloseTo(gpu.gpuHours, 9);
      expect(live!.idleHours, gpu.id).toBeCloseTo(gpu.idleHours, 9);
    }
  });
});

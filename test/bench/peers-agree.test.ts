/**
 * The benchmark compares like with like: each Python peer computes the same per-GPU figures
 * gpu-audit reports (samples, mean and max utilization, max memory used), checked on the
 * generated inputs (at a small scale) and on the real corpus documents.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PYTHON } from '../../bench/contenders.js';
import { benchInputs, ensureInput, type GeneratedInput } from '../../bench/generate/inputs.js';
import { runAudit } from '../../src/engine/run-audit.js';
import { loadCatalog } from '../../src/catalog/index.js';
import type { InstanceCatalog } from '../../src/model/catalog.js';
import { corpusFiles, repoRoot } from '../helpers/corpus.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

interface Figures {
  samples: number;
  utilizationMean: number | null;
  utilizationMax: number | null;
  memoryUsedMaxMiB: number | null;
}

const SCALE = 0.001;
let folder: string;
let catalog: InstanceCatalog;
let generated: Map<string, GeneratedInput>;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'gpu-audit-peers-'));
  catalog = await loadCatalog({ preferCache: false });
  generated = new Map(benchInputs(SCALE).map((input) => [input.id, ensureInput(input, folder)]));
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

function peerFigures(script: string, file: string, ...options: string[]): Record<string, Figures> {
  const run = spawnSync(PYTHON, [path.join(repoRoot, 'bench/peers', script), ...options, file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`${script} failed (${PYTHON}; see scripts/install-system-deps.sh): ${run.stderr}`);
  return (JSON.parse(run.stdout) as { gpus: Record<string, Figures> }).gpus;
}

/** gpu-audit's figures per physical GPU (MIG instances, `UUID/GI`, have no peer figures), keyed by UUID. */
async function gpuAuditFigures(file: string): Promise<Record<string, Figures>> {
  const { report } = await runAudit({ inputs: [file], ...AUDIT_DEFAULTS, catalog });
  const figures: Record<string, Figures> = {};
  for (const gpu of report.gpus.filter((entry) => !entry.id.includes('/'))) {
    figures[gpu.id] = {
      samples: gpu.samples,
      utilizationMean: gpu.utilization?.mean ?? null,
      utilizationMax: gpu.utilization?.max ?? null,
      memoryUsedMaxMiB: gpu.memoryUsedMiB?.max ?? null,
    };
  }
  return figures;
}

/** Equal figures; means within 0.05 points (gpu-audit weights samples by time, the peers do not). */
function expectSameFigures(peer: Record<string, Figures>, ours: Record<string, Figures>): void {
  expect(Object.keys(peer).sort()).toEqual(Object.keys(ours).sort());
  for (const [id, figures] of Object.entries(ours)) {
    const theirs = peer[id]!;
    expect({ ...theirs, utilizationMean: null }, id).toEqual({ ...figures, utilizationMean: null });
    if (figures.utilizationMean === null) expect(theirs.utilizationMean, id).toBeNull();
    else expect(theirs.utilizationMean, id).toBeCloseTo(figures.utilizationMean, 1);
  }
}

describe('the Python peers compute gpu-audit figures', () => {
  it('ElementTree, both variants, on the generated nvidia-smi log', async () => {
    const { file } = generated.get('xml-log')!;
    const ours = await gpuAuditFigures(file);
    expect(Object.keys(ours)).toHaveLength(8);
    expectSameFigures(peerFigures('xml_etree.py', file, '--mode', 'document'), ours);
    expectSameFigures(peerFigures('xml_etree.py', file, '--mode', 'pull'), ours);
  });

  // Both GPUs of telegraf-dual_2080-v13.xml carry the same masked UUID: the peer keys GPUs by UUID alone.
  const distinctUuids = (name: string): boolean => name !== 'telegraf-dual_2080-v13.xml';
  it.each(corpusFiles('nvidia-smi-xml', distinctUuids).map((file) => [path.basename(file), file]))('ElementTree on the corpus document %s', async (_name, file) => {
    const ours = await gpuAuditFigures(file);
    expectSameFigures(peerFigures('xml_etree.py', file, '--mode', 'document'), ours);
    expectSameFigures(peerFigures('xml_etree.py', file, '--mode', 'pull'), ours);
  });

  it('csv on the generated --query-gpu log', async () => {
    const { file } = generated.get('csv-log')!;
    const ours = await gpuAuditFigures(file);
    expect(Object.keys(ours)).toHaveLength(8);
    expectSameFigures(peerFigures('csv_stats.py', file), ours);
  });

  it.each(['dcgm-scrape', 'dcgm-scrapes'])('prometheus_client on the generated %s', async (id) => {
    const { file } = generated.get(id)!;
    const ours = await gpuAuditFigures(file);
    expect(Object.keys(ours)).toHaveLength(10);
    expectSameFigures(peerFigures('prom_client.py', file), ours);
  });

  it('json on the generated Prometheus query_range answer', async () => {
    const { file } = generated.get('prometheus-range')!;
    const ours = await gpuAuditFigures(file);
    expect(Object.keys(ours)).toHaveLength(8);
    expectSameFigures(peerFigures('prom_json.py', file), ours);
  });

  it('json on the generated Kubernetes list: GPU nodes, their GPUs, and the GPUs running pods request', async () => {
    const { file } = generated.get('k8s-list')!;
    const run = spawnSync(PYTHON, [path.join(repoRoot, 'bench/peers/k8s_json.py'), file], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const peer = JSON.parse(run.stdout) as { gpuNodes: number; gpus: number; gpusRequested: number };
    const { report } = await runAudit({
      inputs: [path.join(repoRoot, 'test/fixtures/kubernetes/scrapes.prom')], kubernetesFiles: [file],
      ...AUDIT_DEFAULTS, catalog,
    });
    const gpuNodes = report.kubernetes!.nodes.filter((node) => (node.gpuAllocatable['nvidia.com/gpu'] ?? 0) > 0);
    const onGpuNodes = new Set(gpuNodes.map((node) => node.name));
    const running = report.kubernetes!.pods.filter((pod) => pod.phase === 'Running' && pod.node !== null && onGpuNodes.has(pod.node));
    expect({
      gpuNodes: gpuNodes.length,
      gpus: gpuNodes.reduce((sum, node) => sum + node.gpuAllocatable['nvidia.com/gpu']!, 0),
      gpusRequested: running.reduce((sum, pod) => sum + pod.gpusRequested, 0),
    }).toEqual(peer);
    // At this scale, 10 GPUs: one 8-GPU node, whose trainer pod asks for all 8.
    expect(peer).toEqual({ gpuNodes: 1, gpus: 8, gpusRequested: 8 });
  });
});

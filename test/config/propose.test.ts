/**
 * What `gpu-audit init` proposes: commands normalised to the program they run, kinds
 * suggested from names, and the proposals for the demo fleet and the Kubernetes fixture,
 * checked against the processes and pods listed in fixtures/demo/README.md and
 * test/fixtures/kubernetes.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAudit } from '../../src/engine/run-audit.js';
import { demoFleetFiles } from '../../src/cli/paths.js';
import { normaliseCommand, proposeThresholds, proposeWorkloads, suggestKind } from '../../src/config/propose.js';
import type { Report } from '../../src/model/report.js';
import { repoRoot } from '../helpers/corpus.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

const baseOptions = { ...AUDIT_DEFAULTS };

describe('normaliseCommand: the program a command line runs', () => {
  it.each([
    // An interpreter's script: its base name without extension; the path, dots escaped, finds it.
    ['python3 /workspace/train.py', 'train', '/workspace/train\\.py'],
    ['/opt/conda/bin/python3.11 -u /srv/jobs/embed_batch.py --shard 3', 'embed_batch', '/srv/jobs/embed_batch\\.py'],
    ['torchrun --nproc_per_node 8 finetune.py', 'finetune', 'finetune\\.py'],
    // `-m module`: the module's top package names it; the whole module finds it.
    ['/usr/bin/python3 -m vllm.entrypoints.openai.api_server --port 8000', 'vllm', '-m vllm\\.entrypoints\\.openai\\.api_server'],
    ['/opt/conda/bin/python3 -m ipykernel_launcher -f /home/jovyan/kernel-1.json', 'ipykernel_launcher', '-m ipykernel_launcher'],
    // A native program: its base name; arguments are left out.
    ['/opt/tritonserver/bin/tritonserver --model-repository=/models', 'tritonserver', 'tritonserver'],
    // Only a name, as some drivers list processes: the name itself.
    ['python3', 'python3', 'python3'],
    ['[Not Found]', '[Not', '\\[Not'],
  ])('%s -> %s', (commandLine, key, pattern) => {
    expect(normaliseCommand(commandLine)).toEqual({ key, pattern });
    expect(new RegExp(pattern).test(commandLine)).toBe(true);
  });
});

describe('suggestKind: the kind a name suggests', () => {
  it.each([
    ['/usr/bin/python3 -m vllm.entrypoints.openai.api_server', 'inference'],
    ['/opt/tritonserver/bin/tritonserver', 'inference'],
    ['text-generation-launcher --model-id x', 'inference'],
    ['python3 /workspace/train.py', 'training'],
    ['python3 -m ipykernel_launcher', 'interactive'],
    ['jupyter-lab', 'interactive'],
    ['python3 /opt/eval/nightly_eval.py', 'batch'],
  ])('%s -> %s', (name, kind) => {
    expect(suggestKind(name)).toBe(kind);
  });
});

describe('proposals for the demo fleet', async () => {
  const { report } = await runAudit({ ...baseOptions, inputs: demoFleetFiles });
  const proposals = proposeWorkloads(report);

  it('proposes one workload per program, in the order the report lists the GPUs', () => {
    // fixtures/demo/README.md: 2 vLLM servers on infer-h200-01; on mig-a100-01 Triton, the embedding
    // batch, pytest (2 processes on one MIG device) and the nightly eval; 4 Jupyter kernels with
    // different kernel files on notebook-a10g-01; 8 ranks of train.py on train-h100-01.
    expect(proposals.map(({ name, kind, match, hosts, gpus }) => ({ name, kind, match, hosts, gpus: gpus.length }))).toEqual([
      { name: 'vllm', kind: 'inference', match: { process: '-m vllm\\.entrypoints\\.openai\\.api_server', hosts: ['infer-h200-01'] }, hosts: ['infer-h200-01'], gpus: 2 },
      { name: 'tritonserver', kind: 'inference', match: { process: 'tritonserver' }, hosts: ['mig-a100-01'], gpus: 1 },
      { name: 'embed_batch', kind: 'batch', match: { process: '/srv/jobs/embed_batch\\.py' }, hosts: ['mig-a100-01'], gpus: 1 },
      { name: 'pytest', kind: 'batch', match: { process: '-m pytest' }, hosts: ['mig-a100-01'], gpus: 1 },
      { name: 'nightly_eval', kind: 'batch', match: { process: '/opt/eval/nightly_eval\\.py' }, hosts: ['mig-a100-01'], gpus: 1 },
      { name: 'ipykernel_launcher', kind: 'interactive', match: { process: '-m ipykernel_launcher', hosts: ['notebook-a10g-01'] }, hosts: ['notebook-a10g-01'], gpus: 4 },
      { name: 'train', kind: 'training', match: { process: '/workspace/train\\.py', hosts: ['train-h100-01'] }, hosts: ['train-h100-01'], gpus: 8 },
    ]);
  });

  it('gives every process of the fleet exactly one proposal whose pattern finds it', () => {
    for (const gpu of report.gpus) {
      for (const process of gpu.processes) {
        const finders = proposals.filter((proposal) => 'process' in proposal.match && new RegExp(proposal.match.process).test(process.name));
        expect(finders.map((proposal) => proposal.name), process.name).toHaveLength(1);
        expect(finders[0]!.gpus).toContain(gpu.id);
      }
    }
  });

  it('claims whole hosts only where one program runs alone (mig-a100-01 is shared by four)', () => {
    const withHosts = proposals.filter((proposal) => 'hosts' in proposal.match).map((proposal) => proposal.name);
    expect(withHosts).toEqual(['vllm', 'ipykernel_launcher', 'train']);
  });

  it('proposes check limits the fleet meets today, rounded outwards to a multiple of 5', () => {
    // The demo's waste is 63.41 % (idle MIG slices included) -> the next multiple of 5 above, 65;
    // mean compute 33.3 % -> 30.
    expect(report.summary.wastePct).toBeCloseTo(63.41, 2);
    expect(report.summary.meanComputePct).toBeCloseTo(33.3, 1);
    expect(proposeThresholds(report)).toEqual({ maxWastePct: 65, minUtilization: 30 });
  });
});

describe('proposals from Kubernetes pods (telemetry without process lists)', async () => {
  const fixtures = path.join(repoRoot, 'test/fixtures/kubernetes');
  const { report } = await runAudit({ ...baseOptions, inputs: [path.join(fixtures, 'scrapes.prom')], kubernetesFiles: [path.join(fixtures, 'cluster.json')] });

  it('proposes a workload per pod controller holding GPUs, matched the way the audit can find it', () => {
    // trainer-0 (StatefulSet trainer) and inference-7d4b9c8f5d-x2x9q (Deployment inference) carry
    // dcgm-exporter pod labels: pod rules. embedder-6f8d7c9b4-k7m2p was found through its node (the
    // only GPU pod there): the node's hosts rule claims the same GPU. notebook-5c9f holds no GPU.
    expect(proposeWorkloads(report).map(({ name, kind, match, gpus }) => ({ name, kind, match, gpus }))).toEqual([
      { name: 'trainer', kind: 'training', match: { namespace: 'ml-training', pod: 'trainer-*' }, gpus: ['GPU-3f1c9a2e-7b44-4d1e-9c0a-5e2b8f6d1a70'] },
      { name: 'embedder', kind: 'batch', match: { hosts: ['ip-10-0-40-5.us-west-2.compute.internal'] }, gpus: ['GPU-4b6d8f0a-2c1e-4d3f-9a5b-7c9e1f3a5b64'] },
      { name: 'inference', kind: 'inference', match: { namespace: 'serving', pod: 'inference-*' }, gpus: ['GPU-8a2d4c6e-1f3b-4a5c-8e7d-9b0c1d2e3f41'] },
    ]);
  });
});

describe('names and thresholds at the edges', () => {
  function reportWith(processNames: string[][], summary: Partial<Report['summary']> = {}, hostOf = (index: number): string => `node-${index}`): Report {
    const gpus = processNames.map((names, index) => ({
      id: `GPU-${index}`, host: hostOf(index),
      processes: names.map((name, pid) => ({ pid, name, type: 'C', maxMemoryMiB: 1, samples: 1 })),
    }));
    return { gpus, summary: { wastePct: null, meanComputePct: null, ...summary } } as unknown as Report;
  }

  it('makes names valid and unique: odd characters become `-`, `unassigned` is reserved, clashes get a suffix', () => {
    const commands = [['/opt/a/run --port 1'], ['/opt/b/run'], ['unassigned'], ['/opt/bin/llama.cpp+cuda'], ['_worker'], ['python3 /a/train.py'], ['python3 /b/train.py']];
    const names = proposeWorkloads(reportWith(commands)).map((proposal) => proposal.name);
    // `/opt/a/run --port 1` and `/opt/b/run` are both the program `run` (the pattern `run`): one proposal.
    // The two train.py differ by path (two patterns), so the second `train` becomes `train-2`.
    expect(names).toEqual(['run', 'unassigned-workload', 'llama.cpp-cuda', 'worker', 'train', 'train-2']);
  });

  it('writes the hosts of a program on more than 8 hosts as their common start and *, where no other host starts so', () => {
    const trainerHost = (index: number): string => `train-${String(index).padStart(3, '0')}`;
    const hostsOf = (report: Report): unknown => proposeWorkloads(report).map((proposal) => ('hosts' in proposal.match ? proposal.match.hosts : undefined));
    // 12 trainer hosts (train-000 .. train-011) and an inference host.
    const fleet = [...Array.from({ length: 12 }, () => ['python3 /w/train.py']), ['vllm']];
    expect(hostsOf(reportWith(fleet, {}, (index) => (index < 12 ? trainerHost(index) : 'infer-01')))).toEqual([['train-0*'], ['infer-01']]);
    // The 13th host also starts with train-0: the names themselves.
    const named = Array.from({ length: 12 }, (_, index) => trainerHost(index));
    expect(hostsOf(reportWith(fleet, {}, trainerHost))).toEqual([named, ['train-012']]);
    // 8 hosts or fewer: named.
    expect(hostsOf(reportWith(fleet.slice(4), {}, (index) => (index < 8 ? trainerHost(index) : 'infer-01')))).toEqual([named.slice(0, 8), ['infer-01']]);
  });

  it('leaves out limits the audit has no figure for, and caps waste at 100 %', () => {
    expect(proposeThresholds(reportWith([]))).toEqual({});
    // 99 % waste -> 95 + 5 = 100; 60 % exactly -> 65 (the fleet must stay under its limit with room); 0 % compute -> 0.
    expect(proposeThresholds(reportWith([], { wastePct: 99, meanComputePct: 0 }))).toEqual({ maxWastePct: 100, minUtilization: 0 });
    expect(proposeThresholds(reportWith([], { wastePct: 60, meanComputePct: 4.9 }))).toEqual({ maxWastePct: 65, minUtilization: 0 });
  });
});

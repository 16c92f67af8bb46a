/**
 * The fleet plan on hand-worked fleets, each one where the naive answer is wrong. Prices are
 * round on purpose: every figure below is worked out in its comment (730 hours a month).
 */
import { describe, expect, it } from 'vitest';
import type { PlanOutcome } from '../../../src/recommend/index.js';
import { parse } from 'yaml';
import { validateMigPartedConfig } from '../../../src/recommend/sharing/mig.js';
import { board, catalogOf, definition, instanceType, migBoard, migDevice, planOf, pod, workload } from './fleet.js';

/** Per GPU-hour: H200 $8; H100 $7 alone, $6 in the 8-GPU type; A100 80GB $5 (4 GPUs, NVSwitch); L40S $2 alone, $2.25 in 4 (PCIe); L4 $0.80-$1.00. */
const CATALOG = catalogOf([
  instanceType('h200.8x', 'h200-sxm-141gb', 8, 64, { vcpus: 192, memoryGiB: 2048 }),
  instanceType('h100.1x', 'h100-sxm-80gb', 1, 7, { vcpus: 16, memoryGiB: 256 }),
  instanceType('h100.8x', 'h100-sxm-80gb', 8, 48, { vcpus: 192, memoryGiB: 2048 }),
  instanceType('a100.4x', 'a100-sxm4-80gb', 4, 20, { vcpus: 96, memoryGiB: 1152 }),
  instanceType('l40s.1x', 'l40s', 1, 2, { vcpus: 8, memoryGiB: 64 }),
  instanceType('l40s.4x', 'l40s', 4, 9, { vcpus: 48, memoryGiB: 384 }),
  instanceType('l4.1x', 'l4', 1, 0.8, { vcpus: 4, memoryGiB: 16 }),
  instanceType('l4.big', 'l4', 1, 1, { vcpus: 8, memoryGiB: 32 }),
]);

function placementOf(outcome: PlanOutcome, name: string) {
  const found = outcome.plan.placements.filter((placement) => placement.workload === name);
  expect(found).toHaveLength(1);
  return found[0]!;
}

function expectBalanced(outcome: PlanOutcome): void {
  const { plan } = outcome;
  expect(Math.round((plan.current.monthlyUsd - plan.target.monthlyUsd) * 100)).toBe(Math.round(plan.monthlySavingsUsd * 100));
  expect(Math.round(plan.steps.reduce((sum, step) => sum + step.monthlySavingsUsd, 0) * 100)).toBe(Math.round(plan.monthlySavingsUsd * 100));
}

describe('instances are bought whole', () => {
  it('moves a steady 62 GiB service off an H200 to a single-GPU 80 GB-class instance, not to one GPU of an 8-GPU type', () => {
    // One H200 seen; its type inferred as the cheapest holding it: h200.8x, $64/h whole = $46,720/month.
    const h200 = board('svc-host', 0, { modelKey: 'h200-sxm-141gb', instanceType: 'h200.8x', basis: 'inferred', hourlyUsd: 8, peakGiB: 62, p95Pct: 30 });
    const outcome = planOf({ gpus: [h200], workloads: [workload('chat', [h200], { peakGiB: 62, p95Pct: 30 })] }, CATALOG);
    // Need: 62 GiB x 1.15 = 71.3 GiB (73,012 MiB) <= 81,559 MiB of an H100; an L40S (46,068) is too small.
    // Compute: 30% of an H200 = 296.7 TFLOPS and 1,440 GB/s, within one H100 (989.4, 3,350).
    // One GPU of h100.8x is $6/h, cheaper than h100.1x's $7/h, but it is sold only with 8 ($48/h).
    const chat = placementOf(outcome, 'chat');
    expect(chat).toMatchObject({ action: 'move', instanceType: 'h100.1x', replicas: 1, gpusPerReplica: 1, gpus: 1 });
    expect(outcome.plan.current.instances).toMatchObject([{ instanceType: 'h200.8x', count: 1, gpusPerInstance: 8, observedGpus: 1, monthlyUsd: 46720 }]);
    expect(outcome.plan.target.instances).toMatchObject([{ instanceType: 'h100.1x', count: 1, monthlyUsd: 5110 }]);
    // $46,720 - $7 x 730 = $46,720 - $5,110 = $41,610.
    expect(outcome.plan.monthlySavingsUsd).toBe(41610);
    expectBalanced(outcome);
  });

  it('consolidates eight single-GPU workloads on eight hosts onto one 8-GPU instance when that costs less, priced whole', () => {
    const boards = Array.from({ length: 8 }, (_, index) => board(`node-${index}`, 0, { instanceType: 'h100.1x', hourlyUsd: 7, peakGiB: 50, p95Pct: 50 }));
    const outcome = planOf({ gpus: boards, workloads: boards.map((gpu, index) => workload(`svc-${index}`, [gpu], { peakGiB: 50, p95Pct: 50 })) }, CATALOG);
    // Now 8 x $7 = $56/h = $40,880/month; one h100.8x is $48/h = $35,040/month: $5,840 saved.
    expect(outcome.plan.target.instances).toMatchObject([{ instanceType: 'h100.8x', count: 1, gpusPerInstance: 8, monthlyUsd: 35040 }]);
    expect(outcome.plan.current.monthlyUsd).toBe(40880);
    expect(outcome.plan.monthlySavingsUsd).toBe(5840);
    const hosts = new Set(outcome.plan.placements.map((placement) => placement.host));
    expect([...hosts]).toEqual(['h100.8x #1']);
    expectBalanced(outcome);
  });

  it('keeps them apart where eight singles cost less than the 8-GPU type', () => {
    const cheapSingles = catalogOf([instanceType('h100.1x', 'h100-sxm-80gb', 1, 5.5), instanceType('h100.8x', 'h100-sxm-80gb', 8, 48)]);
    const boards = Array.from({ length: 8 }, (_, index) => board(`node-${index}`, 0, { instanceType: 'h100.1x', hourlyUsd: 5.5, peakGiB: 50, p95Pct: 50 }));
    const outcome = planOf({ gpus: boards, workloads: boards.map((gpu, index) => workload(`svc-${index}`, [gpu], { peakGiB: 50, p95Pct: 50 })) }, cheapSingles);
    // 8 x $5.50 = $44/h < $48/h: nothing moves, nothing is saved.
    expect(outcome.plan.placements.every((placement) => placement.action === 'keep')).toBe(true);
    expect(outcome.plan.monthlySavingsUsd).toBe(0);
    expect(outcome.plan.steps).toEqual([]);
  });

  it('moves nothing where the one instance two hosts would share costs more than both', () => {
    // Two 1-GPU L4 hosts in us-east-1 at $7/h; the plan is asked for us-west-2, which sells L4s
    // only in pairs ($15/h).
    const catalog = catalogOf([instanceType('l4.small', 'l4', 1, 7), { ...instanceType('l4.pair', 'l4', 2, 15), region: 'us-west-2' }]);
    const boards = [0, 1].map((index) => board(`l4-node-${index}`, 0, { modelKey: 'l4', instanceType: 'l4.small', hourlyUsd: 7, peakGiB: 10, p95Pct: 30 }));
    const outcome = planOf({ gpus: boards, workloads: boards.map((gpu, index) => workload(`svc-${index}`, [gpu], { peakGiB: 10, p95Pct: 30 })) }, catalog, { region: 'us-west-2' });
    // Neither host alone frees the shared l4.pair; together they would pay $15 for $14: both stay.
    expect(outcome.plan.placements.map((placement) => placement.action)).toEqual(['keep', 'keep']);
    expect(outcome.plan.monthlySavingsUsd).toBe(0);
  });

  it('keeps a host of a known type whose other GPUs it never saw, and states what releasing it would save', () => {
    // A node labelled h200.8x, two of its eight GPUs in the telemetry: the other six may be busy.
    const boards = [0, 1].map((index) => board('h200-node', index, { modelKey: 'h200-sxm-141gb', instanceType: 'h200.8x', basis: 'label', hourlyUsd: 8, peakGiB: 62, p95Pct: 30 }));
    const outcome = planOf({ gpus: boards, workloads: boards.map((gpu, index) => workload(`svc-${index}`, [gpu], { peakGiB: 62, p95Pct: 30 })) }, CATALOG);
    expect(outcome.plan.placements.map((placement) => placement.action)).toEqual(['keep', 'keep']);
    expect(outcome.plan.placements[0]!.reason).toMatch(/h200\.8x of 8 GPUs and the telemetry showed 2/);
    expect(outcome.plan.monthlySavingsUsd).toBe(0);
    const finding = outcome.findings.find((candidate) => candidate.code === 'partly-observed-host')!;
    // Were the six free: $64 x 730 = $46,720 against 2 x h100.1x = $10,220: $36,500, not counted.
    expect(finding.evidence).toMatchObject({ instanceType: 'h200.8x', gpusPerInstance: 8, observedGpus: 2, monthlySavingsIfUnseenFreeUsd: 36500 });
    expect(finding.message).toMatch(/2 x h100\.1x.*\$36,500\/month \(not counted\)/);
  });
});

describe('no silence', () => {
  it('keeps a 100 GiB model on its H200 and says what was tried and why each kind of type failed', () => {
    const h200 = board('big-host', 0, { modelKey: 'h200-sxm-141gb', instanceType: 'h200.8x', basis: 'inferred', hourlyUsd: 8, peakGiB: 100, p95Pct: 50 });
    const outcome = planOf({ gpus: [h200], workloads: [workload('big', [h200], { peakGiB: 100, p95Pct: 50, kind: 'training' })] }, CATALOG);
    // 115 GiB fits no 80 GB or smaller GPU, and a job keeps its one GPU: only h200.8x holds it, at the price it has now.
    const big = placementOf(outcome, 'big');
    expect(big.action).toBe('keep');
    expect(big.reason).toBe('kept: the cheapest purchase for it alone, 1 x h200.8x at $64.00/h, saves nothing against keeping big-host ($64.00/h); 8 instance types tried in aws/us-east-1 (7 too little VRAM)');
    expect(outcome.plan.alternatives.filter((alternative) => alternative.workloads.includes('big')).map((alternative) => alternative.reason)).toEqual([
      'ruled out: too little VRAM',
      'no commitment price known for h200.8x (catalog refresh reads reserved and savings-plan rates; gpu-audit.yaml pricing.discounts.reserved1yPct sets a negotiated one); a commitment pays at a discount off on-demand of k=1 on demand all month (A $64.00/h): any discount',
    ]);
  });
});

describe('cause before size', () => {
  it('feeds an input-bound GPU with CPU and never moves it to a smaller GPU', () => {
    const gpu = board('train-node', 0, { instanceType: 'h100.1x', hourlyUsd: 7, peakGiB: 30, meanPct: 35, p95Pct: 45 });
    const starved = workload('trainer', [gpu], {
      kind: 'training',
      peakGiB: 30,
      meanPct: 35,
      p95Pct: 45,
      cpuPipeline: {
        verdict: 'input-bound',
        evidence: ['GPU 35% busy while the host CPU is 95% busy'],
        figures: { gpuBusyPct: 35, hostCpuBusyFraction: 0.95, hostCores: 16, containerCoresUsed: null, containerThrottledFraction: null },
      },
    });
    const outcome = planOf({ gpus: [gpu], workloads: [starved] }, CATALOG);
    // Its 30 GiB would fit an L40S ($2/h), which is what a size-only answer says. It waits on CPU:
    // 0.95 x 16 = 15.2 cores drive 35% busy; 80% busy needs 15.2 x 80 / 35 = 34.7 -> 35 cores.
    expect(placementOf(outcome, 'trainer')).toMatchObject({ action: 'feed', instanceType: 'h100.1x', host: 'train-node' });
    expect(outcome.plan.steps.map((step) => step.action)).toEqual(['raise-cpu']);
    expect(outcome.plan.steps[0]!.evidence).toMatchObject({ coresUsed: 15.2, coresNeeded: 35 });
    expect(outcome.plan.target.instances.every((row) => row.gpuModelKey === 'h100-sxm-80gb')).toBe(true);
    expect(outcome.findings.find((finding) => finding.code === 'cpu-bound-pipeline')?.evidence).toMatchObject({ gpuBusyPct: 35, hostCpuBusyFraction: 0.95, hostCores: 16, coresNeeded: 35 });
    expect(outcome.recommendations.some((recommendation) => recommendation.kind === 'rightsize')).toBe(false);
  });
});

describe('constraints', () => {
  it('never places a pod where its CPU and memory requests do not fit', () => {
    const gpu = board('a10g-node', 0, { modelKey: 'a10g', instanceType: 'l40s.1x', hourlyUsd: 2, peakGiB: 8, p95Pct: 40 });
    const outcome = planOf({
      gpus: [gpu],
      workloads: [workload('api', [gpu], { peakGiB: 8, p95Pct: 40 })],
      kubernetes: { pods: [pod('api-7f9c', [gpu], 5.5, 17.5)], nodes: [] },
    }, CATALOG);
    // 9.2 GiB fits an L4; l4.1x ($0.80/h) has 4 vCPUs and 16 GiB for a pod asking 5.5 and 17.5 GiB:
    // l4.big ($1.00/h, 8 vCPUs, 32 GiB) holds it.
    expect(placementOf(outcome, 'api')).toMatchObject({ action: 'move', instanceType: 'l4.big' });
    const ruledOut = outcome.plan.alternatives.find((alternative) => alternative.workloads.includes('api') && alternative.option.includes('l4.1x'));
    expect(ruledOut?.reason).toMatch(/too few vCPUs for the pods' requests/);
    expectBalanced(outcome);
  });

  it('splits a model over several GPUs only where NVLink or NVSwitch links them', () => {
    // A 140 GiB model served tensor-parallel over 2 H100s of an inferred h100.8x ($48/h).
    const boards = [0, 1].map((index) => board('tp-node', index, { instanceType: 'h100.8x', basis: 'inferred', hourlyUsd: 6, peakGiB: 70, p95Pct: 20 }));
    const outcome = planOf({
      gpus: boards,
      workloads: [workload('big-model', boards, { peakGiB: 70, requiredGiB: 72, p95Pct: 20 })],
      definitions: [definition('big-model', { model: { gpusPerReplica: 2 } as never })],
    }, CATALOG);
    // 144 GiB per replica: 4 L40S (180 GiB) on l40s.4x at $9/h is cheapest but PCIe only;
    // 2 A100 80GB of a100.4x ($20/h, NVSwitch) hold it: 2 x 312 TFLOPS >= 20% of 2 x 989.4.
    expect(placementOf(outcome, 'big-model')).toMatchObject({ action: 'move', instanceType: 'a100.4x', gpusPerReplica: 2, gpus: 2 });
    const pcie = outcome.plan.alternatives.find((alternative) => alternative.workloads.includes('big-model') && alternative.option.includes('l40s.4x'));
    expect(pcie?.reason).toMatch(/no NVLink for the split/);
    // $48 - $20 = $28/h x 730 = $20,440.
    expect(outcome.plan.monthlySavingsUsd).toBe(20440);
    expectBalanced(outcome);
  });
});

describe('MIG across hosts', () => {
  it('writes one mig-parted config per new node, on that node\'s own device indices, with its label and the resources pods request', () => {
    // Two A100 hosts, each one GPU in MIG mode with two 3g.40gb instances in use. On an H100 a
    // 3g.40gb slice holds each (30 GiB, 4 of 8 memory slices for the bandwidth of 3g on an A100),
    // two to a GPU: two 1-GPU instances, each with device 0 only.
    const catalog = catalogOf([instanceType('a100.1x', 'a100-sxm4-80gb', 1, 5), instanceType('h100.1x', 'h100-sxm-80gb', 1, 3)]);
    const gpus = ['mig-a', 'mig-b'].flatMap((host) => {
      const parent = migBoard(host, 0, { modelKey: 'a100-sxm4-80gb', instanceType: 'a100.1x', hourlyUsd: 5 });
      return [parent, migDevice(parent, 1, '3g.40gb', 40192, { peakGiB: 26 }), migDevice(parent, 2, '3g.40gb', 40192, { peakGiB: 26 })];
    });
    const slices = gpus.filter((gpu) => gpu.parentId !== null);
    const outcome = planOf({ gpus, workloads: slices.map((device, index) => workload(`svc-${index}`, [device], { peakGiB: 26, requiredGiB: 30 })) }, catalog);
    // One move per host (nothing joins them), each with the config of the node it buys.
    const texts = outcome.plan.steps.flatMap((candidate) => (candidate.config === undefined ? [] : [candidate.config.text]));
    expect(texts).toHaveLength(2);
    const text = texts.join('\n');
    const configs = Object.assign({}, ...texts.map((one) => (parse(one) as { 'mig-configs': Record<string, unknown> })['mig-configs']));
    expect(configs).toEqual({
      'gpu-audit-h100.1x-1': [{ devices: [0], 'mig-enabled': true, 'mig-devices': { '3g.40gb': 2 } }],
      'gpu-audit-h100.1x-2': [{ devices: [0], 'mig-enabled': true, 'mig-devices': { '3g.40gb': 2 } }],
    });
    expect(text).toContain('h100.1x #1: kubectl label node <its node> nvidia.com/mig.config=gpu-audit-h100.1x-1 --overwrite');
    expect(text).toContain('h100.1x #2: kubectl label node <its node> nvidia.com/mig.config=gpu-audit-h100.1x-2 --overwrite');
    expect(text).toContain('MIG strategy mixed');
    expect(text).toContain('svc-0: nvidia.com/mig-3g.40gb: 1 per pod');
    for (const one of texts) expect(validateMigPartedConfig('h100-sxm-80gb', one)).toMatchObject({ ok: true });
    // $5 x 2 hosts = $10/h now, $3 x 2 = $6/h after: $4 x 730 = $2,920.
    expect(outcome.plan.monthlySavingsUsd).toBe(2920);
  });
});

describe('MIG instances that never ran', () => {
  it('gives a kept host a repartition step for the instance nobody used, and plans no replica for it', () => {
    // One board of a labelled 8-GPU A100 type seen: the host stays whole; the workload holds two
    // 3g.40gb instances, one of which never ran.
    const catalog = catalogOf([instanceType('a100.8x', 'a100-sxm4-80gb', 8, 40)]);
    const parent = migBoard('a100-node', 0, { modelKey: 'a100-sxm4-80gb', instanceType: 'a100.8x', hourlyUsd: 5 });
    const used = migDevice(parent, 1, '3g.40gb', 40192, { peakGiB: 20, idleFraction: 0.4 });
    const unused = migDevice(parent, 2, '3g.40gb', 40192, { peakGiB: 0, idleFraction: 1 });
    const outcome = planOf({ gpus: [parent, used, unused], workloads: [workload('eval', [used, unused], { peakGiB: 20, kind: 'batch' })] }, catalog);
    expect(placementOf(outcome, 'eval')).toMatchObject({ action: 'keep', replicas: 1 });
    const step = outcome.plan.steps.find((candidate) => candidate.action === 'repartition')!;
    expect(step).toMatchObject({ workloads: ['eval'], monthlySavingsUsd: 0, evidence: { migProfile: '3g.40gb', instances: 2, usedInstances: 1 } });
    expect(step.from).toBe('2 x 3g.40gb held by eval, 1 never used in the window');
  });
});

describe('GPUs a workload holds and never ran on', () => {
  // An 8-GPU training job on a labelled h100.8x ($48/h = $35,040/month): 4 of its GPUs ran (p95
  // 90%), 4 never did. The catalog also has h100.4x: 4 H100 on NVSwitch, $26/h = $18,980/month.
  const catalog = catalogOf([...CATALOG.instances, instanceType('h100.4x', 'h100-sxm-80gb', 4, 26, { vcpus: 96, memoryGiB: 1024 })]);
  const boards = Array.from({ length: 8 }, (_, index) => board('train-node', index, { instanceType: 'h100.8x', hourlyUsd: 6, peakGiB: 60, p95Pct: 90, idleFraction: index < 4 ? 0.3 : 1 }));
  const job = workload('pretrain', boards, { kind: 'training', peakGiB: 60, p95Pct: 90, busyFraction: 0.7 });

  it('sizes the job on the 4 GPUs it ran on, not the 8 it holds, and says so', () => {
    const outcome = planOf({ gpus: boards, workloads: [job] }, catalog);
    const placement = placementOf(outcome, 'pretrain');
    // 4 GPUs x 90% of an H100 need 4 GPUs on one NVLink domain: h100.4x holds them; 4 x h100.1x cannot (no link).
    expect(placement).toMatchObject({ action: 'move', instanceType: 'h100.4x', replicas: 1, gpusPerReplica: 4, gpus: 4 });
    expect(placement.reason).toContain('(4 of its 8 GPUs never ran: not carried over)');
    // $35,040 - $18,980 = $16,060.
    expect(outcome.plan.monthlySavingsUsd).toBe(16060);
    expectBalanced(outcome);
  });

  it('keeps the host where no smaller type holds the job, showing the GPUs it holds now', () => {
    const outcome = planOf({ gpus: boards, workloads: [job] }, CATALOG);
    expect(placementOf(outcome, 'pretrain')).toMatchObject({ action: 'keep', instanceType: 'h100.8x', replicas: 1, gpusPerReplica: 8, gpus: 8 });
    expect(outcome.plan.monthlySavingsUsd).toBe(0);
  });
});

describe('declared and observed demand', () => {
  const h200 = board('chat-host', 0, { modelKey: 'h200-sxm-141gb', instanceType: 'h200.8x', basis: 'inferred', hourlyUsd: 8, peakGiB: 40, meanPct: 4, p95Pct: 40 });
  const input = {
    gpus: [h200],
    workloads: [workload('chat', [h200], { peakGiB: 40, meanPct: 4, p95Pct: 40 })],
    definitions: [definition('chat', { throughputPerGpu: { value: 2400, unit: 'tokens/s' }, peakDemand: { value: 6000, unit: 'tokens/s' } })],
  };

  it('reports a disagreement above 2x with both figures, and plans on the observed basis by default', () => {
    const outcome = planOf(input, CATALOG);
    // Declared: 6000 / 2400 = 2.5 GPUs; with 20% headroom ceil(3.0) = 3 replicas. Observed: p95 40% of one GPU = 0.4.
    const finding = outcome.findings.find((candidate) => candidate.code === 'declared-vs-observed')!;
    expect(finding.evidence).toMatchObject({ declaredGpus: 2.5, declaredReplicas: 3, observedGpusAtP95: 0.4, planBasis: 'observed' });
    expect(placementOf(outcome, 'chat').replicas).toBe(1);
    expect(outcome.plan.basis).toBe('observed');
  });

  it('plans the declared peak when the config asks, and then grows the workload without also shrinking it', () => {
    const outcome = planOf(input, CATALOG, { basis: 'declared' });
    const chat = placementOf(outcome, 'chat');
    expect(chat.replicas).toBe(3);
    expect(outcome.plan.steps.filter((step) => step.workloads.includes('chat'))).toHaveLength(1);
  });
});

describe('idle and unknown', () => {
  it('releases a workload idle the whole window and keeps one without a price, saying why', () => {
    const idle = board('idle-node', 0, { instanceType: 'h100.1x', hourlyUsd: 7, meanPct: 0, p95Pct: 0, idleFraction: 1 });
    const unpriced = board('onprem-node', 0, { peakGiB: 20 });
    const outcome = planOf({
      gpus: [idle, unpriced],
      workloads: [workload('notebook', [idle], { kind: 'interactive', meanPct: 0, p95Pct: 0, busyFraction: 0 }), workload('lab', [unpriced], { peakGiB: 20 })],
    }, CATALOG);
    expect(placementOf(outcome, 'notebook')).toMatchObject({ action: 'release', gpus: 0 });
    expect(placementOf(outcome, 'lab')).toMatchObject({ action: 'not-enough-data' });
    expect(placementOf(outcome, 'lab').reason).toMatch(/instance type is unknown/);
    // $7 x 730 = $5,110 released.
    expect(outcome.plan.monthlySavingsUsd).toBe(5110);
    expectBalanced(outcome);
  });
});

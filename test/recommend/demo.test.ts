/**
 * The plan for the bundled demo fleet, through the real pipeline (parse, analyse, plan).
 * fixtures/demo/README.md describes what each host does.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validateMigPartedConfig } from '../../src/recommend/sharing/mig.js';
import { validateScaledObject } from '../../src/recommend/autoscale/keda.js';
import { validateAdapterRules, validateHorizontalPodAutoscaler } from '../../src/recommend/autoscale/hpa.js';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';

let report: Report;

beforeAll(() => {
  // The demo as a user runs it: the four logs and fixtures/demo/gpu-audit.yaml.
  const run = runBuiltCli(['audit', '--demo', '--format', 'json']);
  expect(run.status).toBe(0);
  report = JSON.parse(run.stdout) as Report;
}, 60_000);

describe('the plan for the demo fleet', () => {
  it('prices the fleet now and the target whole, and their difference is the savings, the steps\' sum and the summary', () => {
    const plan = report.plan!;
    const cents = (value: number): number => Math.round(value * 100);
    expect(cents(plan.current.monthlyUsd) - cents(plan.target.monthlyUsd)).toBe(cents(plan.monthlySavingsUsd));
    expect(plan.steps.reduce((sum, step) => sum + cents(step.monthlySavingsUsd), 0)).toBe(cents(plan.monthlySavingsUsd));
    expect(report.summary.potentialMonthlySavingsUsd).toBe(plan.monthlySavingsUsd);
    // Every row is whole instances: count x gpusPerInstance GPUs, at count x the hourly price.
    for (const row of [...plan.current.instances, ...plan.target.instances]) {
      if (row.pricing === 'spot' || row.hourlyUsd === null) continue;
      expect(row.monthlyUsd).toBeCloseTo(row.count * row.hourlyUsd * 730, 1);
    }
    // The 2-GPU H200 host is a whole p5en.48xlarge (8 GPUs, $63.296/h): $46,206.08 a month, not 2/8 of it.
    expect(plan.current.instances.find((row) => row.hosts.includes('infer-h200-01'))).toMatchObject({ instanceType: 'p5en.48xlarge', count: 1, observedGpus: 2, monthlyUsd: 46206.08 });
  });

  it('counts the MIG host\'s idle instances and unpartitioned slice in the fleet\'s waste (fixtures/demo/README.md)', () => {
    const boards = report.gpus.filter((gpu) => gpu.host === 'mig-a100-01' && gpu.parentId === null);
    // The sample counts of the README; the drift of 300 or 301 s a sample moves the time-weighted figures in the sixth digit.
    expect(boards.map((gpu) => gpu.idleFraction)).toEqual([1008 / 2184, 2004 / 2184].map((value) => expect.closeTo(value, 4)));
    const [first] = boards;
    // Each instance carries its share of the board: GI 2 (3g) is 3/7 of it.
    const gi2 = report.gpus.find((gpu) => gpu.parentId === first!.id && gpu.migProfile === '3g.40gb')!;
    expect(gi2.hourlyCostUsd).toBeCloseTo((first!.hourlyCostUsd! * 3) / 7, 12);
    const idle = report.gpus.filter((gpu) => gpu.parentId === null).reduce((sum, gpu) => sum + gpu.idleHours, 0);
    expect(report.summary.idleGpuHours).toBeCloseTo(idle, 9);
  });

  it('places every workload exactly once', () => {
    const names = report.workloads.map((workload) => workload.name).sort();
    expect(report.plan!.placements.map((placement) => placement.workload).sort()).toEqual(names);
  });

  it('has no two steps that place the same workload, and the recommendations are the steps', () => {
    const plan = report.plan!;
    // An autoscaler changes no placement: it comes after the move of its workload.
    const touched = plan.steps.filter((step) => step.action !== 'autoscale').flatMap((step) => step.workloads);
    expect(new Set(touched).size).toBe(touched.length);
    expect(report.recommendations.map((recommendation) => recommendation.id)).toEqual(plan.steps.map((step) => step.id));
    expect(report.recommendations.every((recommendation) => recommendation.counted === true)).toBe(true);
    // A workload that moves has a move step; one that stays has none that changes its GPUs.
    for (const placement of plan.placements) {
      const steps = plan.steps.filter((step) => step.workloads.includes(placement.workload));
      if (placement.action === 'move') expect(steps.map((step) => step.action)).toContain('move');
      if (placement.action === 'keep' || placement.action === 'not-enough-data') expect(steps.filter((step) => step.action === 'move' || step.action === 'release')).toEqual([]);
    }
  });

  it('sizes chat-8b from its server\'s measured capacity, and code-13b, whose window never came near its SLO, from the telemetry', () => {
    const plan = report.plan!;
    const chat = report.workloads.find((workload) => workload.name === 'chat-8b')!.serving!;
    expect(chat.capacity).toMatchObject({ basis: 'knee', confidence: 'high' });
    // ceil(peak / capacity per GPU x 1.2): three single-GPU replicas, each on an 80 GB H100.
    const replicas = Math.ceil((chat.peakRequestsPerSecond! / chat.capacity!.requestsPerSecondPerGpu) * 1.2);
    expect(replicas).toBe(3);
    expect(plan.placements.find((candidate) => candidate.workload === 'chat-8b')).toMatchObject({ action: 'move', instanceType: 'p5.4xlarge', replicas, gpus: replicas });
    expect(report.workloads.find((workload) => workload.name === 'code-13b')!.serving!.capacity).toMatchObject({ basis: 'lower-bound', confidence: 'low' });
    expect(plan.placements.find((candidate) => candidate.workload === 'code-13b')).toMatchObject({ action: 'move', instanceType: 'p5.4xlarge', replicas: 1, gpus: 1 });
    // code-13b: 9 / 6 requests/s = 1.5 GPUs declared, p95 40% of one observed.
    const code = report.findings.find((finding) => finding.id === 'declared-vs-observed:code-13b')!;
    expect(code.evidence).toMatchObject({ declaredGpus: 1.5, declaredReplicas: 2, observedGpusAtP95: 0.4, planBasis: 'observed' });
  });

  it('autoscales chat-8b between its warm pool and its peak, with manifests KEDA and the HPA API accept', () => {
    const step = report.plan!.steps.find((candidate) => candidate.action === 'autoscale')!;
    expect(step.workloads).toEqual(['chat-8b']);
    expect(step.after).toEqual([report.plan!.steps.find((candidate) => candidate.action === 'move' && candidate.workloads.includes('chat-8b'))!.id]);
    expect(step).toMatchObject({ monthlySavingsUsd: 0, evidence: { minReplicas: 2, maxReplicas: 3, warmPoolReplicas: 1, coldStartSeconds: 90 } });
    expect(validateScaledObject(step.config!.text)).toEqual({ ok: true });
    const [rules, hpa] = step.config!.alternative!.text.split(/^---$/mu);
    expect(validateAdapterRules(rules!)).toEqual({ ok: true });
    expect(validateHorizontalPodAutoscaler(hpa!)).toEqual({ ok: true });
  });

  it('releases the notebooks\' A10G host and puts the checkpointed training on spot while it runs', () => {
    const plan = report.plan!;
    expect(plan.placements.find((placement) => placement.workload === 'notebooks')).toMatchObject({ action: 'release', gpus: 0 });
    const release = plan.steps.find((step) => step.action === 'release')!;
    // g5.12xlarge $5.672/h x 730 = $4,140.56.
    expect(release).toMatchObject({ workloads: ['notebooks'], monthlySavingsUsd: 4140.56 });
    const spot = plan.steps.find((step) => step.action === 'commit')!;
    expect(spot.workloads).toEqual(['llama-pretrain']);
    expect(plan.target.instances.find((row) => row.hosts.includes('train-h100-01'))).toMatchObject({ pricing: 'spot', instanceType: 'p5.48xlarge' });
  });

  it('writes mig-parted configs that validate against the placement rules, and the report stays valid under the schema', () => {
    const configs = report.plan!.steps.filter((step) => step.config !== undefined && step.action !== 'autoscale');
    expect(configs.length).toBeGreaterThan(0);
    for (const step of configs) {
      expect(step.config!.format).toBe('mig-parted');
      // Each node is told which named config to take, and every named config is a valid layout.
      const labelled = [...step.config!.text.matchAll(/nvidia\.com\/mig\.config=(\S+)/gu)].map((match) => match[1]);
      const named = Object.keys((parse(step.config!.text) as { 'mig-configs': Record<string, unknown> })['mig-configs']);
      expect(labelled.sort()).toEqual(named.sort());
      const model = report.plan!.target.instances.find((row) => row.hosts.some((host) => step.to.includes(host)))!.gpuModelKey;
      expect(validateMigPartedConfig(model, step.config!.text)).toMatchObject({ ok: true });
    }
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(repoRoot, 'schema/report.schema.json'), 'utf8')) as object);
    const valid = validate(JSON.parse(JSON.stringify(report)));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });
});

describe('gpu-audit audit --demo (the built CLI)', () => {
  it('shows the plan first, and its savings in the fleet headline', () => {
    const built = report;
    const table = runBuiltCli(['audit', '--demo']);
    const savings = `$${Math.round(built.plan!.monthlySavingsUsd).toLocaleString('en-US')}/month`;
    expect(table.stdout).toContain(`savings    ${savings}`);
    expect(table.stdout.indexOf('Plan (observed demand)')).toBeLessThan(table.stdout.indexOf('Findings ('));
    expect(table.stdout.indexOf('Steps (')).toBeLessThan(table.stdout.indexOf('GPUs ('));
  });
});

describe('gpu-audit.yaml pricing.spotInterruptionsPerMonthPct (the built CLI)', () => {
  it('prices the demo\'s spot step at the configured rate and stops calling it assumed', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-spot-'));
    try {
      const config = path.join(dir, 'gpu-audit.yaml');
      writeFileSync(config, `${readFileSync(path.join(repoRoot, 'fixtures/demo/gpu-audit.yaml'), 'utf8')}\npricing: { spotInterruptionsPerMonthPct: 10 }\n`);
      const run = runBuiltCli(['audit', '--demo', '--config', config, '--format', 'json']);
      expect(run.status).toBe(0);
      const step = (JSON.parse(run.stdout) as Report).plan!.steps.find((candidate) => candidate.id.startsWith('commit:'))!;
      // 10% a month: 0.1 / 730 per hour; 72 minutes lost each: 0.1 / 730 x 1.2 h = 0.0164% of the run hours.
      expect(step.evidence).toMatchObject({ interruptionsPerMonthPct: 10, interruptionRateBasis: 'configured', expectedLossPct: 0.02 });
      expect(step.confidenceReasons.some((reason) => reason.includes('interruption rate'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * The recommender on the bundled demo fleet, through the real pipeline (parse, analyse,
 * recommend). fixtures/demo/README.md describes what each host does.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAudit } from '../../src/engine/run-audit.js';
import { bundledCatalog } from '../../src/catalog/index.js';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

let report: Report;

beforeAll(async () => {
  const folder = path.join(repoRoot, 'fixtures/demo');
  const inputs = readdirSync(folder).filter((name) => name.endsWith('.xml.gz')).sort().map((name) => path.join(folder, name));
  ({ report } = await runAudit({ inputs, ...AUDIT_DEFAULTS, catalog: bundledCatalog(), now: () => new Date('2026-11-29T00:00:00Z') }));
}, 60_000);

function gpuIdsOf(host: string): string[] {
  return report.gpus.filter((gpu) => gpu.host === host && gpu.parentId === null).map((gpu) => gpu.id);
}

describe('recommendations for the demo fleet', () => {
  it('adds the counted savings up to the summary, and counts no GPU twice', () => {
    const counted = report.recommendations.filter((item) => item.counted === true);
    const sum = counted.reduce((total, item) => total + item.monthlySavingsUsd, 0);
    expect(report.summary.potentialMonthlySavingsUsd).toBeCloseTo(sum, 2);
    expect(report.summary.potentialMonthlySavingsUsd).toBeGreaterThan(0);
    const claimed = counted.flatMap((item) => item.targets);
    expect(new Set(claimed).size).toBe(claimed.length);
    for (const item of report.recommendations.filter((candidate) => candidate.counted === false && candidate.monthlySavingsUsd > 0)) {
      expect(counted.map((candidate) => candidate.id)).toContain(item.alternativeTo);
    }
  });

  it('co-locates the two ~61 GiB vLLM H200s on one H200 (MIG counted, MPS and right-sizing as alternatives)', () => {
    const h200 = gpuIdsOf('infer-h200-01');
    const forH200 = report.recommendations.filter((item) => item.targets.some((target) => h200.includes(target)));
    expect(forH200.map((item) => item.kind).sort()).toEqual(['mig', 'mps', 'rightsize', 'rightsize']);
    const migPlan = forH200.find((item) => item.kind === 'mig')!;
    // One H200 freed: 63.296 / 8 = $7.912/h x 730 = $5,775.76 a month.
    expect(migPlan).toMatchObject({ counted: true, monthlySavingsUsd: 5775.76 });
    expect(migPlan.evidence.layout).toBe('2 x 3g.71gb');
    const mpsPlan = forH200.find((item) => item.kind === 'mps')!;
    expect(mpsPlan.alternativeTo).toBe(migPlan.id);
    expect(mpsPlan.risks.join(' ')).toMatch(/no memory or fault isolation/);
    expect(mpsPlan.risks.join(' ')).toMatch(/tenants of these workloads are unknown/);
    // Preallocated memory is an upper bound; utilization the last rung; the instance type inferred.
    expect(migPlan.confidence).toBe('low');
    expect(migPlan.confidenceReasons.join(' ')).toMatch(/upper bound/);
  });

  it('releases the four A10G GPUs held by idle notebook kernels', () => {
    const a10g = gpuIdsOf('notebook-a10g-01');
    const releases = report.recommendations.filter((item) => item.kind === 'rightsize' && a10g.includes(item.targets[0]!));
    expect(releases).toHaveLength(4);
    for (const item of releases) expect(item).toMatchObject({ proposed: 'release the GPU', counted: true });
  });

  it('plans the training node by its demand curve and flags the missing checkpoint facts', () => {
    const plan = report.recommendations.find((item) => item.kind === 'purchase' && item.targets.includes(gpuIdsOf('train-h100-01')[0]!))!;
    expect(plan.counted).toBe(true);
    expect(plan.evidence.demandCurveBasis).toBe('hour-of-week');
    // No commitment price in the bundled AWS rows and none configured: nothing reserved, break-evens stated.
    expect(plan.evidence.reservedGpus).toBe(0);
    expect(plan.risks.some((risk) => /pays off at any discount above/.test(risk))).toBe(true);
    expect(report.findings.filter((finding) => finding.code === 'no-checkpoint-on-spot-candidate')).toHaveLength(8);
  });

  it('emits config blocks only for changes that need one, and the report stays valid under the schema', () => {
    for (const item of report.recommendations) {
      if (item.kind === 'mig' || item.kind === 'mps' || item.kind === 'time-slicing') expect(item.config?.format).toBe('yaml');
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
  it('shows recommendations whose counted savings add up to potentialMonthlySavingsUsd', () => {
    const run = runBuiltCli(['audit', '--demo', '--format', 'json']);
    expect(run.status).toBe(0);
    const built = JSON.parse(run.stdout) as Report;
    const counted = built.recommendations.filter((item) => item.counted === true);
    expect(built.summary.potentialMonthlySavingsUsd).toBeCloseTo(counted.reduce((total, item) => total + item.monthlySavingsUsd, 0), 2);
    // With the demo's gpu-audit.yaml, chat-8b (tenant product-a) and code-13b (product-b) hold the H200s:
    // never MPS- or time-sliced together; MIG, which isolates them, is offered instead and says so.
    const h200Pair = built.recommendations.filter((item) => item.targets.includes('chat-8b') && item.targets.includes('code-13b'));
    expect(h200Pair.map((item) => item.kind)).toEqual(['mig']);
    expect(h200Pair[0]!.rationale).toMatch(/tenants product-a, product-b stay isolated/);
    const table = runBuiltCli(['audit', '--demo']);
    expect(table.stdout).toMatch(/^Recommendations \(top 5 of \d+ by monthly savings\)$/m);
    expect(table.stdout).toContain(`potential savings $${Math.round(built.summary.potentialMonthlySavingsUsd).toLocaleString('en-US')}/month`);
  });
});

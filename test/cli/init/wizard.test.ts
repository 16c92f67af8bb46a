/**
 * The wizard's questions answered by a script (test/cli/init/scripted-prompter.ts) and the
 * gpu-audit.yaml text built from the answers: what is asked, in which order, what is
 * refused as it is typed, and that the text is one the loader and the published JSON Schema
 * both accept.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_FILE, parseConfig } from '../../../src/config/document/index.js';
import { SCHEMA_REFERENCE, configText } from '../../../src/config/document/config-text.js';
import type { WorkloadProposal } from '../../../src/config/propose.js';
import { acceptProposals, runWizard } from '../../../src/cli/init/wizard.js';
import { InputError } from '../../../src/support/errors.js';
import { repoRoot } from '../../helpers/corpus.js';
import { DEFAULT, scriptedPrompter } from './scripted-prompter.js';

/** Three of the demo fleet's proposals (test/config/propose.test.ts derives them from the logs). */
const PROPOSALS: WorkloadProposal[] = [
  { name: 'vllm', kind: 'inference', match: { process: '-m vllm\\.entrypoints\\.openai\\.api_server', hosts: ['infer-h200-01'] }, hosts: ['infer-h200-01'], gpus: ['GPU-a', 'GPU-b'], example: '/usr/bin/python3 -m vllm.entrypoints.openai.api_server' },
  { name: 'tritonserver', kind: 'inference', match: { process: 'tritonserver' }, hosts: ['mig-a100-01'], gpus: ['GPU-c/2'], example: '/opt/tritonserver/bin/tritonserver' },
  { name: 'train', kind: 'training', match: { process: '/workspace/train\\.py', hosts: ['train-h100-01'] }, hosts: ['train-h100-01'], gpus: ['GPU-d'], example: 'python3 /workspace/train.py' },
];
const THRESHOLDS = { maxWastePct: 60, minUtilization: 30 };
const DEFAULTS = { pricing: 'on-demand' as const };

describe('runWizard', () => {
  it('asks per workload (keep, name, kind, tenant, p95 for inference), then thresholds and pricing', async () => {
    const prompter = scriptedPrompter([
      { confirm: DEFAULT, about: /vllm\.entrypoints.* on infer-h200-01 \(2 GPUs\)/ },
      { input: 'chat bot', about: /Name/ }, // refused: a space is not allowed in a name
      { input: 'chat' },
      { select: DEFAULT, about: /Kind/ },
      { input: ' product-a ', about: /Tenant/ },
      { number: 800, about: /p95/ },
      { confirm: false, about: /tritonserver on mig-a100-01 \(1 GPU\)/ },
      { confirm: true, about: /train\.py/ },
      { input: DEFAULT, about: /Name/ },
      { select: DEFAULT, about: /Kind/ }, // training: no p95 question follows
      { input: DEFAULT, about: /Tenant/ },
      { number: DEFAULT, about: /waste/ },
      { number: undefined, about: /utilization/ },
      { select: 'aws', about: /provider/ },
      { select: 'reserved-1y', about: /Pricing model/ },
    ]);
    const config = await runWizard(prompter, PROPOSALS, THRESHOLDS, DEFAULTS);
    expect(prompter.remaining()).toBe(0);
    expect(prompter.rejected).toEqual(['expected a workload name of letters, digits, `.`, `_` and `-`']);
    expect(config).toEqual({
      workloads: [
        { name: 'chat', kind: 'inference', tenant: 'product-a', match: PROPOSALS[0]!.match, slo: { p95Ms: 800 } },
        { name: 'train', kind: 'training', match: PROPOSALS[2]!.match },
      ],
      thresholds: { 'max-waste-pct': 60 },
      pricing: { provider: 'aws', model: 'reserved-1y' },
    });
  });

  it('refuses a name already given and `unassigned`, and asks for a p95 when the kind is changed to inference', async () => {
    const prompter = scriptedPrompter([
      { confirm: true }, { input: 'serving' }, { select: DEFAULT }, { input: '' }, { number: undefined },
      { confirm: true }, { input: 'serving' }, { input: 'unassigned' }, { input: 'rerank' }, { select: DEFAULT }, { input: '' }, { number: 50 },
      { confirm: true }, { input: DEFAULT }, { select: 'inference', about: /Kind/ }, { input: '' }, { number: 2000, about: /p95/ },
      { number: DEFAULT }, { number: DEFAULT }, { select: DEFAULT }, { select: DEFAULT },
    ]);
    const config = await runWizard(prompter, PROPOSALS, THRESHOLDS, DEFAULTS);
    expect(prompter.rejected).toEqual([
      'expected a unique name (`serving` is already taken)',
      'expected a name other than `unassigned` (reserved for what matches no workload)',
    ]);
    expect(config.workloads?.map((workload) => [workload.name, workload.kind, workload.slo?.p95Ms])).toEqual([
      ['serving', 'inference', undefined],
      ['rerank', 'inference', 50],
      ['train', 'inference', 2000],
    ]);
    expect(config.thresholds).toEqual({ 'max-waste-pct': 60, 'min-utilization': 30 });
    expect(config.pricing).toEqual({ model: 'on-demand' });
  });

  it('offers the --provider flag as the default provider', async () => {
    const prompter = scriptedPrompter([
      { confirm: false }, { confirm: false }, { confirm: false },
      { number: undefined }, { number: undefined }, { select: DEFAULT }, { select: DEFAULT },
    ]);
    expect(await runWizard(prompter, PROPOSALS, {}, { provider: 'azure', pricing: 'spot' })).toEqual({ pricing: { provider: 'azure', model: 'spot' } });
  });
});

describe('acceptProposals (--yes)', () => {
  it('takes every proposal, the proposed limits and the pricing flags as they are', () => {
    expect(acceptProposals(PROPOSALS, THRESHOLDS, DEFAULTS)).toEqual({
      workloads: PROPOSALS.map(({ name, kind, match }) => ({ name, kind, match })),
      thresholds: { 'max-waste-pct': 60, 'min-utilization': 30 },
      pricing: { model: 'on-demand' },
    });
  });
});

describe('configText', () => {
  const config = acceptProposals(PROPOSALS, THRESHOLDS, { provider: 'aws', pricing: 'on-demand' });
  const text = configText(config, new Date('2026-11-29T16:00:00Z'), 'gpu-audit.yaml');

  it('starts with the schema line (a package path, never this machine\'s) and the date', () => {
    expect(text.split('\n').slice(0, 3)).toEqual([
      '# yaml-language-server: $schema=./node_modules/gpu-audit/schema/gpu-audit.config.schema.json',
      '#',
      '# Generated by gpu-audit init on 2026-11-29.',
    ]);
    expect(SCHEMA_REFERENCE.endsWith(CONFIG_SCHEMA_FILE)).toBe(true);
    expect(text).not.toContain(repoRoot);
  });

  it('reads back as the same config with the loader', () => {
    expect(parseConfig(text, 'gpu-audit.yaml')).toEqual(config);
  });

  it('validates against the published JSON Schema', () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(path.join(repoRoot, CONFIG_SCHEMA_FILE), 'utf8')) as object);
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('is laid out for people: blank lines between workloads and sections, hosts on one line', () => {
    expect(text).toContain('      hosts: [infer-h200-01]\n\n  - name: tritonserver\n');
    expect(text).toContain('\n\nthresholds:\n  max-waste-pct: 60\n  min-utilization: 30\n\npricing:\n  provider: aws\n  model: on-demand\n');
  });

  it('refuses to produce an invalid file, naming the file and the path of the problem', () => {
    const invalid = { workloads: [{ name: 'unassigned', kind: 'batch' as const, match: { process: 'x' } }] };
    expect(() => configText(invalid, new Date(), 'out.yaml')).toThrow(InputError);
    expect(() => configText(invalid, new Date(), 'out.yaml')).toThrow(/workloads\[0\]\.name/);
  });
});

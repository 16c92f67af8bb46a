/**
 * `--redact` (src/render/redact.ts): a report safe to share outside the company. Every
 * identifying name of the real report (hosts, nodes, pods, namespaces, containers, label
 * values, process names, input paths, GPU UUIDs) must be absent from every format, while
 * the figures and the cross-references (parentId, finding targets, workload GPUs) still hold.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAudit } from '../../src/engine/run-audit.js';
import { bundledCatalog } from '../../src/catalog/index.js';
import { parseReportJson } from '../../src/model/report-reader.js';
import { demoFleetFiles } from '../../src/cli/paths.js';
import type { Report } from '../../src/model/report.js';
import { renderers, reportFormats } from '../../src/render/index.js';
import { DEFAULT_REDACT_KEY, redactKeyFromEnv, redactReport, reportRedactor } from '../../src/render/redact.js';
import { runBuiltCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

const K8S = path.join(repoRoot, 'test/fixtures/kubernetes');

async function audit(inputs: string[], kubernetesFiles?: string[]): Promise<Report> {
  const { report } = await runAudit({
    inputs, ...AUDIT_DEFAULTS,
    catalog: bundledCatalog(), now: () => new Date('2026-01-01T00:00:00Z'), kubernetesFiles,
  });
  return report;
}

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * The names the report must not show once redacted. Short or numeric ones (a label value
 * `0`, `true`) are left out of the search: they occur in figures and words of any report.
 */
function identifyingNames(report: Report): string[] {
  const names = new Set<string>();
  for (const gpu of report.gpus) {
    names.add(gpu.host);
    if (gpu.uuid !== null) names.add(gpu.uuid);
    for (const process of gpu.processes) names.add(process.name);
  }
  for (const source of report.sources) {
    names.add(source.ref);
    names.add(path.basename(source.ref));
  }
  for (const pod of report.kubernetes?.pods ?? []) {
    for (const name of [pod.name, pod.namespace, pod.node, pod.workloadName, ...pod.containers.map((c) => c.name), ...Object.values(pod.labels)]) {
      if (name !== null) names.add(name);
    }
  }
  for (const node of report.kubernetes?.nodes ?? []) names.add(node.name);
  for (const text of JSON.stringify(report).match(UUID_RE) ?? []) names.add(text.toLowerCase());
  return [...names].filter((name) => name.length >= 5 && !/^[\d.]+$/.test(name));
}

/** Whether `name` stands in `text` as a whole word (`vision` is not in `overprovisioned`). */
function shows(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_-])${escaped}(?![A-Za-z0-9_-])`, 'i').test(text);
}

/** A report's text without its Methodology (Markdown, HTML): the definitions every report carries. */
function withoutMethodology(text: string): string {
  return text.split('\n## Methodology')[0]!.split('<section id="methodology">')[0]!;
}

function everyFormat(report: Report): Record<string, string> {
  return Object.fromEntries(reportFormats.map((format) => [format, renderers[format](report, { color: false, width: 100 })]));
}

describe('redactReport on the demo fleet', async () => {
  const original = await audit(demoFleetFiles);
  const redacted = redactReport(original);

  it('leaves no host, UUID, process name or input path in any format', () => {
    const names = identifyingNames(original);
    expect(names.length).toBeGreaterThan(20); // 4 hosts, 4 paths and basenames, a dozen UUIDs, processes
    // The Methodology's fixed definitions use everyday words that are also names here (`server`, `inference`): they are the tool's text, not the input's.
    for (const [format, text] of Object.entries(everyFormat(redacted))) {
      for (const name of names) expect(shows(withoutMethodology(text), name), `${format} still shows ${name}`).toBe(false);
    }
  });

  it('keeps the figures, the models and the report contract', () => {
    expect(redacted.summary).toEqual(original.summary);
    expect(redacted.gpus.map((gpu) => [gpu.model, gpu.modelKey, gpu.instanceType, gpu.gpuHours, gpu.idleHours]))
      .toEqual(original.gpus.map((gpu) => [gpu.model, gpu.modelKey, gpu.instanceType, gpu.gpuHours, gpu.idleHours]));
    expect(redacted.recommendations.map((r) => r.monthlySavingsUsd)).toEqual(original.recommendations.map((r) => r.monthlySavingsUsd));
    // The saved-report reader validates the whole contract: a redacted report is still a report.
    expect(() => parseReportJson(JSON.parse(renderers.json(redacted, { color: false, width: 100 })), 'redacted.json')).not.toThrow();
  });

  it('keeps references consistent: ids, parents, finding targets and workload GPUs name the same devices', () => {
    const ids = new Set(redacted.gpus.map((gpu) => gpu.id));
    expect(ids.size).toBe(original.gpus.length);
    for (const gpu of redacted.gpus) if (gpu.parentId !== null) expect(ids.has(gpu.parentId)).toBe(true);
    expect(redacted.gpus.some((gpu) => gpu.parentId !== null)).toBe(true); // the demo's A100 is MIG-partitioned
    for (const finding of redacted.findings) {
      if (finding.target.startsWith('GPU-') || finding.target.startsWith('MIG-')) expect(ids.has(finding.target)).toBe(true);
      expect(finding.id).toBe(`${finding.code}:${finding.target}`);
    }
    for (const workload of redacted.workloads) for (const gpu of workload.gpus) expect(ids.has(gpu)).toBe(true);
  });

  it('is stable across runs, keyed, and idempotent', () => {
    expect(redactReport(original)).toEqual(redacted);
    expect(redactReport(redacted)).toEqual(redacted);
    const otherKey = redactReport(original, { key: 'a private key' });
    expect(otherKey.gpus[0]!.host).not.toBe(redacted.gpus[0]!.host);
    expect(redacted.gpus[0]!.host).toMatch(/^host-[0-9a-f]{8}$/);
    expect(redacted.gpus[0]!.id).toMatch(/^GPU-[0-9a-f]{8}-0000-0000-0000-000000000000$/);
    expect(redacted.sources[0]!.ref).toMatch(/^input-[0-9a-f]{8}\.xml\.gz$/);
    expect(redactKeyFromEnv({})).toBe(DEFAULT_REDACT_KEY);
    expect(redactKeyFromEnv({ GPU_AUDIT_REDACT_KEY: 'k' })).toBe('k');
  });

  it('hides a host named by its IP address (no letter in it) in every format', () => {
    const byIp = JSON.parse(JSON.stringify(original).replaceAll('train-h100-01', '10.20.30.40')) as Report;
    const hidden = redactReport(byIp);
    for (const [format, text] of Object.entries(everyFormat(hidden))) expect(shows(text, '10.20.30.40'), `${format} still shows the IP`).toBe(false);
  });

  it('does not change the report it is given', () => {
    const before = JSON.stringify(original);
    redactReport(original);
    expect(JSON.stringify(original)).toBe(before);
  });
});

describe('redactReport with Kubernetes attribution', async () => {
  const original = await audit([path.join(K8S, 'scrapes.prom')], [path.join(K8S, 'cluster.json')]);
  const redacted = redactReport(original);

  it('hides pods, namespaces, containers, nodes and label values in every format', () => {
    const names = identifyingNames(original);
    expect(names).toContain('ip-10-0-12-34.us-west-2.compute.internal');
    expect(names).toContain('ml-training');
    expect(names).toContain('trainer-0');
    for (const [format, text] of Object.entries(everyFormat(redacted))) {
      for (const name of names) expect(shows(withoutMethodology(text), name), `${format} still shows ${name}`).toBe(false);
    }
  });

  it('maps a node and the host of the same name to one token', () => {
    const node = redacted.kubernetes!.nodes.find((entry) => entry.host !== null)!;
    expect(node.name).toBe(node.host);
    expect(redacted.gpus.some((gpu) => gpu.host === node.host)).toBe(true);
    const pod = redacted.kubernetes!.pods[0]!;
    expect(pod.namespace).toMatch(/^ns-[0-9a-f]{8}$/);
    expect(pod.name).toMatch(/^pod-[0-9a-f]{8}$/);
  });

  it('redacts text beside the report (a skipped input naming its file)', () => {
    const redactor = reportRedactor(original);
    const ref = original.sources[0]!.ref;
    expect(redactor.text(`${ref}: line 3: bad value`)).toBe(`${redactor.report.sources[0]!.ref}: line 3: bad value`);
  });
});

describe('--redact on the command line', () => {
  it('audit --demo --redact --format markdown names no demo host', () => {
    const run = runBuiltCli(['audit', '--demo', '--redact', '--format', 'markdown', '--quiet']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/host-[0-9a-f]{8}/);
    for (const host of ['train-h100-01', 'infer-h200-01', 'mig-a100-01', 'notebook-a10g-01']) expect(run.stdout).not.toContain(host);
  });

  it('check --redact compares GPU by GPU against a baseline saved with or without --redact', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-redact-'));
    const plain = path.join(dir, 'plain.json');
    const redacted = path.join(dir, 'redacted.json');
    expect(runBuiltCli(['audit', '--demo', '--format', 'json', '-o', plain]).status).toBe(0);
    expect(runBuiltCli(['audit', '--demo', '--redact', '--format', 'json', '-o', redacted]).status).toBe(0);
    for (const baseline of [plain, redacted]) {
      const run = runBuiltCli(['check', '--demo', '--redact', '--baseline', baseline, '--format', 'markdown', '--quiet']);
      expect(run.status, run.stdout + run.stderr).toBe(0); // same fleet, same figures: no regression
      expect(run.stdout).not.toContain('train-h100-01');
    }
  }, 60_000);
});

/**
 * Serving KPIs through the built CLI: the dcgm-exporter scrapes of test/fixtures/kubernetes
 * (an L4 node, every 30 minutes from 08:00 UTC) with a vLLM server's /metrics scraped at four
 * of those times, the server restarting before the last, and a gpu-audit.yaml that names the
 * serving workload. Every figure below is worked out by hand from the scrapes written here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { runBuiltCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';

const SCRAPES = path.join(repoRoot, 'test/fixtures/kubernetes/scrapes.prom');
const T0 = 1_795_161_600_000;
const STEP = 1_800_000;
const LABELS = 'model_name="llama-3.1-8b",namespace="serving",pod="inference-7d4b9c8f5d-x2x9q",instance="ip-10-0-12-34.us-west-2.compute.internal:8000"';
const BOUNDS = ['0.25', '0.5', '1.0', '+Inf'];

// Per scrape: requests, generated tokens, waiting, and the cumulative e2e buckets (le 0.25, 0.5, 1, +Inf).
const SCRAPE_FIGURES = [
  { requests: 0, tokens: 0, waiting: 0, buckets: [0, 0, 0, 0] },
  { requests: 900, tokens: 90_000, waiting: 2, buckets: [300, 700, 850, 900] },
  { requests: 1800, tokens: 180_000, waiting: 4, buckets: [600, 1400, 1700, 1800] },
  // Restarted: every counter starts again from 0.
  { requests: 300, tokens: 30_000, waiting: 0, buckets: [100, 230, 285, 300] },
];

function vllmScrapes(): string {
  return SCRAPE_FIGURES.map((figures, index) => {
    const time = T0 + index * STEP;
    return [
      '# TYPE vllm:request_success_total counter',
      `vllm:request_success_total{finished_reason="stop",${LABELS}} ${figures.requests} ${time}`,
      `vllm:generation_tokens_total{${LABELS}} ${figures.tokens} ${time}`,
      `vllm:num_requests_waiting{${LABELS}} ${figures.waiting} ${time}`,
      ...figures.buckets.map((count, bucket) => `vllm:e2e_request_latency_seconds_bucket{${LABELS},le="${BOUNDS[bucket]!}"} ${count} ${time}`),
      `vllm:e2e_request_latency_seconds_count{${LABELS}} ${figures.buckets[3]!} ${time}`,
      '',
    ].join('\n');
  }).join('\n');
}

function audit(format: string): ReturnType<typeof runBuiltCli> {
  const directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-e2e-serving-'));
  writeFileSync(path.join(directory, 'vllm.prom'), vllmScrapes());
  writeFileSync(path.join(directory, 'gpu-audit.yaml'), [
    'workloads:',
    '  - name: chat',
    '    kind: inference',
    '    match: { namespace: serving, pod: "inference-*" }',
    '    slo: { p95Ms: 500 }',
    '',
  ].join('\n'));
  return runBuiltCli(['audit', SCRAPES, path.join(directory, 'vllm.prom'), '--config', path.join(directory, 'gpu-audit.yaml'), '--timezone', 'UTC', '--format', format], { env: { GPU_AUDIT_CACHE_DIR: directory } });
}

describe('audit with a vLLM server\'s scrapes', () => {
  const run = audit('json');
  const report = JSON.parse(run.stdout) as Report;
  const [entry] = report.serving!;

  it('reads the server and joins it to its workload by pod selector', () => {
    expect(run.status, run.stderr).toBe(0);
    expect(report.serving).toHaveLength(1);
    expect(entry).toMatchObject({ server: 'vllm', host: 'ip-10-0-12-34.us-west-2.compute.internal', model: 'llama-3.1-8b', workload: 'chat', basis: 'window', scrapes: 4, windowSeconds: 5400, counterResets: 1 });
  });

  it('counts through the restart: 900 + 900 + 300 requests and 210,000 tokens in 5,400 s', () => {
    expect(entry!.requests).toBe(2100);
    expect(entry!.requestsPerSecond).toBeCloseTo(2100 / 5400, 12);
    expect(entry!.generationTokens).toBe(210_000);
    // Waiting (0 + 2 + 4 + 0) / 4 = 1.5, at most 4.
    expect(entry!.waiting).toEqual({ mean: 1.5, max: 4 });
  });

  it('takes the latency quantiles over the window\'s buckets, the p95 past the last finite bucket', () => {
    // Increases: le 0.25: 700, le 0.5: 1,630, le 1: 1,985, +Inf: 2,100.
    // p50: rank 1,050 in (0.25, 0.5]: 0.25 + 0.25 x 350 / 930. p95: rank 1,995 > 1,985: above 1 s.
    expect(entry!.e2eLatency!.p50Seconds).toBeCloseTo(0.25 + (0.25 * 350) / 930, 12);
    expect(entry!.e2eLatency).toMatchObject({ count: 2100, p95Seconds: 1, aboveSeconds: 1 });
  });

  it('prices 1,000 requests from the workload\'s GPU cost over the window', () => {
    const chat = report.workloads.find((workload) => workload.name === 'chat')!;
    // The workload's $/h x 1.5 h / 2,100 requests x 1,000.
    expect(entry!.costPer1000RequestsUsd).toBeCloseTo((chat.cost.hourlyUsd! * 1.5 / 2100) * 1000, 9);
  });

  it('finds the SLO breached (p95 above 1,000 ms against 500 ms) and the queue standing', () => {
    const codes = report.findings.filter((finding) => finding.evidence.server === 'vllm').map((finding) => finding.code);
    expect(codes).toEqual(['slo-breach', 'queue-saturation']);
  });

  it('shows a Serving section in the terminal, Markdown and HTML', () => {
    expect(audit('table').stdout).toMatch(/\nServing \(1 server instance\)\n/u);
    const markdown = audit('markdown').stdout;
    expect(markdown).toContain('## Serving');
    expect(markdown).toContain('| &gt;1.00 |'); // the p95, above the last finite bucket
    expect(audit('html').stdout).toContain('<section id="serving"><h2>Serving</h2>');
  });

  it('keeps the serving entries in a saved report: `report` renders them as the audit did', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-e2e-serving-saved-'));
    writeFileSync(path.join(directory, 'report.json'), run.stdout);
    const rendered = runBuiltCli(['report', path.join(directory, 'report.json'), '--format', 'json']);
    expect(rendered.status, rendered.stderr).toBe(0);
    expect((JSON.parse(rendered.stdout) as Report).serving).toEqual(report.serving);
  });
});

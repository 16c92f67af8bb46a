/**
 * `audit --prometheus` against VictoriaMetrics single-node at its default limits, beside a real
 * Prometheus holding the same series: test/fixtures/kubernetes's dcgm-exporter scrapes (two EKS
 * nodes, every 30 minutes from 08:00 to 11:00 UTC on 2026-11-20) and a vLLM server's series
 * (one scrape a minute, written here). Both engines give the same report, where the
 * definitions allow it (docs/prometheus.md, "Engines").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { runCliInProcess } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { INSTALL_HINT, prometheusAvailable, type RunningPrometheus, serveFiles } from '../helpers/prometheus-server.js';
import { serveOnVictoriaMetrics, VICTORIA_METRICS_HINT, victoriaMetricsAvailable } from '../helpers/victoria-metrics-server.js';

const SCRAPES = path.join(repoRoot, 'test/fixtures/kubernetes/scrapes.prom');
const START_MS = Date.parse('2026-11-20T08:00:00Z');
const LABELS = 'instance="ip-10-0-12-34.us-west-2.compute.internal:8000",job="vllm",model_name="llama-3.1-8b",namespace="serving",pod="inference-7d4b9c8f5d-x2x9q"';
const WINDOW = ['--since', '2026-11-20T07:30:00Z', '--until', '2026-11-20T11:00:00Z', '--step', '30m'];
const CONFIG = `workloads:
  - name: chat
    kind: inference
    match: { namespace: serving, pod: "inference-*" }
    slo: { p95Ms: 1000 }
`;

/** A steady 2 requests/s, 4 in the second hour, all within 1 s. */
function vllmSeries(): string {
  const lines: string[] = [];
  let requests = 0;
  for (let minute = 0; minute <= 180; minute += 1) {
    const time = START_MS + minute * 60_000;
    if (minute > 0) requests += minute > 60 && minute <= 120 ? 240 : 120;
    lines.push(
      `vllm:request_success_total{finished_reason="stop",${LABELS}} ${requests} ${time}`,
      `vllm:e2e_request_latency_seconds_bucket{${LABELS},le="0.5"} ${requests / 2} ${time}`,
      `vllm:e2e_request_latency_seconds_bucket{${LABELS},le="1.0"} ${requests} ${time}`,
      `vllm:e2e_request_latency_seconds_bucket{${LABELS},le="+Inf"} ${requests} ${time}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const cli = runCliInProcess;

describe('audit --prometheus against VictoriaMetrics at its default limits', () => {
  let dir: string;
  let prometheus: RunningPrometheus;
  let victoria: RunningPrometheus;
  let fromPrometheus: Report;
  let fromVictoria: Report;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error(INSTALL_HINT);
    if (!victoriaMetricsAvailable()) throw new Error(VICTORIA_METRICS_HINT);
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-victoria-'));
    const vllm = path.join(dir, 'vllm-federate.prom');
    writeFileSync(vllm, vllmSeries());
    const config = path.join(dir, 'gpu-audit.yaml');
    writeFileSync(config, CONFIG);
    [prometheus, victoria] = await Promise.all([serveFiles([], [SCRAPES, vllm]), serveOnVictoriaMetrics([SCRAPES, vllm])]);
    const common = [...WINDOW, '--config', config, '--timezone', 'UTC', '--format', 'json'];
    const fromEach = await Promise.all([prometheus, victoria].map((server) => cli(['audit', '--prometheus', server.url, ...common])));
    for (const run of fromEach) expect(run.status, run.stderr).toBe(0);
    fromPrometheus = JSON.parse(fromEach[0]!.stdout) as Report;
    fromVictoria = JSON.parse(fromEach[1]!.stdout) as Report;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([prometheus?.stop(), victoria?.stop()]);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('reads every GPU with the same figures, the hour-of-week profile and timeline included', () => {
    expect(fromVictoria.gpus.length).toBe(5);
    expect(fromVictoria.gpus.map((gpu) => gpu.hourOfWeekComputePct?.filter((value) => value !== null).length)).toEqual(fromPrometheus.gpus.map((gpu) => gpu.hourOfWeekComputePct?.filter((value) => value !== null).length));
    expect(fromVictoria.gpus).toEqual(fromPrometheus.gpus);
    expect(fromVictoria.summary).toEqual(fromPrometheus.summary);
  });

  it('reads the inference server\'s series to the same serving figures', () => {
    expect(fromVictoria.serving).toEqual(fromPrometheus.serving);
    expect(fromVictoria.workloads).toEqual(fromPrometheus.workloads);
  });

  it('plans the same fleet, and names nothing partial', () => {
    expect(fromVictoria.plan).toEqual(fromPrometheus.plan);
    expect(fromVictoria.sources[0]!.warnings).toEqual([]);
    // Its build info is empty; every answer carries its X-Server-Hostname header.
    expect(fromVictoria.sources[0]!.engine).toBe('VictoriaMetrics');
    expect(fromPrometheus.sources[0]!.engine).toMatch(/^Prometheus /u);
  });
});

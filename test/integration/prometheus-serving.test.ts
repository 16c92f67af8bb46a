/**
 * Serving KPIs from a live Prometheus: a real server backfilled with a vLLM server's series
 * beside test/fixtures/kubernetes's dcgm-exporter scrapes, read by `audit --prometheus`, give
 * the same serving entries and pool figures as the file audit of the same series.
 *
 * The vLLM series, one scrape a minute from 08:00 to 11:00 UTC on 2026-11-20 (written here):
 * a steady 2 requests/s with every request within 1 s; a burst of 8 requests/s from 09:00 to
 * 09:15 whose requests take 1-2 s; a restart at 10:00 (every counter from 0 again).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { runCliInProcess } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { INSTALL_HINT, prometheusAvailable, type RunningPrometheus, serveFiles } from '../helpers/prometheus-server.js';

const SCRAPES = path.join(repoRoot, 'test/fixtures/kubernetes/scrapes.prom');
const START_MS = Date.parse('2026-11-20T08:00:00Z');
const MINUTES = 180;
const LABELS = 'instance="ip-10-0-12-34.us-west-2.compute.internal:8000",job="vllm",model_name="llama-3.1-8b",namespace="serving",pod="inference-7d4b9c8f5d-x2x9q"';
const BOUNDS = ['0.5', '1.0', '2.0', '+Inf'];
const WINDOW = ['--since', '2026-11-20T07:30:00Z', '--until', '2026-11-20T11:00:00Z', '--step', '30m'];
const CONFIG = `workloads:
  - name: chat
    kind: inference
    match: { namespace: serving, pod: "inference-*" }
    slo: { p95Ms: 1000 }
    coldStartSeconds: 120
`;

/** Per minute: requests, and how they fall in the buckets (le 0.5, 1, 2, +Inf, cumulative). */
function minute(index: number): { requests: number; buckets: number[] } {
  if (index >= 60 && index < 75) return { requests: 480, buckets: [0, 240, 480, 480] };
  return { requests: 120, buckets: [60, 120, 120, 120] };
}

function vllmSeries(): string {
  const lines: string[] = [];
  let requests = 0;
  let tokens = 0;
  let buckets = [0, 0, 0, 0];
  for (let index = 0; index <= MINUTES; index += 1) {
    const time = START_MS + index * 60_000;
    if (index === 120) {
      // The restart: the server starts counting from 0.
      requests = 0;
      tokens = 0;
      buckets = [0, 0, 0, 0];
    } else if (index > 0) {
      const served = minute(index - 1);
      requests += served.requests;
      tokens += served.requests * 200;
      buckets = buckets.map((value, bucket) => value + served.buckets[bucket]!);
    }
    lines.push(
      `vllm:request_success_total{finished_reason="stop",${LABELS}} ${requests} ${time}`,
      `vllm:generation_tokens_total{${LABELS}} ${tokens} ${time}`,
      `vllm:num_requests_waiting{${LABELS}} ${index > 60 && index <= 75 ? 6 : 0} ${time}`,
      `vllm:gpu_cache_usage_perc{${LABELS}} ${index > 60 && index <= 75 ? 0.9 : 0.3} ${time}`,
      ...buckets.map((count, bucket) => `vllm:e2e_request_latency_seconds_bucket{${LABELS},le="${BOUNDS[bucket]!}"} ${count} ${time}`),
      `vllm:e2e_request_latency_seconds_count{${LABELS}} ${buckets[3]!} ${time}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const cli = runCliInProcess;

describe('audit --prometheus against a real Prometheus: serving KPIs', () => {
  let dir: string;
  let server: RunningPrometheus;
  let fromFiles: Report;
  let fromPrometheus: Report;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error(INSTALL_HINT);
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-prom-serving-'));
    const vllm = path.join(dir, 'vllm-federate.prom');
    writeFileSync(vllm, vllmSeries());
    const config = path.join(dir, 'gpu-audit.yaml');
    writeFileSync(config, CONFIG);
    server = await serveFiles([], [SCRAPES, vllm]);
    const common = ['--config', config, '--timezone', 'UTC', '--format', 'json'];
    const files = await cli(['audit', SCRAPES, vllm, ...common]);
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

  it('reads the server\'s series and counts through the restart as the file audit does', () => {
    const [entry] = fromPrometheus.serving!;
    // 180 minutes: 165 x 120 + 15 x 480 requests, less the 120 the restart lost (minute 119's, counted from 0 after).
    expect(entry).toMatchObject({ server: 'vllm', workload: 'chat', basis: 'window', scrapes: 181, windowSeconds: 10_800, counterResets: 1 });
    expect(entry!.requests).toBe(165 * 120 + 15 * 480 - 120);
    expect(fromPrometheus.serving).toEqual(fromFiles.serving);
  });

  it('gives the same pool figures: the burst is the peak, the steady load the capacity within the SLO', () => {
    const pool = fromPrometheus.workloads.find((workload) => workload.name === 'chat')!.serving!;
    expect(pool).toEqual(fromFiles.workloads.find((workload) => workload.name === 'chat')!.serving);
    // The burst: 480 requests a minute = 8 requests/s, its p95 1.9 s over the 1,000 ms SLO (a knee); the steady 2 requests/s at p95 0.95 s.
    expect(pool).toMatchObject({ peakRequestsPerSecond: 8, sloP95Ms: 1000 });
    expect(pool.capacity).toMatchObject({ requestsPerSecondPerGpu: 2 / fromPrometheus.workloads.find((workload) => workload.name === 'chat')!.gpus.length, basis: 'knee', p95Ms: expect.closeTo(950, 6) });
  });

  it('raises the same serving findings, and names the serving metrics it read', () => {
    const codes = (report: Report) => report.findings.filter((finding) => ['slo-breach', 'kv-cache-pressure', 'queue-saturation'].includes(finding.code)).map((finding) => finding.id);
    expect(codes(fromPrometheus)).toEqual(codes(fromFiles));
    expect(fromPrometheus.sources[0]!.warnings).toEqual([]);
  });
});

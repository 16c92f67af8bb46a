/**
 * Chunk joins under both range rules. Prometheus 2.x ranges include their start,
 * [t - range, t]; 3.x ranges leave it out, (t - range, t]. Only 2.42 runs here (the real server
 * is in test/integration), so a local HTTP server stands in for either: it holds one GPU's
 * samples and evaluates the few query shapes gpu-audit sends by the rule it is given, reading
 * the ranges out of the query text. What it cannot evaluate it refuses (HTTP 400), so a query
 * shape the test does not know fails the test rather than pass unseen.
 *
 * The data put a sample 1 ms after each chunk join, the one a 3.x server leaves out of a range
 * one millisecond short: window S = 2026-11-02T00:00Z to S + 2 h, chunks of 1 h, step 60 s;
 * sample k (k = 0 … 119) at S + 1 ms + k x 60 s with value k. By hand, for the whole window:
 *   count 120; sum 0 + … + 119 = 119 x 120 / 2 = 7,140; mean 7,140 / 120 = 59.5; max 119;
 *   p50 at rank 0.5 x 119 = 59.5: between 59 and 60, 59.5; p95 at rank 0.95 x 119 = 113.05: 113.05;
 *   steps at S + j x 60 s, j = 1 … 120, each seeing sample j - 1 (1 ms short of 60 s before it,
 *   within the 5-minute lookback): 120 steps = 7,200 s observed, the first at S + 60 s, the last
 *   at S + 2 h; idle (below 5 %) where the value j - 1 < 5: j = 1 … 5, 5 steps = 300 s.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { PrometheusClient } from '../../../../src/sources/live/prometheus/client.js';
import { prometheusConnection } from '../../../../src/sources/live/prometheus/auth.js';
import { RANGE_RULE_PROBE, signalChunkQuery } from '../../../../src/sources/live/prometheus/queries.js';
import { readPrometheus } from '../../../../src/sources/live/prometheus/index.js';
import type { RangeRule } from '../../../../src/sources/live/prometheus/window.js';

const S = Date.parse('2026-11-02T00:00:00Z');
const H = 3_600_000;
const LOOKBACK_MS = 300_000;
const GPU = { UUID: 'GPU-aaaa', gpu: '0', Hostname: 'node-1', modelName: 'NVIDIA H100 80GB HBM3' };
const SAMPLES = Array.from({ length: 120 }, (_, k) => ({ t: S + 1 + k * 60_000, v: k }));

/** Whether `t` lies in the range of `rangeMs` ending at `end`, by the rule. */
function within(t: number, end: number, rangeMs: number, rule: RangeRule): boolean {
  return (rule === 'closed' ? t >= end - rangeMs : t > end - rangeMs) && t <= end;
}

/** The latest sample an instant selector sees at `t` (the lookback follows the same rule). */
function latestAt(t: number, rule: RangeRule): { t: number; v: number } | undefined {
  return SAMPLES.filter((sample) => within(sample.t, t, LOOKBACK_MS, rule)).at(-1);
}

/** A subquery's step times: multiples of the step (since the epoch) within the range. */
function steps(end: number, rangeMs: number, stepMs: number, rule: RangeRule): number[] {
  const times: number[] = [];
  for (let t = Math.floor(end / stepMs) * stepMs; within(t, end, rangeMs, rule); t -= stepMs) times.unshift(t);
  return times;
}

/** Prometheus' quantile_over_time: linear between the order statistics around rank q x (n - 1). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = q * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.min(sorted.length - 1, low + 1);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

function number(pattern: RegExp, text: string): number {
  const match = pattern.exec(text);
  if (match === null) throw new Error(`no ${String(pattern)} in ${text}`);
  return Number(match[1]);
}

type Vector = { metric: Record<string, string>; value: [number, string] }[];

/** The instant query `query` at `timeMs` by `rule`; undefined for a shape this server does not evaluate. */
function evaluate(query: string, timeMs: number, rule: RangeRule): Vector | undefined {
  const at = (tag: string | undefined, value: number): Vector[number] => ({ metric: tag === undefined ? { ...GPU } : { ...GPU, gpu_audit: tag }, value: [timeMs / 1000, String(value)] });
  if (query === RANGE_RULE_PROBE) return [{ metric: {}, value: [timeMs / 1000, String(steps(timeMs, 2000, 1000, rule).length)] }];
  if (query.includes('node_cpu_seconds_total')) return [];
  const subquery = /\[(\d+)ms:(\d+)s\]/.exec(query);
  const stepTimes = subquery === null ? [] : steps(timeMs, Number(subquery[1]), Number(subquery[2]) * 1000, rule).filter((t) => latestAt(t, rule) !== undefined);
  if (query.includes('quantile_over_time')) {
    const values = SAMPLES.filter((sample) => within(sample.t, timeMs, number(/\[(\d+)ms\]/, query), rule)).map((sample) => sample.v);
    return [at(undefined, quantile(values, number(/quantile_over_time\(([\d.]+),/, query)))];
  }
  if (query.includes('"first"')) {
    // The device query: presence steps and their first and last time (no pod labels here).
    if (stepTimes.length === 0) return [];
    return [at('steps', stepTimes.length), at('first', stepTimes[0]! / 1000), at('last', stepTimes.at(-1)! / 1000)];
  }
  if (query.includes('sum_over_time(DCGM_FI_DEV_GPU_UTIL[')) {
    const values = SAMPLES.filter((sample) => within(sample.t, timeMs, number(/\[(\d+)ms\]/, query), rule)).map((sample) => sample.v);
    if (values.length === 0) return [];
    const threshold = number(/< bool ([\d.]+)/, query);
    return [
      at('count', values.length),
      at('sum', values.reduce((a, b) => a + b, 0)),
      at('max', Math.max(...values)),
      at('steps', stepTimes.length),
      at('idle_steps', stepTimes.filter((t) => latestAt(t, rule)!.v < threshold).length),
    ];
  }
  return undefined;
}

/** A Prometheus of `rule` holding SAMPLES as DCGM_FI_DEV_GPU_UTIL; records the instant queries it answered. */
async function fakePrometheus(rule: RangeRule): Promise<{ url: string; queries: string[]; close(): Promise<void> }> {
  const queries: string[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (part: Buffer) => {
      body += part.toString();
    });
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const send = (status: number, document: unknown): void => {
        response.writeHead(status, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(document));
      };
      if (url.pathname === '/api/v1/label/__name__/values') return send(200, { status: 'success', data: ['DCGM_FI_DEV_GPU_UTIL'] });
      if (url.pathname === '/api/v1/query_range') return send(200, { status: 'success', data: { resultType: 'matrix', result: [] } });
      const form = new URLSearchParams(body);
      const query = form.get('query') ?? '';
      const result = url.pathname === '/api/v1/query' ? evaluate(query, Math.round(Number(form.get('time')) * 1000), rule) : undefined;
      if (result === undefined) return send(400, { status: 'error', errorType: 'bad_data', error: `the test server cannot evaluate: ${query}` });
      queries.push(query);
      return send(200, { status: 'success', data: { resultType: 'vector', result } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, queries, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function audit(rule: RangeRule) {
  const server = await fakePrometheus(rule);
  close = server.close;
  const read = await readPrometheus({
    url: server.url, since: '2026-11-02T00:00:00Z', until: '2026-11-02T02:00:00Z', step: '60s',
    idleThresholdPct: 5, env: {}, nowMs: S + 24 * H, chunkSeconds: 3600,
  });
  return { read, queries: server.queries };
}

describe('chunk joins under Prometheus 2.x (closed) and 3.x (left-open) ranges', () => {
  for (const rule of ['closed', 'left-open'] as const) {
    it(`counts every sample once under the ${rule} rule`, async () => {
      const { read, queries } = await audit(rule);
      expect(read.rangeRule).toBe(rule);
      // Two chunks: a signal query and a device query each.
      expect(queries.filter((query) => query.includes('"first"') && query.includes('DCGM_FI_DEV_GPU_UTIL'))).toHaveLength(2);
      expect(read.devices).toHaveLength(1);
      expect(read.devices[0]).toMatchObject({
        samples: 120,
        percent: { utilizationPct: { mean: 59.5, max: 119, p50: 59.5 } },
        observedSeconds: 7200,
        idle: { utilization: { observedSeconds: 7200, idleSeconds: 300 } },
        firstSeenMs: S + 60_000,
        lastSeenMs: S + 2 * H,
      });
      expect(read.devices[0]!.percent.utilizationPct!.p95).toBeCloseTo(113.05, 9);
      // No node_exporter: no CPU figures, and no error.
      expect(read.cpu).toEqual({ hosts: [], containers: [] });
    });
  }

  it('would lose the sample 1 ms after the join on a 3.x server if the range were sized for 2.x', async () => {
    const server = await fakePrometheus('left-open');
    close = server.close;
    const client = new PrometheusClient(prometheusConnection(server.url, {}));
    const count = async (rule: RangeRule): Promise<number | undefined> => {
      const answer = await client.instant(signalChunkQuery({ selector: 'DCGM_FI_DEV_GPU_UTIL', chunkSeconds: 3600, stepSeconds: 60, rule, idleBelow: 5 }), S + 2 * H);
      return answer.find((sample) => sample.labels.gpu_audit === 'count')?.value;
    };
    // The second chunk holds samples 60 … 119; sample 60 lies at S + 1 h + 1 ms, the open start of (S + 2 h - 3,599,999 ms, …].
    expect(await count('closed')).toBe(59);
    expect(await count('left-open')).toBe(60);
  });
});

/**
 * The live audit within an engine's limits: a real Prometheus started with a small
 * `--query.max-samples` refuses the whole-chunk queries of the demo fleet; gpu-audit asks them
 * again in halves of their time range until each answers, says so, and reports exactly what a
 * server at its default limits gives.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { runCliInProcess } from '../helpers/cli.js';
import { repoRoot } from '../helpers/corpus.js';
import { INSTALL_HINT, prometheusAvailable, type RunningPrometheus, serveFiles } from '../helpers/prometheus-server.js';

const DEMO = ['train-h100-01', 'infer-h200-01', 'mig-a100-01', 'notebook-a10g-01'].map((host) => path.join(repoRoot, 'fixtures/demo', `${host}.xml.gz`));
const WINDOW = ['--since', '2026-11-02T00:00:00Z', '--until', '2026-11-03T02:05:00Z', '--step', '5m', '--timezone', 'UTC', '--format', 'json'];
/** Small enough that whole-window chunk queries (22 devices x 313 steps) are refused, large enough for one series' 313 samples (the quantiles). */
const MAX_SAMPLES = 400;

const cli = runCliInProcess;

describe('audit --prometheus against a server with a small --query.max-samples', () => {
  let open: RunningPrometheus;
  let limited: RunningPrometheus;
  let fromOpen: Report;
  let fromLimited: Report;
  let limitedRun: { status: number; stderr: string };
  /** The open server, with budgets that cut the work by series (samples) and by time (points). */
  let sharded: Report;
  let shortChunks: Report;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error(INSTALL_HINT);
    [open, limited] = await Promise.all([serveFiles(DEMO), serveFiles(DEMO, [], { flags: [`--query.max-samples=${MAX_SAMPLES}`] })]);
    const [a, b] = await Promise.all([cli(['audit', '--prometheus', open.url, ...WINDOW]), cli(['audit', '--prometheus', limited.url, ...WINDOW])]);
    expect(a.status, a.stderr).toBe(0);
    limitedRun = b;
    fromOpen = JSON.parse(a.stdout) as Report;
    fromLimited = JSON.parse(b.stdout) as Report;
    const [c, d] = await Promise.all([
      cli(['audit', '--prometheus', open.url, ...WINDOW, '--prometheus-query-samples', '3000']),
      cli(['audit', '--prometheus', open.url, ...WINDOW, '--prometheus-query-points', '20000']),
    ]);
    expect(c.status, c.stderr).toBe(0);
    expect(d.status, d.stderr).toBe(0);
    sharded = JSON.parse(c.stdout) as Report;
    shortChunks = JSON.parse(d.stdout) as Report;
  }, 240_000);

  afterAll(async () => {
    await Promise.all([open?.stop(), limited?.stop()]);
  });

  it('succeeds, splitting what the server refused, and says so', () => {
    expect(limitedRun.status, limitedRun.stderr).toBe(0);
    expect(fromLimited.sources[0]!.warnings.some((warning) => /^the engine refused \d+ queries for their size: each was asked again in halves/u.test(warning))).toBe(true);
    expect(fromLimited.sources[0]!.records).toBeGreaterThan(fromOpen.sources[0]!.records);
  });

  it('gives the figures of the server at its default limits', () => {
    expect(fromLimited.gpus).toEqual(fromOpen.gpus);
    expect(fromLimited.plan).toEqual(fromOpen.plan);
  });

  describe('the query planner', () => {
    it('cuts the fleet into UUID shards to fit a sample budget, and the figures are unchanged', () => {
      // 26 hours of a sample every 5 minutes is 313 samples per series: a budget of 3,000 holds
      // the whole-window quantiles of a few GPUs at a time.
      expect(sharded.sources[0]!.records).toBeGreaterThan(fromOpen.sources[0]!.records * 3);
      expect(sharded.sources[0]!.warnings).toEqual(fromOpen.sources[0]!.warnings);
      expect(sharded.gpus).toEqual(fromOpen.gpus);
      expect(sharded.plan).toEqual(fromOpen.plan);
    });

    it('cuts the window into shorter chunks to fit a subquery budget, and the figures are unchanged', () => {
      expect(shortChunks.sources[0]!.records).toBeGreaterThan(fromOpen.sources[0]!.records);
      expect(shortChunks.gpus).toEqual(fromOpen.gpus);
      expect(shortChunks.plan).toEqual(fromOpen.plan);
    });
  });
});

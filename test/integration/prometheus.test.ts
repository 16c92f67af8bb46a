/**
 * `gpu-audit audit --prometheus` against a real Prometheus (Debian's package, started here on
 * 127.0.0.1) holding the demo fleet, compared with the file-based audit of the same data.
 *
 * Tolerances, and why (README "Live Prometheus" says the same to users):
 *  - utilization and memory means: Prometheus weighs every sample equally, the file audit by
 *    the time until the next sample. The demo samples every 300-301 s, so the two differ by
 *    far less than the 1 point (0.5 % for MiB) allowed.
 *  - p50 and p95: Prometheus interpolates between the two order statistics around rank
 *    q x (n - 1); the file audit takes the smallest value whose cumulative duration reaches
 *    q of the total (within its sketch's 0.5 %). Both must lie between the order statistics
 *    around those ranks; where the samples jump there (the H200's p95 falls between a 10 %
 *    light sample and a 40 % burst), the two may be far apart, and that is the documented
 *    difference, not an error.
 *  - idleFraction within 0.01 and gpuHours within one step (300 s): Prometheus time figures
 *    count 5-minute steps at which a sample was present (queries.ts), the file audit sums
 *    sample durations; the difference is at most a step at each end of a series.
 *  - MIG: the file audit judges MIG instances (and their MIG-enabled boards) idle by their
 *    process lists, which dcgm-exporter does not export: from Prometheus their idleness is
 *    unknown (computeBasis `unknown`, idleFraction null), never guessed.
 *
 * Beside the GPU series, the server holds node_exporter CPU counters for two of the demo hosts
 * (demoCpuExposition), and the file audit that compares pipeline verdicts reads the same
 * counters from a file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit } from '../../src/engine/run-audit.js';
import { demoFleetFiles } from '../../src/cli/paths.js';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import type { GpuEntry, Report } from '../../src/model/report.js';
import { repoRoot } from '../helpers/corpus.js';
import { INSTALL_HINT, prometheusAvailable, readSamples, type RunningPrometheus, serveFiles } from '../helpers/prometheus-server.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

const WINDOW = ['--since', '2026-11-01T23:00:00Z', '--until', '2026-11-03T03:00:00Z'];
const STEP_HOURS = 300 / 3600;
const SKETCH_ERROR = 0.005;

/**
 * node_exporter on train-h100-01 and infer-h200-01 (8 CPUs each), a reading every 300 s from
 * Monday 00:00 to Tuesday 02:00 UTC (313 readings), as /federate prints them. Per CPU and
 * interval: train-h100-01 user 105 s, system 15 s, iowait 12 s, idle 168 s, so it is
 * 1 - (12 + 168) / 300 = 40 % busy (3.2 of 8 cores); infer-h200-01 user 270, system 15,
 * iowait 3, idle 12: 1 - 15 / 300 = 95 % busy. notebook-a10g-01 and mig-a100-01 have none.
 */
function demoCpuExposition(): string {
  const hosts: [string, [string, number][]][] = [
    ['train-h100-01', [['user', 105], ['system', 15], ['iowait', 12], ['idle', 168]]],
    ['infer-h200-01', [['user', 270], ['system', 15], ['iowait', 3], ['idle', 12]]],
  ];
  const start = Date.parse('2026-11-02T00:00:00Z');
  const lines: string[] = [];
  for (const [host, modes] of hosts) {
    for (let cpu = 0; cpu < 8; cpu += 1) {
      for (const [mode, seconds] of modes) {
        for (let reading = 0; reading <= 312; reading += 1) {
          lines.push(`node_cpu_seconds_total{cpu="${cpu}",instance="${host}:9100",job="node",mode="${mode}"} ${100_000 + reading * seconds} ${start + reading * 300_000}`);
        }
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Workloads by host, so that both audits assign the same GPUs (the Prometheus one has no processes). */
const HOST_WORKLOADS = `workloads:
  - { name: pretrain, kind: training, match: { hosts: [train-h100-*] } }
  - { name: serving, kind: inference, match: { hosts: [infer-h200-*] } }
  - { name: notebooks, kind: interactive, match: { hosts: [notebook-*] } }
`;

function captureIo(env: NodeJS.ProcessEnv = {}): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out, err,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    stdoutIsTty: false,
    stderrIsTty: false,
    env: { NO_COLOR: '1', ...env },
    stdin: Readable.from([]),
  };
}

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  const io = captureIo(env);
  const status = await runCli(args, io);
  return { status, stdout: io.out.join(''), stderr: io.err.join('') };
}

/** The values of one signal per device id, as the files hold them, sorted. */
type SortedValues = Map<string, number[]>;

function bracket(sorted: readonly number[], q: number): [number, number] {
  const n = sorted.length;
  // Prometheus: between ranks floor/ceil of q(n-1); file audit: rank ceil(qn) - 1, give or take one
  // for unequal durations (300 vs 301 s). The bracket spans both.
  const low = sorted[Math.max(0, Math.floor(q * (n - 1)) - 1)]!;
  const high = sorted[Math.min(n - 1, Math.ceil(q * n))]!;
  return [low * (1 - SKETCH_ERROR), high * (1 + SKETCH_ERROR)];
}

describe('audit --prometheus against a real Prometheus holding the demo fleet', () => {
  let server: RunningPrometheus;
  let fromFiles: Report;
  let fromPrometheus: Report;
  let stderr: string;
  let dir: string;
  let cpuFile: string;
  const utilization: SortedValues = new Map();
  const memory: SortedValues = new Map();

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error(INSTALL_HINT);
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-demo-cpu-'));
    cpuFile = path.join(dir, 'node-exporter-federate.prom');
    writeFileSync(cpuFile, demoCpuExposition());
    server = await serveFiles(demoFleetFiles, [cpuFile]);
    fromFiles = (await runAudit({ inputs: demoFleetFiles, ...AUDIT_DEFAULTS })).report;
    const run = await cli(['audit', '--prometheus', server.url, ...WINDOW, '--timezone', 'UTC', '--format', 'json', '--debug']);
    stderr = run.stderr;
    expect(run.stderr).toMatch(/^gpu-audit: prometheus: \d+ queries, 0 retries, \d+ bytes received \(\d+ bytes of JSON\)\n$/);
    expect(run.status).toBe(0);
    fromPrometheus = JSON.parse(run.stdout) as Report;

    // The raw values per report id (uuid, uuid/GI), to bracket the quantiles.
    const sink = await readSamples(demoFleetFiles);
    for (const sample of sink.samples) {
      const id = sample.ref.gpuInstanceId === undefined ? sample.ref.uuid! : `${sample.ref.uuid!}/${sample.ref.gpuInstanceId}`;
      if (sample.utilizationPct !== undefined) utilization.set(id, [...(utilization.get(id) ?? []), sample.utilizationPct]);
      if (sample.memoryUsedMiB !== undefined) memory.set(id, [...(memory.get(id) ?? []), sample.memoryUsedMiB]);
    }
    for (const values of [...utilization.values(), ...memory.values()]) values.sort((a, b) => a - b);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const pairs = (): [GpuEntry, GpuEntry][] => fromFiles.gpus.map((gpu) => [gpu, fromPrometheus.gpus.find((other) => other.id === gpu.id)!]);

  it('finds the same GPUs and MIG devices, in the same order, with the same inventory', () => {
    expect(fromPrometheus.gpus.map((gpu) => gpu.id)).toEqual(fromFiles.gpus.map((gpu) => gpu.id));
    expect(fromPrometheus.gpus).toHaveLength(22);
    for (const [file, prom] of pairs()) {
      for (const field of ['host', 'index', 'uuid', 'pciBusId', 'model', 'modelKey', 'memoryTotalMiB', 'parentId', 'instanceType', 'samples'] as const) {
        expect(prom[field], `${file.id} ${field}`).toEqual(file[field]);
      }
      // A MIG instance's price is its board's share by compute slices: known where its profile
      // is. These series carry no GPU_I_PROFILE, and memory alone does not tell 3g.40gb from
      // 4g.40gb, so such an instance stays unpriced rather than priced on a guess.
      if (file.parentId === null || prom.migProfile !== null) expect(prom.hourlyCostUsd, `${file.id} hourlyCostUsd`).toEqual(file.hourlyCostUsd);
      else expect(prom.hourlyCostUsd, `${file.id} hourlyCostUsd`).toBeNull();
      // First and last seen are steps of the 5-minute grid: the first step at or after the first
      // sample, the last step that still sees the last sample (Prometheus' 5-minute lookback).
      const firstLag = Date.parse(prom.firstSeen!) - Date.parse(file.firstSeen!);
      const lastLag = Date.parse(prom.lastSeen!) - Date.parse(file.lastSeen!);
      expect(firstLag, file.id).toBeGreaterThanOrEqual(0);
      expect(firstLag, file.id).toBeLessThan(300_000);
      expect(lastLag, file.id).toBeGreaterThanOrEqual(0);
      expect(lastLag, file.id).toBeLessThanOrEqual(300_000);
    }
    expect(fromPrometheus.summary).toMatchObject({ gpuCount: 16, migDeviceCount: 6, hostCount: 4 });
  });

  it('gives the same utilization figures, within the documented differences', () => {
    for (const [file, prom] of pairs()) {
      if (file.utilization === null) {
        expect(prom.utilization, file.id).toBeNull();
        continue;
      }
      expect(Math.abs(prom.utilization!.mean - file.utilization.mean), file.id).toBeLessThan(1);
      expect(prom.utilization!.max, file.id).toBe(file.utilization.max);
      for (const [q, key] of [[0.5, 'p50'], [0.95, 'p95']] as const) {
        const [low, high] = bracket(utilization.get(file.id)!, q);
        for (const value of [prom.utilization![key], file.utilization[key]]) {
          expect(value, `${file.id} ${key}`).toBeGreaterThanOrEqual(low);
          expect(value, `${file.id} ${key}`).toBeLessThanOrEqual(high);
        }
      }
    }
    // By hand: an H100 trains 06:00-22:00; 120 of its 312 samples are idle (fixtures/demo/README.md).
    const h100 = fromPrometheus.gpus.find((gpu) => gpu.model === 'NVIDIA H100 80GB HBM3')!;
    expect(h100.idleFraction).toBeCloseTo(120 / 312, 2);
    expect(Math.abs(fromPrometheus.summary.meanUtilization! - fromFiles.summary.meanUtilization!)).toBeLessThan(1);
  });

  it('gives the same memory figures', () => {
    for (const [file, prom] of pairs()) {
      expect(prom.memoryUsedMiB!.max, file.id).toBe(file.memoryUsedMiB!.max);
      expect(Math.abs(prom.memoryUsedMiB!.mean - file.memoryUsedMiB!.mean) / file.memoryUsedMiB!.mean, file.id).toBeLessThan(SKETCH_ERROR);
      const [low, high] = bracket(memory.get(file.id)!, 0.95);
      expect(prom.memoryUsedMiB!.p95, file.id).toBeGreaterThanOrEqual(low);
      expect(prom.memoryUsedMiB!.p95, file.id).toBeLessThanOrEqual(high);
      expect(prom.vramHeadroomMiB, file.id).toBe(file.vramHeadroomMiB);
    }
  });

  it('gives the same time figures within one step, and leaves MIG idleness unknown', () => {
    for (const [file, prom] of pairs()) {
      expect(Math.abs(prom.gpuHours - file.gpuHours), file.id).toBeLessThanOrEqual(STEP_HOURS);
      if (file.computeBasis === 'utilization') {
        expect(prom.computeBasis, file.id).toBe('utilization');
        expect(Math.abs(prom.idleFraction! - file.idleFraction!), file.id).toBeLessThan(0.01);
        expect(Math.abs(prom.idleHours - file.idleHours), file.id).toBeLessThanOrEqual(STEP_HOURS);
      } else {
        expect(file.computeBasis, file.id).toBe('processes');
        expect(prom, file.id).toMatchObject({ computeBasis: 'unknown', idleFraction: null, idleHours: 0 });
      }
    }
  });

  it('fills the hour-of-week profile from hourly range queries', () => {
    // The demo starts Monday 2026-11-02 00:00 UTC: the first 26 hours of the week are observed.
    const h100 = fromPrometheus.gpus.find((gpu) => gpu.model === 'NVIDIA H100 80GB HBM3')!;
    const profile = h100.hourOfWeekComputePct!;
    expect(profile).toHaveLength(168);
    expect(profile.slice(26).every((value) => value === null)).toBe(true);
    // Idle 00:00-06:00 (0 %), training 07:00-08:00 (90-100 % with no checkpoint dip in that hour).
    expect(profile.slice(0, 6)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(profile[7]).toBeGreaterThanOrEqual(90);
    // The timeline in the buckets the file audit uses for the same data (4 minutes for 26 h),
    // without holes though samples come every 5 minutes. The file audit's last sample stands for
    // one more interval, so its timeline may be a bucket longer.
    const fileH100 = fromFiles.gpus.find((gpu) => gpu.id === h100.id)!;
    const timeline = h100.timeline!;
    expect(timeline.bucketSeconds).toBe(fileH100.timeline!.bucketSeconds);
    expect(timeline.start).toBe(fileH100.timeline!.start);
    expect(Math.abs(timeline.computeMeanPct.length - fileH100.timeline!.computeMeanPct.length)).toBeLessThanOrEqual(1);
    expect(timeline.computeMeanPct.every((value) => value !== null)).toBe(true);
    expect(Math.max(...timeline.memoryUsedMaxMiB.map((value) => value ?? 0))).toBe(h100.memoryUsedMiB!.max);
  });

  it('writes a report that follows the shipped JSON Schema', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(repoRoot, 'schema/report.schema.json'), 'utf8')) as object);
    expect(validate(fromPrometheus), JSON.stringify(validate.errors)).toBe(true);
  });

  it('names the server in sources[] with the queries made, a few dozen for the whole fleet', () => {
    // The engine as its build-info endpoint names it (Debian's package: `2.42.0+ds`).
    expect(fromPrometheus.sources).toEqual([{ ref: server.url, format: 'prometheus', records: expect.any(Number) as number, warnings: [], engine: expect.stringMatching(/^Prometheus [23]\.\d+\.\d+/u) as string }]);
    expect(fromPrometheus.sources[0]!.records).toBeLessThan(30);
    expect(stderr).toContain(`${fromPrometheus.sources[0]!.records} queries`);
    // From the first step with a sample (00:00, the H100s' first sample is on it) to the last (02:00).
    expect(fromPrometheus.window).toEqual({ start: '2026-11-02T00:00:00.000Z', end: '2026-11-03T02:00:00.000Z', seconds: 93_600, timezone: 'UTC' });
  });

  it('reads host CPU from node_exporter series and gives the pipeline verdicts of the file audit of the same counters', async () => {
    const config = path.join(dir, 'gpu-audit.yaml');
    writeFileSync(config, HOST_WORKLOADS);
    const common = ['--config', config, '--timezone', 'UTC', '--format', 'json'];
    const files = await cli(['audit', ...demoFleetFiles, cpuFile, ...common]);
    const live = await cli(['audit', '--prometheus', server.url, ...WINDOW, ...common]);
    expect(files.status, files.stderr).toBe(0);
    expect(live.status, live.stderr).toBe(0);
    const pipeline = (json: string) => new Map((JSON.parse(json) as Report).workloads.map((workload) => [workload.name, workload.cpuPipeline]));
    const fromFileAudit = pipeline(files.stdout);
    const fromServer = pipeline(live.stdout);
    for (const name of ['pretrain', 'serving', 'notebooks']) expect(fromServer.get(name)?.verdict, name).toBe(fromFileAudit.get(name)?.verdict);
    // By hand: 57.6 % mean utilization (50-80 %) next to a host 40 % busy: the GPU is the bottleneck.
    expect(fromServer.get('pretrain')).toMatchObject({ verdict: 'gpu-bound' });
    expect(fromServer.get('pretrain')!.evidence).toEqual(expect.arrayContaining(['GPU at least 50% busy and the CPU not saturated', 'host CPU 40% busy (3.2 of 8 cores)']));
    expect(fromFileAudit.get('pretrain')!.evidence).toContain('host CPU 40% busy (3.2 of 8 cores)');
    // A saturated CPU never makes an idle GPU input-bound (the H200s are 4.3 % busy).
    expect(fromServer.get('serving')).toMatchObject({ verdict: 'idle' });
    expect(fromServer.get('serving')!.evidence).toContain('host CPU 95% busy (7.6 of 8 cores)');
    // No node_exporter on the notebook host: no CPU evidence, and no error.
    expect(fromServer.get('notebooks')!.evidence.some((line) => line.startsWith('host CPU'))).toBe(false);
  });

  it('adds --selector to every query', async () => {
    const run = await cli(['audit', '--prometheus', server.url, ...WINDOW, '--selector', '{Hostname="train-h100-01"}', '--format', 'json']);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.gpus.map((gpu) => gpu.host)).toEqual(new Array(8).fill('train-h100-01'));
  });

  it('says so when the window holds no GPU series (exit 2)', async () => {
    const run = await cli(['audit', '--prometheus', server.url, '--since', '2h', '--until', '2026-10-01T00:00:00Z']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`gpu-audit: ${server.url}: no dcgm-exporter GPU series (DCGM_FI_PROF_SM_ACTIVE, DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, DCGM_FI_DEV_FB_USED) between 2026-09-30T22:00:00.000Z and 2026-10-01T00:00:00.000Z\n`);
  });

  describe('through a flaky proxy', () => {
    let proxy: http.Server;
    let proxyUrl: string;
    let requests = 0;

    beforeAll(async () => {
      // The first request gets a 503; every answer gets a partial-data warning, as Thanos adds.
      proxy = http.createServer((request, response) => {
        requests += 1;
        if (requests === 1) {
          response.writeHead(503, { 'Content-Type': 'text/plain' });
          response.end('upstream connect error');
          return;
        }
        const upstream = http.request(`${server.url}${request.url ?? ''}`, { method: request.method, headers: { ...request.headers, 'accept-encoding': 'identity' } }, (answer) => {
          let body = '';
          answer.on('data', (part: Buffer) => {
            body += part.toString();
          });
          answer.on('end', () => {
            const document = JSON.parse(body) as Record<string, unknown>;
            response.writeHead(answer.statusCode ?? 502, { 'Content-Type': 'application/json' });
            response.end(JSON.stringify({ ...document, warnings: ['partial response: store 10.0.0.7:10901 unavailable'] }));
          });
        });
        request.pipe(upstream);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    });

    afterAll(async () => {
      await new Promise((resolve) => proxy.close(resolve));
    });

    it('retries the 503 and reports the partial data in the source warnings', async () => {
      const run = await cli(['audit', '--prometheus', proxyUrl, ...WINDOW, '--format', 'json', '--debug']);
      expect(run.status).toBe(0);
      expect(run.stderr).toMatch(/ 1 retries, /);
      const report = JSON.parse(run.stdout) as Report;
      expect(report.gpus).toHaveLength(22);
      // Every answer carried the warning: the whole window is named.
      expect(report.sources[0]!.warnings).toEqual([
        'Prometheus: partial response: store 10.0.0.7:10901 unavailable (partial answers for 2026-11-01T23:00:00Z to 2026-11-03T03:00:00Z, ' +
        'the whole window: figures may lack data from that part of the window)',
      ]);
    });
  });
});

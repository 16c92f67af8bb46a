/**
 * A real Prometheus for the tests: data written as OpenMetrics, backfilled with
 * `promtool tsdb create-blocks-from openmetrics`, served by `prometheus` on 127.0.0.1 at a free
 * port. Debian's `prometheus` package brings both (scripts/install-system-deps.sh; CI runs it).
 *
 * The demo fleet (nvidia-smi XML) becomes dcgm-exporter series through the project's own XML
 * source, one OpenMetrics sample per nvidia-smi sample and field:
 *   DCGM_FI_DEV_GPU_UTIL   utilization.gpu, where the driver printed one (not under MIG)
 *   DCGM_FI_DEV_FB_USED    memory used (MiB)
 *   DCGM_FI_DEV_FB_FREE    memory total - used, so that used + free is nvidia-smi's total
 *                          (the XML's reserved part is folded into free)
 * with the labels dcgm-exporter puts on them: UUID, gpu, pci_bus_id, modelName, Hostname (the
 * host the file audit gives the file) and, for a MIG instance, GPU_I_ID. A MIG instance has
 * memory series only: DCGM has no utilization per instance, and nvidia-smi's process lists
 * (which the file audit judges MIG idleness by) have no dcgm-exporter counterpart.
 *
 * Prometheus text exposition files with millisecond sample timestamps (dcgm-exporter scrapes
 * with pod labels, node_exporter and cAdvisor CPU counters, as /federate prints them) travel
 * as they are: every timed sample becomes one OpenMetrics sample of the same series, so the
 * file audit of those files and the audit of the server read the same series.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { DeviceInfo, DeviceRef, GpuSample } from '../../src/model/observations.js';
import { scanExpositionLine } from '../../src/sources/dcgm/exposition.js';
import { hostForInput, openInput, requireParser, resolveInputs } from '../../src/sources/index.js';
import { RecordingSink } from './sink.js';

export const PROMETHEUS_BIN = process.env.GPU_AUDIT_TEST_PROMETHEUS ?? 'prometheus';
export const PROMTOOL_BIN = process.env.GPU_AUDIT_TEST_PROMTOOL ?? 'promtool';

/** Both binaries run here; tests that need them fail with this hint otherwise. */
export function prometheusAvailable(): boolean {
  return [PROMETHEUS_BIN, PROMTOOL_BIN].every((bin) => spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0);
}
export const INSTALL_HINT = 'prometheus and promtool are not installed: run scripts/install-system-deps.sh (Debian package prometheus)';

/** Everything the XML source read from some files. */
export async function readSamples(files: readonly string[]): Promise<RecordingSink> {
  const sink = new RecordingSink();
  for (const input of await resolveInputs([...files])) {
    const opened = await openInput(input);
    try {
      const parser = requireParser(opened.head, input.ref);
      await parser.parse(opened.chunks, { ref: input.ref, host: hostForInput(input, undefined), timeZone: 'UTC' }, sink);
    } finally {
      opened.close();
    }
  }
  return sink;
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function deviceKey(ref: DeviceRef): string {
  return [ref.host, ref.uuid, ref.pciBusId, ref.index, ref.gpuInstanceId].join('|');
}

function labelsOf(ref: DeviceRef, model: string | undefined): string {
  const labels: [string, string | undefined][] = [
    ['UUID', ref.uuid],
    ['gpu', ref.index === undefined ? undefined : String(ref.index)],
    ['pci_bus_id', ref.pciBusId],
    ['modelName', model],
    ['Hostname', ref.host],
    ['GPU_I_ID', ref.gpuInstanceId === undefined ? undefined : String(ref.gpuInstanceId)],
  ];
  return labels.filter(([, value]) => value !== undefined).map(([name, value]) => `${name}="${escapeLabel(value!)}"`).join(',');
}

const METRICS: readonly { name: string; value(sample: GpuSample, totalMiB: number | undefined): number | undefined }[] = [
  { name: 'DCGM_FI_DEV_GPU_UTIL', value: (sample) => sample.utilizationPct },
  { name: 'DCGM_FI_DEV_FB_USED', value: (sample) => sample.memoryUsedMiB },
  {
    name: 'DCGM_FI_DEV_FB_FREE',
    value: (sample, totalMiB) => (sample.memoryUsedMiB === undefined || totalMiB === undefined ? undefined : totalMiB - sample.memoryUsedMiB),
  },
];

export interface OpenMetricsFile {
  series: number;
  samples: number;
  firstMs: number;
  lastMs: number;
}

/** The timed samples of exposition files as OpenMetrics lines, by metric name, then series, in time order. */
async function expositionFamilies(files: readonly string[]): Promise<Map<string, Map<string, [number, string][]>>> {
  const families = new Map<string, Map<string, [number, string][]>>();
  for (const file of files) {
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      const scanned = scanExpositionLine(line);
      if (scanned.kind !== 'sample' || scanned.sample.time === undefined) continue;
      const { name, labels, value, time } = scanned.sample;
      const labelText = [...labels].map(([label, text]) => `${label}="${escapeLabel(text)}"`).join(',');
      const series = families.get(name) ?? new Map<string, [number, string][]>();
      families.set(name, series);
      const samples = series.get(labelText) ?? [];
      series.set(labelText, samples);
      samples.push([time, `${name}{${labelText}} ${value} ${time / 1000}\n`]);
    }
  }
  return families;
}

/**
 * Writes the samples as OpenMetrics: one metric family after the other (the format forbids
 * interleaving), each series' samples in time order, `# EOF` last. `expositionFiles`: Prometheus
 * text files whose timed samples are added as they are (see the header).
 */
export async function writeOpenMetrics(file: string, sink: RecordingSink, expositionFiles: readonly string[] = []): Promise<OpenMetricsFile> {
  const models = new Map<string, string>();
  const totals = new Map<string, number>();
  const physicalKey = (ref: DeviceRef): string => deviceKey({ ...ref, gpuInstanceId: undefined });
  for (const info of sink.devices as DeviceInfo[]) {
    if (info.model !== undefined && !models.has(physicalKey(info.ref))) models.set(physicalKey(info.ref), info.model);
    if (info.memoryTotalMiB !== undefined) totals.set(deviceKey(info.ref), info.memoryTotalMiB);
  }
  const timed = sink.samples.filter((sample) => sample.time !== undefined).sort((a, b) => a.time! - b.time!);
  const out = createWriteStream(file);
  const result: OpenMetricsFile = { series: 0, samples: 0, firstMs: Infinity, lastMs: -Infinity };
  for (const metric of METRICS) {
    out.write(`# TYPE ${metric.name} gauge\n`);
    const bySeries = new Map<string, string[]>();
    for (const sample of timed) {
      const ref = { ...sample.ref, computeInstanceId: undefined };
      const value = metric.value(sample, sample.memoryTotalMiB ?? totals.get(deviceKey(ref)));
      if (value === undefined) continue;
      const labels = labelsOf(ref, models.get(physicalKey(ref)));
      const lines = bySeries.get(labels) ?? [];
      lines.push(`${metric.name}{${labels}} ${value} ${sample.time! / 1000}\n`);
      bySeries.set(labels, lines);
      result.samples += 1;
      result.firstMs = Math.min(result.firstMs, sample.time!);
      result.lastMs = Math.max(result.lastMs, sample.time!);
    }
    for (const lines of bySeries.values()) for (const line of lines) out.write(line);
    result.series += bySeries.size;
  }
  for (const [name, series] of await expositionFamilies(expositionFiles)) {
    // Declared as gauges: the type does not change what Prometheus stores or how it is queried,
    // and a gauge's samples carry the family's own name (node_cpu_seconds_total included).
    out.write(`# TYPE ${name} gauge\n`);
    for (const samples of series.values()) {
      samples.sort((a, b) => a[0] - b[0]);
      for (const [time, line] of samples) {
        out.write(line);
        result.samples += 1;
        result.firstMs = Math.min(result.firstMs, time);
        result.lastMs = Math.max(result.lastMs, time);
      }
    }
    result.series += series.size;
  }
  out.write('# EOF\n');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return result;
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningPrometheus {
  url: string;
  /** Stops the server and removes its storage. Safe to call twice. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

/**
 * A test server's process: its stderr's tail kept for messages, killed if the test process
 * exits, and `stop` (SIGTERM, SIGKILL after 10 s, then its folder removed; safe twice).
 */
export function serverProcess(bin: string, args: readonly string[], dir: string): { child: ChildProcess; log: () => string; stop: () => Promise<void> } {
  let log = '';
  const child = spawn(bin, [...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (part: Buffer) => {
    log = (log + part.toString()).slice(-4000);
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { child, log: () => log, stop };
}

export interface StartOptions {
  /**
   * Longest block promtool writes. promtool parses the whole input once per block, and blocks
   * are 2 h by default: a month of data wants long blocks (the benchmark passes 720h).
   */
  maxBlockDuration?: string;
  backfillTimeoutMs?: number;
  /** Where the storage goes (default: a fresh temporary folder, removed by stop()). */
  workDir?: string;
  /** More server flags, e.g. a small `--query.max-samples` for a limit test. */
  flags?: readonly string[];
}

/** Backfills `openMetricsFile` into a fresh storage and serves it. Always pair with stop(). */
export async function startPrometheus(openMetricsFile: string, options: StartOptions = {}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(path.join(options.workDir ?? tmpdir(), 'gpu-audit-prometheus-'));
  const storage = path.join(dir, 'data');
  const blockFlag = options.maxBlockDuration === undefined ? [] : [`--max-block-duration=${options.maxBlockDuration}`];
  const backfill = spawnSync(PROMTOOL_BIN, ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', ...blockFlag, openMetricsFile, storage], {
    encoding: 'utf8', timeout: options.backfillTimeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024,
  });
  if (backfill.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`promtool backfill failed (${backfill.error?.message ?? `exit ${backfill.status}`}): ${backfill.stderr || backfill.stdout}`);
  }
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(config, 'global:\n  scrape_interval: 1h\nscrape_configs: []\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child, log, stop } = serverProcess(PROMETHEUS_BIN, [
    `--config.file=${config}`,
    `--storage.tsdb.path=${storage}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=100y',
    '--log.level=warn',
    ...(options.flags ?? []),
  ], dir);

  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${log()}`);
      const ready = await fetch(`${url}/-/ready`).then((response) => response.ok, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`prometheus not ready within ${READY_TIMEOUT_MS / 1000} s: ${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

/**
 * Convenience for tests: nvidia-smi files (read through the XML source) and exposition files
 * (taken as they are), written, backfilled and served.
 */
export async function serveFiles(files: readonly string[], expositionFiles: readonly string[] = [], options: StartOptions = {}): Promise<RunningPrometheus & { data: OpenMetricsFile }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-openmetrics-'));
  const file = path.join(dir, 'fleet.om');
  try {
    const data = await writeOpenMetrics(file, files.length === 0 ? new RecordingSink() : await readSamples(files), expositionFiles);
    const server = await startPrometheus(file, options);
    return { ...server, data };
  } finally {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

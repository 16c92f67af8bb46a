/**
 * How much a live-Prometheus audit asks of the server, for a synthetic fleet: generates the
 * fleet as OpenMetrics (streamed to disk), backfills it into a real Prometheus with promtool,
 * runs the audit and prints the queries made, the bytes received and the time taken.
 * Not run by the tests (a month of 1,000 GPUs is about 10 GB of OpenMetrics).
 *
 *   npx tsx bench/prometheus-fleet.ts                          # 1,000 GPUs x 30 days x 30 s
 *   npx tsx bench/prometheus-fleet.ts --gpus 100 --days 7      # smaller
 *   npx tsx bench/prometheus-fleet.ts --dir /big/disk --keep   # where the files go; keep them
 *   npx tsx bench/prometheus-fleet.ts --gpus 100 --days 2 --pods 4   # with pod labels
 *
 * --pods N: dcgm-exporter's Kubernetes mode, N pods per GPU one after the other (the window in
 * N equal parts, each a new `pod` label, so a new series): what the per-pod attribution costs.
 *
 * The fleet: hosts of 8 H100s; two series per GPU (DCGM_FI_DEV_GPU_UTIL and
 * DCGM_FI_DEV_FB_USED, the two the audit cannot do without), one sample every --interval
 * seconds. A third of the GPUs train by day, a third serve sporadic traffic, a third idle:
 * values come from a seeded generator, so runs are comparable.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runAudit } from '../src/engine/run-audit.js';
import { prometheusAvailable, INSTALL_HINT, startPrometheus } from '../test/helpers/prometheus-server.js';

const { values: args } = parseArgs({
  options: {
    gpus: { type: 'string', default: '1000' },
    days: { type: 'string', default: '30' },
    interval: { type: 'string', default: '30' },
    dir: { type: 'string', default: tmpdir() },
    keep: { type: 'boolean', default: false },
    pods: { type: 'string', default: '0' },
  },
});
const PODS = Number(args.pods);
const GPUS = Number(args.gpus);
const DAYS = Number(args.days);
const INTERVAL_S = Number(args.interval);
const GPUS_PER_HOST = 8;
/** Monday 00:00 UTC, so the week profile starts at slot 0. */
const START_S = Date.parse('2026-09-07T00:00:00Z') / 1000;
const END_S = START_S + DAYS * 86_400;

/** xorshift32: cheap, seeded, good enough for synthetic load. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

interface Gpu {
  labels: string;
  kind: 'training' | 'inference' | 'idle';
}

function fleet(): Gpu[] {
  return Array.from({ length: GPUS }, (_, n) => {
    const host = `bench-node-${String(Math.floor(n / GPUS_PER_HOST)).padStart(4, '0')}`;
    const index = n % GPUS_PER_HOST;
    const uuid = `GPU-${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
    const kind = (['training', 'inference', 'idle'] as const)[n % 3]!;
    // dcgm-exporter's identity labels less pci_bus_id, which only costs disk here (UUIDs are distinct).
    return { labels: `UUID="${uuid}",gpu="${index}",modelName="NVIDIA H100 80GB HBM3",Hostname="${host}"`, kind };
  });
}

function utilization(gpu: Gpu, hourOfDay: number, random: () => number): number {
  if (gpu.kind === 'training') return hourOfDay >= 6 && hourOfDay < 22 ? 90 + Math.floor(random() * 11) : 0;
  if (gpu.kind === 'inference') return random() < 0.05 ? 40 + Math.floor(random() * 40) : Math.floor(random() * 4);
  return 0;
}

function memoryUsed(gpu: Gpu, utilizationPct: number): number {
  if (gpu.kind === 'inference') return 62_412;
  if (gpu.kind === 'training') return utilizationPct > 0 ? 72_000 + Math.floor(utilizationPct * 7) : 1;
  return 514;
}

async function writeFleet(file: string): Promise<{ lines: number; bytes: number }> {
  const out = createWriteStream(file, { highWaterMark: 4 * 1024 * 1024 });
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  const gpus = fleet();
  let lines = 0;
  for (const metric of ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED'] as const) {
    await write(`# TYPE ${metric} gauge\n`);
    for (const [n, gpu] of gpus.entries()) {
      // The same seed for both metrics: FB_USED follows the utilization it was drawn with.
      const random = generator(n + 1);
      const podOf = (time: number): number => Math.floor(((time - START_S) * PODS) / (END_S - START_S));
      const prefixAt = (time: number): string =>
        PODS === 0 ? `${metric}{${gpu.labels}} ` : `${metric}{${gpu.labels},pod="bench-${n}-${podOf(time)}",namespace="bench",container="main"} `;
      let buffer = '';
      for (let time = START_S; time < END_S; time += INTERVAL_S) {
        const prefix = prefixAt(time);
        const util = utilization(gpu, Math.floor((time % 86_400) / 3600), random);
        buffer += `${prefix}${metric === 'DCGM_FI_DEV_GPU_UTIL' ? util : memoryUsed(gpu, util)} ${time}\n`;
        lines += 1;
        if (buffer.length > 1 << 20) {
          await write(buffer);
          buffer = '';
        }
      }
      await write(buffer);
    }
  }
  await write('# EOF\n');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return { lines, bytes: statSync(file).size };
}

const seconds = (sinceMs: number): string => `${((Date.now() - sinceMs) / 1000).toFixed(1)} s`;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

if (!prometheusAvailable()) throw new Error(INSTALL_HINT);
const work = mkdtempSync(path.join(args.dir, 'gpu-audit-bench-'));
const file = path.join(work, 'fleet.om');
console.log(`fleet: ${GPUS} GPUs x ${DAYS} days x ${INTERVAL_S} s, 2 metrics${PODS === 0 ? '' : `, ${PODS} pods per GPU`} -> ${file}`);
let started = Date.now();
const written = await writeFleet(file);
console.log(`generated ${written.lines.toLocaleString('en')} samples, ${mib(written.bytes)} of OpenMetrics in ${seconds(started)}`);
started = Date.now();
const server = await startPrometheus(file, { maxBlockDuration: '720h', backfillTimeoutMs: 4 * 3600_000, workDir: work });
console.log(`backfilled and started Prometheus at ${server.url} in ${seconds(started)}`);
try {
  if (!args.keep) rmSync(file, { force: true });
  started = Date.now();
  const { report, transfer } = await runAudit({
    inputs: [],
    timeZone: 'UTC',
    idleThresholdPct: 5,
    keepGoing: false,
    pricing: 'on-demand',
    prometheus: { url: server.url, since: new Date(START_S * 1000).toISOString(), until: new Date(END_S * 1000).toISOString(), env: {} },
  });
  const elapsed = seconds(started);
  console.log(`audit: ${report.gpus.length} GPUs, ${report.summary.gpuHours.toFixed(0)} GPU-hours, waste ${report.summary.wastePct?.toFixed(1) ?? 'n/a'} %, in ${elapsed}`);
  console.log(`queries: ${transfer!.queries} (${transfer!.retries} retries); received ${mib(transfer!.wireBytes)} on the wire (gzip), ${mib(transfer!.jsonBytes)} of JSON`);
  console.log(`bytes: ${transfer!.wireBytes} on the wire, ${transfer!.jsonBytes} of JSON`);
  // This process generated the fleet too (streamed to disk, a few MiB): its peak is the audit's.
  console.log(`peak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
} finally {
  await server.stop();
  if (!args.keep) rmSync(work, { recursive: true, force: true });
}

/**
 * PCIe traffic from a live Prometheus: the real server (Debian's package, started here on
 * 127.0.0.1) evaluates the pushed-down PromQL over a small hand-made dcgm-exporter history, and
 * the report's pcieRxMiBps / pcieTxMiBps are checked against figures worked out by hand and
 * against the file audit of the same exposition text.
 *
 * Four GPUs on node-1, a reading every 300 s at 00:05 .. 01:00 UTC (12 readings, k = 1 .. 12),
 * window 00:00 - 01:00:
 *   GPU 0  PROF_PCIE_RX_BYTES 1 MiB/s (1,048,576 B/s), 13 MiB/s at k = 6;
 *          PROF_PCIE_TX_BYTES 0.5 MiB/s (524,288 B/s) throughout.
 *   GPU 1  DEV_PCIE_RX_THROUGHPUT 1024 KB/s (1 MiB/s) at odd k, 3072 KB/s (3 MiB/s) at even k; no transmit series.
 *   GPU 2  no PCIe series.
 *   GPU 3  both receive fields: PROF 2 MiB/s (2,097,152 B/s) and DEV 10240 KB/s (10 MiB/s);
 *          transmit only DEV 512 KB/s (0.5 MiB/s).
 * Every GPU also has DCGM_FI_DEV_GPU_UTIL 50, which makes it a GPU of the audit.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit } from '../../../../src/engine/run-audit.js';
import type { GpuEntry, Report } from '../../../../src/model/report.js';
import { prometheusAvailable, type RunningPrometheus, serveFiles } from '../../../helpers/prometheus-server.js';
import { AUDIT_DEFAULTS } from '../../../helpers/audit.js';

const START_MS = Date.parse('2026-11-02T00:00:00Z');
const READINGS = 12;
const MIB = 1_048_576;

type Series = [metric: string, gpu: number, value: (k: number) => number];

const SERIES: readonly Series[] = [
  ['DCGM_FI_DEV_GPU_UTIL', 0, () => 50],
  ['DCGM_FI_DEV_GPU_UTIL', 1, () => 50],
  ['DCGM_FI_DEV_GPU_UTIL', 2, () => 50],
  ['DCGM_FI_DEV_GPU_UTIL', 3, () => 50],
  ['DCGM_FI_PROF_PCIE_RX_BYTES', 0, (k) => (k === 6 ? 13 * MIB : MIB)],
  ['DCGM_FI_PROF_PCIE_TX_BYTES', 0, () => MIB / 2],
  ['DCGM_FI_DEV_PCIE_RX_THROUGHPUT', 1, (k) => (k % 2 === 1 ? 1024 : 3072)],
  ['DCGM_FI_PROF_PCIE_RX_BYTES', 3, () => 2 * MIB],
  ['DCGM_FI_DEV_PCIE_RX_THROUGHPUT', 3, () => 10_240],
  ['DCGM_FI_DEV_PCIE_TX_THROUGHPUT', 3, () => 512],
];

/**
 * dcgm-exporter's text format with millisecond timestamps, one scrape after the other as a
 * federated dump prints them (the file audit reads each series in time order; the backfill
 * regroups the samples by family).
 */
function exposition(): string {
  const lines: string[] = [];
  for (let k = 1; k <= READINGS; k += 1) {
    for (const metric of new Set(SERIES.map(([name]) => name))) {
      lines.push(`# TYPE ${metric} gauge`);
      for (const [name, gpu, value] of SERIES) {
        if (name !== metric) continue;
        const labels = `gpu="${gpu}",UUID="GPU-0000000${gpu}-aaaa-bbbb-cccc-dddddddddddd",pci_bus_id="00000000:0${gpu + 1}:00.0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"`;
        lines.push(`${name}{${labels}} ${value(k)} ${START_MS + k * 300_000}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

describe.skipIf(!prometheusAvailable())('PCIe traffic from a live Prometheus', () => {
  let dir: string;
  let server: RunningPrometheus | undefined;
  let fromPrometheus: Report;
  let fromFile: Report;
  /** The same window in two 30-minute chunks, whose PCIe counts and sums add up and maxima combine. */
  let inChunks: Report;
  const gpu = (report: Report, index: number): GpuEntry => report.gpus.find((entry) => entry.index === index)!;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-pcie-'));
    const file = path.join(dir, 'dcgm.prom');
    writeFileSync(file, exposition());
    server = await serveFiles([], [file]);
    const common = { ...AUDIT_DEFAULTS };
    const prometheus = { url: server.url, since: '2026-11-02T00:00:00Z', until: '2026-11-02T01:00:00Z', step: '5m', env: {} };
    const now = (): Date => new Date('2026-11-03T00:00:00Z');
    fromPrometheus = (await runAudit({ ...common, inputs: [], prometheus, now })).report;
    inChunks = (await runAudit({ ...common, inputs: [], prometheus: { ...prometheus, chunkSeconds: 1800 }, now })).report;
    fromFile = (await runAudit({ ...common, inputs: [file] })).report;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the profiling byte counters as MiB/s: mean, interpolated p95 and max', () => {
    // mean = (11 x 1 + 13) / 12 = 2 MiB/s; max 13.
    // p95: Prometheus interpolates at rank 0.95 x (12 - 1) = 10.45 of the sorted values
    // [1 x 11, 13]: 1 + 0.45 x (13 - 1) = 6.4 MiB/s.
    expect(gpu(fromPrometheus, 0).pcieRxMiBps).toEqual({ mean: 2, p95: expect.closeTo(6.4, 9) as number, max: 13 });
    expect(gpu(fromPrometheus, 0).pcieTxMiBps).toEqual({ mean: 0.5, p95: 0.5, max: 0.5 });
  });

  it('reads the older KB/s throughput where a GPU has no profiling counter, and null where it has neither', () => {
    // 6 readings of 1 and 6 of 3 MiB/s: mean 2; ranks 10 and 11 of the sorted values are both 3.
    expect(gpu(fromPrometheus, 1).pcieRxMiBps).toEqual({ mean: 2, p95: 3, max: 3 });
    expect(gpu(fromPrometheus, 1).pcieTxMiBps).toBeNull();
    expect(gpu(fromPrometheus, 2).pcieRxMiBps).toBeNull();
    expect(gpu(fromPrometheus, 2).pcieTxMiBps).toBeNull();
    // dcgm-exporter exports no link generation or width.
    expect(fromPrometheus.gpus.map((entry) => entry.pcieLink)).toEqual([null, null, null, null]);
  });

  it('prefers the profiling counter per GPU and per direction: a GPU with both reads the counter, another direction the older field', () => {
    // PROF 2 MiB/s wins over DEV 10240 KB/s = 10 MiB/s; transmit has only DEV: 512 KB/s = 0.5 MiB/s.
    expect(gpu(fromPrometheus, 3).pcieRxMiBps).toEqual({ mean: 2, p95: 2, max: 2 });
    expect(gpu(fromPrometheus, 3).pcieTxMiBps).toEqual({ mean: 0.5, p95: 0.5, max: 0.5 });
  });

  it('gives the same figures when the window is read in chunks', () => {
    // GPU 0 receive: chunk 1 (k = 1..6) count 6, sum 18, max 13; chunk 2 count 6, sum 6, max 1:
    // (18 + 6) / (6 + 6) = 2, max 13.
    expect(inChunks.gpus.map((entry) => [entry.pcieRxMiBps, entry.pcieTxMiBps])).toEqual(fromPrometheus.gpus.map((entry) => [entry.pcieRxMiBps, entry.pcieTxMiBps]));
    // Two chunk queries more (GPU_UTIL's and the device query), none for PCIe.
    expect(inChunks.sources[0]!.records).toBe(17);
  });

  it('agrees with the file audit of the same exposition on means and maxima', () => {
    // Readings 300 s apart weigh the same in both audits. GPU 3 is left out: a file scrape with
    // both receive fields takes the one printed last. The p95s differ by definition (the file
    // audit takes the smallest reading whose cumulative time reaches 95%: 13 for GPU 0).
    for (const index of [0, 1, 2]) {
      for (const field of ['pcieRxMiBps', 'pcieTxMiBps'] as const) {
        const file = gpu(fromFile, index)[field] ?? null;
        const prom = gpu(fromPrometheus, index)[field] ?? null;
        if (file === null) {
          expect(prom, `GPU ${index} ${field}`).toBeNull();
          continue;
        }
        expect(prom?.mean, `GPU ${index} ${field}`).toBeCloseTo(file.mean, 6);
        expect(prom?.max, `GPU ${index} ${field}`).toBeCloseTo(file.max, 6);
      }
    }
  });

  it('asks one request more than without PCIe: the chunk aggregates ride in the device query, the p95 of both directions in one', () => {
    // Discovery, range-rule probe, the query planner's series estimate and sample rate; for the
    // one chunk GPU_UTIL's aggregates and the device query; GPU_UTIL's p50 and p95, the hourly
    // and the timeline compute, node_exporter (no pods, so no cAdvisor query): 11 without PCIe.
    // The PCIe p95 of both directions is the 12th; the kube-state-metrics and inference-server
    // names (none here, so nothing more) the 13th and 14th; the build info (the engine's name) the 15th.
    expect(fromPrometheus.sources[0]!.records).toBe(15);
    expect(fromFile.sources[0]!.warnings).toEqual([]);
  });
});

/**
 * Every DCGM file of the shared corpus: dcgm-exporter scrapes, Prometheus API answers and
 * dcgmi output. Each data file is detected by exactly one DCGM parser, configuration files
 * by none, and the values read are checked against the files: by a plain regular-expression
 * reading of each scrape (an oracle that knows nothing of the parsers' code) and by
 * expectations typed by hand from the files.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dcgmExporter } from '../../src/sources/formats/dcgm-exporter.js';
import { dcgmiDiscovery } from '../../src/sources/formats/dcgmi-discovery.js';
import { dcgmiDmon } from '../../src/sources/formats/dcgmi-dmon.js';
import { prometheusJson } from '../../src/sources/formats/prometheus-json.js';
import { TARGET_POD_LABELS_WARNING } from '../../src/sources/dcgm/labels.js';
import type { SourceParser } from '../../src/sources/types.js';
import { corpusFiles, corpusPath } from '../helpers/corpus.js';
import { chunked } from '../helpers/sink.js';
import { AssignmentRecordingSink } from '../helpers/parse.js';

const PARSERS: SourceParser[] = [dcgmExporter, prometheusJson, dcgmiDmon, dcgmiDiscovery];
const HEAD_CHARS = 64 * 1024;

function detected(text: string): string[] {
  const head = text.slice(0, HEAD_CHARS);
  return PARSERS.filter((parser) => parser.detect(head)).map((parser) => parser.format);
}

async function parse(file: string, sizes = [4096]) {
  const text = readFileSync(file, 'utf8');
  const [parser] = PARSERS.filter((candidate) => candidate.detect(text.slice(0, HEAD_CHARS)));
  const sink = new AssignmentRecordingSink();
  const result = await parser!.parse(chunked(text, sizes), { ref: path.basename(file), host: 'corpus', timeZone: 'UTC' }, sink);
  return { result, sink };
}

const scrapes = corpusFiles('dcgm-exporter', (name) => name.endsWith('.prom'));
const answers = corpusFiles('prometheus-api', (name) => name.endsWith('.json'));
const dmonRuns = corpusFiles('dcgmi', (name) => name.includes('-dmon-') && !name.includes('-dmon-l-'));
const discovery = corpusPath('dcgmi', 'llmaction-dcgmi-discovery-l-8x-h800.txt');
const notData = [
  ...corpusFiles('dcgm-exporter', (name) => !name.endsWith('.prom')),
  corpusPath('dcgmi', 'llmaction-dcgmi-dmon-l-field-list-dcgm-3.1.8.txt'),
  corpusPath('dcgmi', 'llmaction-dcgmi-version-3.1.8.txt'),
];

describe('DCGM corpus: detection', () => {
  it('finds the files it expects', () => {
    expect(scrapes).toHaveLength(5);
    expect(answers).toHaveLength(3);
    expect(dmonRuns).toHaveLength(3);
    expect(notData).toHaveLength(6);
  });

  it.each([
    ...scrapes.map((file) => [file, 'dcgm-exporter']),
    ...answers.map((file) => [file, 'prometheus-json']),
    ...dmonRuns.map((file) => [file, 'dcgmi-dmon']),
    [discovery, 'dcgmi-discovery'],
  ])('%s is %s, and only that', (file, format) => {
    expect(detected(readFileSync(file, 'utf8'))).toEqual([format]);
  });

  it.each(notData)('%s is configuration or a listing, not data: no DCGM parser claims it', (file) => {
    expect(detected(readFileSync(file, 'utf8'))).toEqual([]);
  });
});

// ---- the oracle: one regular expression per scrape line (the corpus has no escaped quotes) ----

interface OracleSeries {
  labels: Record<string, string>;
  value: number;
}

function oracle(file: string): Map<string, OracleSeries> {
  const series = new Map<string, OracleSeries>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^(DCGM_FI_\w+)\{(.*)\} (\S+)$/.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((label) => [label[1]!, label[2]!]));
    series.set(match[1]!, { labels, value: Number(match[3]) });
  }
  return series;
}

describe('DCGM corpus: dcgm-exporter scrapes', () => {
  it.each(scrapes)('%s: one GPU, one scrape, values as the file prints them', async (file) => {
    const expected = oracle(file);
    const util = expected.get('DCGM_FI_DEV_GPU_UTIL')!;
    const used = expected.get('DCGM_FI_DEV_FB_USED')!;
    const { labels } = util;
    const { result, sink } = await parse(file);

    expect(result.records).toBe(1);
    expect(sink.samples).toHaveLength(1);
    const [sample] = sink.samples;
    expect(sample!.ref).toEqual({ host: labels.Hostname, uuid: labels.UUID, pciBusId: labels.pci_bus_id, index: Number(labels.gpu) });
    expect(sample!.utilizationPct).toBe(util.value);
    expect(sample!.memoryUtilizationPct).toBe(expected.get('DCGM_FI_DEV_MEM_COPY_UTIL')!.value);
    expect(sample!.memoryUsedMiB).toBe(used.value);
    expect(sample!.memoryTotalMiB).toBe(used.value + expected.get('DCGM_FI_DEV_FB_FREE')!.value + expected.get('DCGM_FI_DEV_FB_RESERVED')!.value);
    expect(sample!.powerW).toBe(expected.get('DCGM_FI_DEV_POWER_USAGE')?.value);
    expect(sample!.grEngineActivePct).toBe(percent(expected.get('DCGM_FI_PROF_GR_ENGINE_ACTIVE')?.value));
    expect(sample!.pcieTxKiBps).toBe(kibps(expected.get('DCGM_FI_PROF_PCIE_TX_BYTES')?.value));
    expect(sample!.time).toBeUndefined();
    expect(sink.devices).toEqual([{ ref: sample!.ref, model: labels.modelName, driverVersion: labels.DCGM_FI_DRIVER_VERSION, memoryTotalMiB: sample!.memoryTotalMiB }]);
    expect(sink.assignments).toEqual([]);
  });

  it.each(scrapes)('%s: the same observations in 7-character chunks', async (file) => {
    expect((await parse(file, [7])).sink).toEqual((await parse(file)).sink);
  });

  it('reads the loaded Ericsson T4 (hand-typed from the file)', async () => {
    const { sink } = await parse(corpusPath('dcgm-exporter', 'cncf-aiconf-ericsson-t4-loaded-metrics.prom'));
    expect(sink.samples).toEqual([{
      ref: { host: 'cp-bm14r7', uuid: 'GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a', pciBusId: '00000000:37:00.0', index: 0 },
      utilizationPct: 91,
      memoryUtilizationPct: 73,
      memoryUsedMiB: 5120,
      memoryTotalMiB: 15358, // used 5120 + free 9791 + reserved 447
      powerW: 68.244,
      grEngineActivePct: expect.closeTo(15.6205, 9), // 0.156205 x 100
      tensorActivePct: expect.closeTo(0.5822, 9), // 0.005822 x 100
      pcieTxKiBps: 4679.501953125, // 4791810 B/s / 1024
      pcieRxKiBps: 6773.369140625, // 6935930 B/s / 1024
    }]);
    expect(sink.devices[0]?.model).toBe('Tesla T4');
    expect(sink.warnings).toEqual([]);
  });

  it('reads the idle kops L4 (hand-typed from the file)', async () => {
    const { sink } = await parse(corpusPath('dcgm-exporter', 'cncf-aiconf-kops-l4-metrics.prom'));
    expect(sink.samples).toEqual([{
      ref: { host: 'i-030791dc5a37cd257', uuid: 'GPU-c2f76b33-7953-256e-8f33-1343419b1a1c', pciBusId: '00000000:31:00.0', index: 0 },
      utilizationPct: 0,
      memoryUtilizationPct: 0,
      memoryUsedMiB: 0,
      memoryTotalMiB: 23033, // used 0 + free 22563 + reserved 470
      powerW: 16.365,
      grEngineActivePct: 0,
      tensorActivePct: 0,
      pcieTxKiBps: 109.9638671875, // 112603 / 1024
      pcieRxKiBps: 17.1328125, // 17544 / 1024
    }]);
    expect(sink.devices[0]).toMatchObject({ model: 'NVIDIA L4', driverVersion: '580.105.08' });
  });

  it('reads the vGPU A100 guests, which report no power and no profiling fields (hand-typed)', async () => {
    const tenC = await parse(corpusPath('dcgm-exporter', 'cncf-aiconf-vks-grid-a100-10c-vgpu-metrics.prom'));
    expect(tenC.sink.samples).toEqual([{
      ref: { host: 'conformance-test-np1-qcqc8-bpdtl-wv2gs', uuid: 'GPU-44d2411e-1604-478f-aa96-5a3c00000000', pciBusId: '00000000:03:00.0', index: 0 },
      utilizationPct: 0,
      memoryUtilizationPct: 0,
      memoryUsedMiB: 0,
      memoryTotalMiB: 10239, // used 0 + free 9323 + reserved 916: the 10 GiB profile less a rounded MiB
    }]);
    expect(tenC.sink.devices[0]?.model).toBe('GRID A100-10C');
    expect(tenC.sink.warnings).toEqual([]);

    const fortyC = await parse(corpusPath('dcgm-exporter', 'cncf-aiconf-vks-grid-a100-40c-vgpu-metrics.prom'));
    expect(fortyC.sink.samples).toEqual([{
      ref: { host: 'test-ai-1-node-pool-40c-d5ds8-br9r6-9tb2c', uuid: 'GPU-0946f70c-659b-4c39-8b78-7e7600000000', pciBusId: '00000000:03:00.0', index: 0 },
      utilizationPct: 0,
      memoryUtilizationPct: 0,
      memoryUsedMiB: 0,
      memoryTotalMiB: 40959, // used 0 + free 37739 + reserved 3220
    }]);
    expect(fortyC.sink.devices[0]?.model).toBe('GRID A100-40C');
    // curl's trailer after the last metric line
    expect(fortyC.sink.warnings).toEqual([{ location: 'line 34', message: 'skipped "* Connection #0 to host 192.168.1.16 left intact": not a metric line' }]);
  });
});

describe('DCGM corpus: Prometheus API answers', () => {
  it.each(answers)('%s: one series of a field gpu-audit does not read: inventory, no sample', async (file) => {
    const { result, sink } = await parse(file);
    expect(result.records).toBe(1);
    expect(sink.samples).toEqual([]);
    expect(sink.devices).toHaveLength(1);
  });

  it('reads the VictoriaMetrics answer from the Ericsson cluster (hand-typed)', async () => {
    const { sink } = await parse(corpusPath('prometheus-api', 'cncf-aiconf-ericsson-victoriametrics-query-dcgm-pcie-replay.json'));
    expect(sink.devices).toEqual([{
      ref: { host: 'cp-bm14r7', uuid: 'GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a', pciBusId: '00000000:37:00.0', index: 0 },
      model: 'Tesla T4',
      driverVersion: '590.48.01',
    }]);
    expect(sink.warnings).toEqual([]); // isPartial: false
  });

  it('reads the Rafay answer with its upper-case hex bus id (hand-typed)', async () => {
    const { sink } = await parse(corpusPath('prometheus-api', 'cncf-aiconf-rafay-query-dcgm-pcie-replay.json'));
    expect(sink.devices).toEqual([{
      ref: { host: 'ip-10-200-3-41', uuid: 'GPU-f4b6eae2-9160-3e9b-d87b-ffb86f9c8eef', pciBusId: '00000000:00:1E.0', index: 0 },
      model: 'Tesla T4',
      driverVersion: '580.105.08',
    }]);
  });

  it('does not assign the upcloud L40S to the exporter pod named by ServiceMonitor target labels (hand-typed)', async () => {
    // pod="dcgm-exporter-zxgzh", container="exporter" come with service="dcgm-exporter", endpoint="metrics".
    const { sink } = await parse(corpusPath('prometheus-api', 'cncf-aiconf-upcloud-query-dcgm-gpu-temp-k8s-labels.json'));
    expect(sink.devices).toEqual([{
      ref: { host: 'gpu1-wl8sg', uuid: 'GPU-5b4e07f6-3a86-4340-039d-25f2a83cdc43', pciBusId: '00000000:00:07.0', index: 0 },
      model: 'NVIDIA L40S',
      driverVersion: '595.58.03',
    }]);
    expect(sink.assignments).toEqual([]);
    expect(sink.warnings).toEqual([{ location: 'data.result', message: TARGET_POD_LABELS_WARNING }]);
  });
});

describe('DCGM corpus: dcgmi', () => {
  it('reads the 4-GPU NVLink run: GPUs in printed order, no figure gpu-audit reads (hand-typed)', async () => {
    const { result, sink } = await parse(corpusPath('dcgmi', 'llmaction-dcgmi-dmon-nvlink-4gpu.txt'));
    expect(result.records).toBe(24); // 6 ticks x 4 GPUs
    expect(sink.devices.map((device) => device.ref)).toEqual([3, 2, 1, 0].map((index) => ({ host: 'corpus', index })));
    expect(sink.samples).toEqual([]);
    expect(sink.warnings).toHaveLength(1);
    expect(sink.warnings[0]?.message).toMatch(/^no column here is a figure gpu-audit reads \(columns NVLTX, NVLRX;/);
  });

  it('reads the PCIe columns of the single-GPU run after its N/A warm-up rows (hand-typed)', async () => {
    const { result, sink } = await parse(corpusPath('dcgmi', 'llmaction-dcgmi-dmon-nvlink-pcie-gpu0-c5.txt'));
    expect(result.records).toBe(5);
    const gpu0 = { host: 'corpus', index: 0 };
    expect(sink.samples).toEqual([
      { ref: gpu0, pcieTxKiBps: 498948 / 1024, pcieRxKiBps: 1555 / 1024 },
      { ref: gpu0, pcieTxKiBps: 449138 / 1024, pcieRxKiBps: 2074 / 1024 },
      { ref: gpu0, pcieTxKiBps: 548740 / 1024, pcieRxKiBps: 1555 / 1024 },
    ]);
    expect(sink.warnings).toEqual([]);
  });

  it('reads the two-GPU group run, GPU 7 before GPU 0 as printed (hand-typed)', async () => {
    const { result, sink } = await parse(corpusPath('dcgmi', 'llmaction-dcgmi-dmon-nvlink-pcie-group18.txt'));
    expect(result.records).toBe(7);
    expect(sink.samples.map((sample) => [sample.ref.index, sample.pcieTxKiBps! * 1024, sample.pcieRxKiBps! * 1024])).toEqual([
      [7, 499346, 3629],
      [0, 498931, 2074],
      [7, 499343, 3111],
    ]);
  });

  it('reads the 8x H800 discovery list as inventory (hand-typed)', async () => {
    const { result, sink } = await parse(discovery);
    expect(result.records).toBe(8);
    expect(sink.samples).toEqual([]);
    expect(sink.devices.every((device) => device.model === 'NVIDIA H800')).toBe(true);
    expect(sink.devices[0]?.ref).toEqual({ host: 'corpus', index: 0, uuid: 'GPU-34bf77d1-c686-6821-79a8-32d326c5039c', pciBusId: '00000000:18:00.0' });
    expect(sink.devices[7]?.ref).toEqual({ host: 'corpus', index: 7, uuid: 'GPU-474d838c-171f-d249-4f45-bbc01a8eb74a', pciBusId: '00000000:E2:00.0' });
    expect(sink.warnings).toEqual([]);
  });
});

function percent(ratio: number | undefined): number | undefined {
  return ratio === undefined ? undefined : ratio * 100;
}

function kibps(bytesPerSecond: number | undefined): number | undefined {
  return bytesPerSecond === undefined ? undefined : bytesPerSecond / 1024;
}

/**
 * The benchmark inputs are deterministic, shaped like the corpus outputs they model, made
 * once per recipe and never left half-written.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDcgmFederation } from '../../bench/generate/dcgm-exposition.js';
import { benchInputs, ensureInput } from '../../bench/generate/inputs.js';
import { asctime, writeNvidiaSmiXmlLog } from '../../bench/generate/nvidia-smi-xml-log.js';
import { QUERY_GPU_COLUMNS } from '../../bench/generate/query-gpu-csv-log.js';
import { generateOnce, markerPath } from '../../bench/generate/writer.js';
import { readKubernetesFiles } from '../../src/sources/kubernetes.js';

const SCALE = 0.001;
let first: string;
let second: string;

beforeAll(() => {
  first = mkdtempSync(path.join(tmpdir(), 'gpu-audit-gen-a-'));
  second = mkdtempSync(path.join(tmpdir(), 'gpu-audit-gen-b-'));
});
afterAll(() => {
  rmSync(first, { recursive: true, force: true });
  rmSync(second, { recursive: true, force: true });
});

/** Generates into a fresh folder and returns its text. */
function generateText(produce: Parameters<typeof generateOnce>[2]): string {
  const file = path.join(first, `text-${Math.random().toString(36).slice(2)}.out`);
  generateOnce(file, { test: 1 }, produce);
  return readFileSync(file, 'utf8');
}

describe('bench inputs', () => {
  it('are the same bytes in two folders, and a second call reuses the file', () => {
    for (const input of benchInputs(SCALE)) {
      const a = ensureInput(input, first);
      const b = ensureInput(input, second);
      expect(a.reused).toBe(false);
      expect(b.marker.sha256).toBe(a.marker.sha256);
      expect(statSync(a.file).size).toBe(a.marker.bytes);
      expect(ensureInput(input, first).reused).toBe(true);
    }
  });

  it('reach the scaled size (whole records: documents, scrapes, rows)', () => {
    const sizes = Object.fromEntries(benchInputs(SCALE).map((input) => [input.id, ensureInput(input, first).marker.bytes]));
    // 500 MB x 0.001 = 500 kB of XML, 1 GB x 0.001 = 1 MB of scrapes and of CSV: at least that, at most one record more.
    expect(sizes['xml-log']).toBeGreaterThanOrEqual(500_000);
    expect(sizes['xml-log']).toBeLessThan(500_000 + 200_000);
    expect(sizes['dcgm-scrapes']).toBeGreaterThanOrEqual(1_000_000);
    expect(sizes['csv-log']).toBeGreaterThanOrEqual(1_000_000);
    expect(sizes['csv-log']).toBeLessThan(1_000_000 + 2_000);
  });

  it('are regenerated when the recipe changes or the file was cut short', () => {
    const file = path.join(first, 'recipe.txt');
    expect(generateOnce(file, { lines: 1 }, (out) => out.write('a\n')).reused).toBe(false);
    expect(generateOnce(file, { lines: 1 }, (out) => out.write('a\n')).reused).toBe(true);
    expect(generateOnce(file, { lines: 2 }, (out) => out.write('a\nb\n')).reused).toBe(false);
    writeFileSync(file, 'a\n');
    expect(generateOnce(file, { lines: 2 }, (out) => out.write('a\nb\n')).reused).toBe(false);
    expect(JSON.parse(readFileSync(markerPath(file), 'utf8'))).toMatchObject({ recipe: { lines: 2 }, bytes: 4 });
  });
});

describe('the nvidia-smi -q -x log', () => {
  it('prints timestamps as nvidia-smi does (asctime, day padded with a space)', () => {
    expect(asctime(Date.UTC(2026, 10, 2, 3, 15, 22))).toBe('Mon Nov  2 03:15:22 2026');
    expect(asctime(Date.UTC(2026, 10, 12, 23, 0, 5))).toBe('Thu Nov 12 23:00:05 2026');
  });

  it('replays the demo training node, each replay 26 hours later', () => {
    // 312 documents per replay (26 h at -l 300); 313 documents need a second replay.
    const text = generateText((out) => writeNvidiaSmiXmlLog(out, 312 * 137_000 + 1));
    const documents = text.split(/(?=<\?xml )/);
    const stamps = documents.map((document) => /<timestamp>(.*)<\/timestamp>/.exec(document)?.[1]);
    expect(documents.length).toBeGreaterThan(312);
    expect(stamps[0]).toBe('Mon Nov  2 00:00:00 2026');
    // Replay 2 starts 26 h after replay 1: Tuesday 02:00 (the demo log starts at 00:00 sharp).
    expect(stamps[312]).toBe('Tue Nov  3 02:00:00 2026');
    expect(documents[312]!.replace(/<timestamp>.*<\/timestamp>/, '')).toBe(documents[0]!.replace(/<timestamp>.*<\/timestamp>/, ''));
    expect((documents[0]!.match(/<gpu id=/g) ?? []).length).toBe(8);
  });
});

describe('the dcgm-exporter federation', () => {
  let text: string;
  let samples: string[];
  beforeAll(() => {
    text = generateText((out) => writeDcgmFederation(out, { gpuCount: 16, targetBytes: 1 }));
    samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  });

  it('has 20 metric families with HELP and TYPE, and one series per GPU in each', () => {
    expect(text.match(/^# HELP /gm)).toHaveLength(20);
    expect(text.match(/^# TYPE DCGM_FI_\w+ (gauge|counter)$/gm)).toHaveLength(20);
    expect(samples).toHaveLength(20 * 16);
  });

  it('labels each series as the exporter and federation do, sorted by name, with a timestamp', () => {
    const series = /^(\w+)\{(.*)\} (\S+) (\d+)$/.exec(samples[0]!);
    expect(series).not.toBeNull();
    const names = series![2]!.split(/",/).map((pair) => pair.split('=')[0]);
    expect(names).toEqual([...names].sort((a, b) => (a! < b! ? -1 : 1)));
    for (const label of ['UUID', 'gpu', 'pci_bus_id', 'device', 'modelName', 'Hostname', 'DCGM_FI_DRIVER_VERSION', 'instance', 'job']) {
      expect(names).toContain(label);
    }
    // 2026-11-02T00:00:00Z in milliseconds.
    expect(series![4]).toBe('1793577600000');
  });

  it('writes further scrapes 30 s apart until the size is reached', () => {
    const scrapes = generateText((out) => writeDcgmFederation(out, { gpuCount: 8, targetBytes: 100_000 }));
    const times = new Set(scrapes.split('\n').filter((line) => line.startsWith('DCGM_')).map((line) => line.slice(line.lastIndexOf(' ') + 1)));
    expect([...times].slice(0, 2)).toEqual(['1793577600000', '1793577630000']);
    expect(Buffer.byteLength(scrapes)).toBeGreaterThanOrEqual(100_000);
  });
});

describe('the --query-gpu CSV log', () => {
  it('has the units header once and 8 rows per second, values with units', () => {
    const file = ensureInput(benchInputs(SCALE).find((input) => input.id === 'csv-log')!, first).file;
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe(QUERY_GPU_COLUMNS.join(', '));
    expect(lines.filter((line) => line.startsWith('timestamp'))).toHaveLength(1);
    expect(lines[1]).toMatch(/^2026\/11\/02 00:00:00\.000, NVIDIA H100 80GB HBM3, 00000000:18:00\.0, GPU-[0-9a-f-]{36}, 0, 550\.127\.05, P0, \d+, \d+ %, \d+ %, 81559 MiB, \d+ MiB, \d+ MiB, [\d.]+ W, \d+ MHz, 2619 MHz$/);
    // Row 9 is GPU 0's second sample, 1 s plus the 20-40 ms the query took later.
    expect(lines[9]).toMatch(/^2026\/11\/02 00:00:01\.0[2-4]\d, .*, 0, /);
  });
});

describe('the Prometheus query_range answer', () => {
  interface Series {
    metric: Record<string, string>;
    values: [number, string][];
  }

  it('holds a series per GPU and metric, labels sorted by name, series sorted by labels: a GPU\'s 20 together', () => {
    const file = ensureInput(benchInputs(SCALE).find((input) => input.id === 'prometheus-range')!, first).file;
    const answer = JSON.parse(readFileSync(file, 'utf8')) as { status: string; data: { resultType: string; result: Series[] } };
    expect([answer.status, answer.data.resultType]).toEqual(['success', 'matrix']);
    const { result } = answer.data;
    // 8 GPUs at this scale, 20 metrics each.
    expect(result).toHaveLength(8 * 20);
    const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
    for (const { metric } of result) expect(Object.keys(metric)).toEqual(Object.keys(metric).sort(byName));
    const keys = result.map(({ metric }) => Object.entries(metric).map(([name, value]) => `${name}\u0000${value}`).join('\u0001'));
    expect(keys).toEqual([...keys].sort(byName));
    const uuids = result.map(({ metric }) => metric.UUID);
    expect(new Set(uuids).size).toBe(8);
    for (let gpu = 0; gpu < 8; gpu += 1) expect(new Set(uuids.slice(gpu * 20, gpu * 20 + 20)).size).toBe(1);
    // A day at a 30 s step from 2026-11-02T00:00:00Z, in Unix seconds; values as strings.
    for (const { values } of result) {
      expect(values).toHaveLength(2880);
      expect(values[0]![0]).toBe(1_793_577_600);
      expect(values[2879]![0]).toBe(1_793_577_600 + 2879 * 30);
      expect(values.every(([, value]) => typeof value === 'string' && Number.isFinite(Number(value)))).toBe(true);
    }
  });
});

describe('the Kubernetes list', () => {
  it('holds the 8-GPU nodes of the fleet, a CPU node per five of them, and their pods, as kubectl indents them', async () => {
    const input = benchInputs(SCALE).find((candidate) => candidate.id === 'k8s-list')!;
    const { file } = ensureInput(input, first);
    expect(readFileSync(file, 'utf8').startsWith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n')).toBe(true);
    const [read] = await readKubernetesFiles([file]);
    // 10 GPUs at this scale: one GPU node (7 DaemonSet pods and a whole-node trainer) and one CPU
    // node (4 DaemonSet pods, 30 services): 2 nodes and 42 pods, nothing skipped.
    expect([read!.nodes.length, read!.pods.length, read!.records, read!.warnings]).toEqual([2, 42, 44, []]);
    expect(read!.nodes.map((node) => node.gpuCapacity['nvidia.com/gpu'] ?? null)).toEqual([8, null]);
  });
});

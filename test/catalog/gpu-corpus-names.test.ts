/**
 * Every GPU name the real tools printed in ../shared/corpus resolves to a row of the GPU table,
 * or to an explicit `unknown` with its reason. The names are read out of the files here, so a new
 * corpus file with a new spelling fails this test until someone decides what it is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migTableFor, resolveGpu, validateMigLayout } from '../../src/catalog/index.js';
import { corpusFiles } from '../helpers/corpus.js';

interface Sighting {
  file: string;
  name: string;
  /** `pci_device_id` / `pci.device_id` printed beside the name, when the tool printed one. */
  pciDeviceId: string | null;
}

const read = (file: string): string => readFileSync(file, 'utf8');
const base = (file: string): string => path.basename(file);

/** nvidia-smi -q -x: `<product_name>` and `<pci_device_id>` of each `<gpu>` element. */
function fromXml(file: string): Sighting[] {
  return read(file)
    .split(/<gpu id="/)
    .slice(1)
    .map((gpu) => ({
      file: base(file),
      name: /<product_name>([^<]*)<\/product_name>/.exec(gpu)?.[1] ?? '',
      pciDeviceId: /<pci_device_id>([^<]*)<\/pci_device_id>/.exec(gpu)?.[1] ?? null,
    }));
}

/** CSV with a `name` column: header `a, b, name, ...` (units in brackets), data rows below it. */
function fromCsvBlock(file: string, lines: string[]): Sighting[] {
  const header = lines[0]!.split(', ').map((cell) => cell.replace(/\s*\[.*\]$/, '').trim());
  const nameAt = header.indexOf('name');
  const pciAt = header.indexOf('pci.device_id');
  if (nameAt < 0) return [];
  return lines.slice(1).map((line) => {
    const cells = line.split(', ').map((cell) => cell.trim());
    return { file: base(file), name: cells[nameAt]!, pciDeviceId: pciAt < 0 ? null : (cells[pciAt] ?? null) };
  });
}

/**
 * nvidia_gpu_exporter captures: sections start with a `# $ <command>` line framed by `#` rules.
 * Names come from the `--query-gpu ... --format=csv` sections, `Product Name :` lines of `-q`,
 * and `GPU n: <name> (UUID: ...)` lines of `-L`.
 */
function fromCapture(file: string): Sighting[] {
  const sightings: Sighting[] = [];
  const lines = read(file).split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const command = /^# \$ (.*)$/.exec(lines[i]!)?.[1];
    if (command === undefined || !command.includes('--query-gpu=') || !command.includes('--format=csv')) continue;
    let start = i + 1;
    while (lines[start]?.startsWith('#')) start += 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '' && !lines[end]!.startsWith('#')) end += 1;
    sightings.push(...fromCsvBlock(file, lines.slice(start, end)));
  }
  for (const line of lines) {
    const product = /^\s*Product Name\s*:\s*(.+?)\s*$/.exec(line)?.[1];
    if (product !== undefined) sightings.push({ file: base(file), name: product, pciDeviceId: null });
    const listed = /^GPU \d+: (.+?) \(UUID: /.exec(line)?.[1];
    if (listed !== undefined) sightings.push({ file: base(file), name: listed, pciDeviceId: null });
  }
  return sightings;
}

function fromCsvFile(file: string): Sighting[] {
  const lines = read(file).split('\n').filter((line) => line.trim() !== '');
  return lines.length < 2 ? [] : fromCsvBlock(file, lines);
}

/** dcgm-exporter scrapes and Prometheus answers: the `modelName` label. */
function fromModelNameLabels(file: string): Sighting[] {
  return [...read(file).matchAll(/"?modelName"?\s*[:=]\s*"([^"]*)"/g)].map((m) => ({ file: base(file), name: m[1]!, pciDeviceId: null }));
}

/** dcgmi discovery -l: `| n | Name: <name> |`. */
function fromDcgmi(file: string): Sighting[] {
  return [...read(file).matchAll(/\|\s*Name:\s*(.+?)\s*\|/g)].map((m) => ({ file: base(file), name: m[1]!, pciDeviceId: null }));
}

/** One sighting per file, name and PCI id (a scrape repeats its labels on every series). */
function distinct(all: Sighting[]): Sighting[] {
  return [...new Map(all.map((s) => [`${s.file}|${s.name}|${s.pciDeviceId}`, s])).values()];
}

const sightings: Sighting[] = distinct([
  ...corpusFiles('nvidia-smi-xml', (n) => n.endsWith('.xml')).flatMap(fromXml),
  ...corpusFiles('nvidia-smi-csv', (n) => n.endsWith('.csv')).flatMap(fromCsvFile),
  ...corpusFiles('nvidia-smi-csv', (n) => n.startsWith('nvgpuexp-capture-')).flatMap(fromCapture),
  ...corpusFiles('dcgm-exporter', (n) => n.endsWith('.prom')).flatMap(fromModelNameLabels),
  ...corpusFiles('prometheus-api', (n) => n.endsWith('.json')).flatMap(fromModelNameLabels),
  ...corpusFiles('dcgmi', (n) => n.includes('discovery')).flatMap(fromDcgmi),
]);

/**
 * What each spelling in the corpus is. `unknown` rows say why: the GPU table (from
 * reference/gpus.json) has no consumer, workstation or older boards, and a vGPU guest's
 * name names a slice, not a board.
 */
const EXPECTED: Record<string, { key: string } | { unknown: 'not-in-gpu-table' | 'vgpu-guest' }> = {
  'NVIDIA A100-SXM4-40GB': { key: 'a100-sxm4-40gb' },
  'NVIDIA A100-SXM4-80GB': { key: 'a100-sxm4-80gb' },
  'NVIDIA A10G': { key: 'a10g' },
  'NVIDIA H100 80GB HBM3': { key: 'h100-sxm-80gb' },
  'NVIDIA H200': { key: 'h200-sxm-141gb' },
  'NVIDIA L4': { key: 'l4' },
  'NVIDIA L40S': { key: 'l40s' },
  'Tesla T4': { key: 't4' },
  'GRID P4-1Q': { unknown: 'vgpu-guest' },
  'GRID A100-10C': { unknown: 'vgpu-guest' },
  'GRID A100-40C': { unknown: 'vgpu-guest' },
  // H800 appears in mig-profiles.json's PCI list, but gpus.json has no row for it.
  'NVIDIA H800': { unknown: 'not-in-gpu-table' },
  'Tesla P100-PCIE-16GB': { unknown: 'not-in-gpu-table' },
  'Quadro P2000': { unknown: 'not-in-gpu-table' },
  'Quadro P400': { unknown: 'not-in-gpu-table' },
  'GeForce GTX 1070 Ti': { unknown: 'not-in-gpu-table' },
  // An engineering board (telegraf-gtx-1660-ti.xml); its PCI id 0x2184 is not in the table either.
  'Graphics Device': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce GT 1030': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 2070': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 2080': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 2080 SUPER': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 3060': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 3060 Laptop GPU': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 3080': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 3090': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 4080 SUPER': { unknown: 'not-in-gpu-table' },
  'NVIDIA GeForce RTX 4090': { unknown: 'not-in-gpu-table' },
  'NVIDIA RTX 4000 SFF Ada Generation': { unknown: 'not-in-gpu-table' },
  'NVIDIA RTX A5000': { unknown: 'not-in-gpu-table' },
  'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition': { unknown: 'not-in-gpu-table' },
  // nvgpuexp-exporter-testdata-query.csv: the exporter's own test row.
  'Some Other GPU': { unknown: 'not-in-gpu-table' },
};

describe('GPU names in ../shared/corpus', () => {
  it('finds names in every tool format (a guard against the extraction silently finding nothing)', () => {
    const files = new Set(sightings.map((s) => s.file));
    expect([...files].some((f) => f.endsWith('.xml'))).toBe(true);
    expect([...files].some((f) => f.startsWith('nvgpuexp-capture-'))).toBe(true);
    expect([...files].some((f) => f.endsWith('.prom'))).toBe(true);
    expect([...files].some((f) => f.startsWith('llmaction-dcgmi'))).toBe(true);
    // 24 XML files, some with two GPUs; every XML GPU element has a product_name.
    expect(sightings.filter((s) => s.file.endsWith('.xml')).every((s) => s.name !== '')).toBe(true);
  });

  it('has exactly the spellings this test knows about', () => {
    expect([...new Set(sightings.map((s) => s.name))].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(sightings.map((s) => [s.name, s.file, s.pciDeviceId] as const))('%s (%s, PCI id %s) resolves as expected', (name, _file, pciDeviceId) => {
    const expected = EXPECTED[name]!;
    const resolution = resolveGpu(name, pciDeviceId);
    if ('key' in expected) {
      expect(resolution.status).toBe('resolved');
      expect(resolution.status === 'resolved' && resolution.spec.key).toBe(expected.key);
    } else {
      expect(resolution).toMatchObject({ status: 'unknown', reason: expected.unknown });
    }
  });

  it('agrees with the PCI device id wherever the tool printed both and the id is in the table', () => {
    const both = sightings.filter((s) => s.pciDeviceId !== null && resolveGpu(null, s.pciDeviceId).status === 'resolved');
    // XML: A100-SXM4-40GB 20B010DE, A100-SXM4-80GB 20B210DE, T4 1EB810DE; CSV: H100 0x233010DE, H200 0x233510DE, L40S 0x26B910DE.
    expect(new Set(both.map((s) => s.name)).size).toBe(6);
    for (const sighting of both) {
      const byName = resolveGpu(sighting.name);
      const byPci = resolveGpu(null, sighting.pciDeviceId);
      expect(byName.status === 'resolved' && byName.spec.key).toBe(byPci.status === 'resolved' && byPci.spec.key);
    }
  });
});

/**
 * The MIG captures list MIG devices under their GPU (`nvidia-smi -L`: `MIG <profile> Device <n>`)
 * and, in the default table, each device's GPU-instance id. Devices sharing a GI id are compute
 * instances of one GPU instance (`1c.3g.71gb` + `2c.3g.71gb` = one 3g.71gb).
 */
function migCapture(file: string): { parent: string; gpuInstances: Map<number, string> } {
  const text = read(file);
  const parent = /^GPU 0: (.+?) \(UUID: /m.exec(text)![1]!;
  const profileByDevice = new Map<number, string>();
  for (const m of text.matchAll(/^\s+MIG (\S+)\s+Device\s+(\d+):/gm)) profileByDevice.set(Number(m[2]), m[1]!);
  const gpuInstances = new Map<number, string>();
  // Rows of the "MIG devices" table: `|  0    2   1   1  |` = GPU, GI ID, CI ID, MIG Dev.
  for (const m of text.matchAll(/^\|\s+0\s+(\d+)\s+(\d+)\s+(\d+)\s+\|/gm)) {
    const profile = profileByDevice.get(Number(m[3]))!;
    gpuInstances.set(Number(m[1]), profile.replace(/^\d+c\./, ''));
  }
  return { parent, gpuInstances };
}

describe('MIG devices in the corpus captures', () => {
  const captures = corpusFiles('nvidia-smi-csv', (n) => n.startsWith('nvgpuexp-capture-') && n.includes('-mig-'));

  it.each(captures.map((f) => [base(f), f]))('%s: MIG device names resolve to the parent GPU and its profiles', (_name, file) => {
    const { parent, gpuInstances } = migCapture(file);
    expect(gpuInstances.size).toBeGreaterThan(0);
    for (const profile of gpuInstances.values()) {
      // CUDA and torch name a MIG device `<parent> MIG <profile>`.
      const resolution = resolveGpu(`${parent} MIG ${profile}`);
      expect(resolution).toMatchObject({ status: 'resolved', matchedBy: 'product-name', migProfile: profile });
      const key = resolution.status === 'resolved' ? resolution.spec.key : '';
      expect(migTableFor(key)?.profiles.map((p) => p.name)).toContain(profile);
    }
  });

  it('reads the layouts the captures show', () => {
    const layouts = captures.map((file) => [migCapture(file).parent, [...migCapture(file).gpuInstances.values()].sort()]);
    expect(layouts).toEqual([
      ['NVIDIA H100 80GB HBM3', ['1g.10gb', '1g.10gb', '2g.20gb', '3g.40gb']],
      // Devices 0 and 1 (1c.3g.71gb, 2c.3g.71gb) share GI 2: one 3g.71gb instance.
      ['NVIDIA H200', ['1g.18gb', '1g.18gb', '2g.35gb', '3g.71gb']],
    ]);
  });

  it.each(captures.map((f) => [base(f), f]))('%s: the layout the GPU was running is a valid layout', (_name, file) => {
    const { parent, gpuInstances } = migCapture(file);
    const resolution = resolveGpu(parent);
    const key = resolution.status === 'resolved' ? resolution.spec.key : 'unknown';
    // H100: 3g.40gb + 2g.20gb + 2 x 1g.10gb = 3+2+1+1 = 7 compute slices; H200: 3g.71gb + 2g.35gb + 2 x 1g.18gb = 7.
    expect(validateMigLayout(key, [...gpuInstances.values()])).toMatchObject({ ok: true });
  });
});

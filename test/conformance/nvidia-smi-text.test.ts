/**
 * Every nvidia-smi CSV, dmon, pmon and capture file of the shared corpus: detected as
 * exactly one format, parsed, and the values read checked against the file itself. Each
 * file is read twice: by the parser, and by the plain `split` readers below (an oracle
 * that knows each file's layout and nothing of the parsers' code). A few files also have
 * expectations typed by hand from the file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nvidiaSmiCapture } from '../../src/sources/formats/nvidia-smi-capture.js';
import { nvidiaSmiComputeApps } from '../../src/sources/formats/nvidia-smi-compute-apps.js';
import { nvidiaSmiCsv } from '../../src/sources/formats/nvidia-smi-csv.js';
import { nvidiaSmiDmon } from '../../src/sources/formats/nvidia-smi-dmon.js';
import { nvidiaSmiPmon } from '../../src/sources/formats/nvidia-smi-pmon.js';
import type { SourceParser } from '../../src/sources/types.js';
import type { GpuSample, ProcessSample } from '../../src/model/observations.js';
import { corpusFiles, corpusPath } from '../helpers/corpus.js';
import { RecordingSink, chunked } from '../helpers/sink.js';

const PARSERS: SourceParser[] = [nvidiaSmiCsv, nvidiaSmiComputeApps, nvidiaSmiDmon, nvidiaSmiPmon, nvidiaSmiCapture];
const HEAD_CHARS = 64 * 1024;

function read(file: string): string {
  return readFileSync(file, 'utf8');
}

function detected(text: string): string[] {
  const head = text.slice(0, HEAD_CHARS);
  return PARSERS.filter((parser) => parser.detect(head)).map((parser) => parser.format);
}

/** The format a corpus file is, going by its name (the parsers never see names). */
function formatByName(name: string): string | undefined {
  if (name.includes('help-query-gpu')) return undefined;
  if (name.includes('-capture-')) return 'nvidia-smi-capture';
  if (name.includes('compute-apps')) return 'nvidia-smi-compute-apps';
  if (name.includes('-dmon-')) return 'nvidia-smi-dmon';
  if (name.includes('-pmon-')) return 'nvidia-smi-pmon';
  if (name.endsWith('.csv')) return 'nvidia-smi-csv';
  throw new Error(`unclassified corpus file ${name}`);
}

async function parse(file: string, sizes = [4096]) {
  const text = read(file);
  const [parser] = PARSERS.filter((candidate) => candidate.detect(text.slice(0, HEAD_CHARS)));
  const sink = new RecordingSink();
  const result = await parser!.parse(chunked(text, sizes), { ref: path.basename(file), host: 'corpus', timeZone: 'UTC' }, sink);
  return { ...result, ...sink };
}

// ---- the oracle: plain splitting, per the layouts described in the corpus README ----

type Row = Record<string, string>;

function csvRows(lines: string[]): Row[] {
  const [header, ...rows] = lines.filter((line) => line.trim() !== '');
  const names = header!.split(', ');
  return rows.map((line) => Object.fromEntries(line.split(', ').map((cell, column) => [names[column]!, cell.trim()])));
}

/** `38 %`, `575 MiB`, `433.78 W`, `575` -> number; `[N/A]` or absent -> undefined. */
function numberIn(cell: string | undefined): number | undefined {
  if (cell === undefined || cell.startsWith('[')) return undefined;
  return Number(cell.split(' ')[0]);
}

function textIn(cell: string | undefined): string | undefined {
  return cell === undefined || cell.startsWith('[') ? undefined : cell;
}

function monitorRows(lines: string[]): Row[] {
  const names = lines[0]!.replace(/^#/, '').trim().split(/\s+/);
  return lines.filter((line) => line.trim() !== '' && !line.startsWith('#')).map((line) => {
    const fields = line.trim().split(/\s+/);
    const command = fields.slice(names.length - 1).join(' ');
    return Object.fromEntries(names.map((name, column) => [name, column === names.length - 1 ? command : fields[column]!]));
  });
}

function dashNumber(field: string | undefined): number | undefined {
  return field === undefined || field === '-' ? undefined : Number(field);
}

/** The CSV sections of a capture whose command is a --query-gpu / --query-compute-apps run. */
function captureCsvSections(text: string): { query: 'gpu' | 'compute-apps'; lines: string[] }[] {
  const rule = '#'.repeat(80);
  const blocks = text.split(/\r?\n/).join('\n').split(`${rule}\n`);
  const sections: { query: 'gpu' | 'compute-apps'; lines: string[] }[] = [];
  for (let block = 1; block + 1 < blocks.length; block += 1) {
    const command = blocks[block]!.split('\n').find((line) => line.startsWith('# $ '));
    if (command === undefined || !command.includes('--format=csv')) continue;
    const query = command.includes('--query-gpu=') ? 'gpu' : command.includes('--query-compute-apps=') ? 'compute-apps' : undefined;
    if (query !== undefined) sections.push({ query, lines: blocks[block + 1]!.split('\n') });
  }
  return sections;
}

/** `2026/07/14 09:00:44.579`, read in UTC as the parsers are told to. */
function utcTime(cell: string | undefined): number | undefined {
  if (cell === undefined) return undefined;
  const [year, month, day, hour, minute, second, ms] = cell.split(/[/ :.]/).map(Number);
  return Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms!);
}

/** What a --query-gpu row says, in GpuSample's terms; power as the parser's documented preference. */
function expectedSample(row: Row) {
  return {
    uuid: row['uuid'],
    time: utcTime(row['timestamp']),
    memoryUsedMiB: numberIn(row['memory.used [MiB]']),
    memoryTotalMiB: numberIn(row['memory.total [MiB]']),
    utilizationPct: numberIn(row['utilization.gpu [%]']),
    memoryUtilizationPct: numberIn(row['utilization.memory [%]']),
    powerW: numberIn(row['power.draw [W]']) ?? numberIn(row['power.draw.average [W]']) ?? numberIn(row['power.draw.instant [W]']),
  };
}

function observedSample(sample: GpuSample) {
  const { uuid } = sample.ref;
  const { time, memoryUsedMiB, memoryTotalMiB, utilizationPct, memoryUtilizationPct, powerW } = sample;
  return { uuid, time, memoryUsedMiB, memoryTotalMiB, utilizationPct, memoryUtilizationPct, powerW };
}

function expectedProcess(row: Row) {
  return {
    uuid: row['gpu_uuid'], time: utcTime(row['timestamp']), pid: Number(row['pid']),
    name: textIn(row['process_name']) ?? '', usedMemoryMiB: numberIn(row['used_gpu_memory [MiB]']),
  };
}

function observedProcess(process: ProcessSample) {
  return { uuid: process.ref.uuid, time: process.time, pid: process.pid, name: process.name, usedMemoryMiB: process.usedMemoryMiB };
}

const csvFiles = corpusFiles('nvidia-smi-csv');
const dmonFiles = corpusFiles('nvidia-smi-dmon');
const allFiles = [...csvFiles, ...dmonFiles];

describe('nvidia-smi text corpus: detection', () => {
  it.each(allFiles.map((file) => [path.basename(file), file]))('%s is detected as exactly its own format', (name, file) => {
    const expected = formatByName(name);
    expect(detected(read(file))).toEqual(expected === undefined ? [] : [expected]);
  });

  it('covers every kind of file in the two folders', () => {
    const formats = new Set(allFiles.map((file) => formatByName(path.basename(file))));
    expect(formats).toEqual(new Set([undefined, 'nvidia-smi-capture', 'nvidia-smi-compute-apps', 'nvidia-smi-csv', 'nvidia-smi-dmon', 'nvidia-smi-pmon']));
  });

  const otherFolders = ['nvidia-smi-xml', 'dcgm-exporter', 'dcgmi', 'prometheus-api', 'kubernetes', 'mig-parted', 'device-plugin'];
  it.each(otherFolders)('claims no file of %s (XML, Prometheus text, dcgmi, YAML, JSON)', (folder) => {
    for (const file of corpusFiles(folder)) expect(detected(read(file)), file).toEqual([]);
  });

  it('claims no random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
      expect(detected(Buffer.from(bytes).toString('latin1'))).toEqual([]);
    }));
  });
});

describe('nvidia-smi text corpus: values equal those in the file', () => {
  it.each(csvFiles.filter((file) => formatByName(path.basename(file)) === 'nvidia-smi-csv').map((file) => [path.basename(file), file]))(
    '%s (--query-gpu)', async (_name, file) => {
      const out = await parse(file);
      const rows = csvRows(read(file).split('\n'));
      expect(out.records).toBe(rows.length);
      expect(out.warnings).toEqual([]);
      expect(out.samples.map(observedSample)).toEqual(rows.map(expectedSample));
      expect(out.devices.map((device) => device.model)).toEqual(rows.map((row) => row['name']));
    });

  it.each(csvFiles.filter((file) => formatByName(path.basename(file)) === 'nvidia-smi-compute-apps').map((file) => [path.basename(file), file]))(
    '%s (--query-compute-apps)', async (_name, file) => {
      const out = await parse(file);
      const rows = csvRows(read(file).split('\n'));
      expect(out.records).toBe(rows.length);
      expect(out.warnings).toEqual([]);
      expect(out.processes.map(observedProcess)).toEqual(rows.map(expectedProcess));
    });

  it.each(dmonFiles.filter((file) => file.includes('-dmon-')).map((file) => [path.basename(file), file]))('%s (dmon)', async (_name, file) => {
    const out = await parse(file);
    const rows = monitorRows(read(file).split('\n'));
    expect(out.records).toBe(rows.length);
    expect(out.warnings).toEqual([]);
    expect(out.samples.map((sample) => [sample.ref.index, sample.utilizationPct, sample.memoryUtilizationPct, sample.powerW]))
      .toEqual(rows.map((row) => [Number(row['gpu']), dashNumber(row['sm']), dashNumber(row['mem']), dashNumber(row['pwr'])]));
  });

  it.each(dmonFiles.filter((file) => file.includes('-pmon-')).map((file) => [path.basename(file), file]))('%s (pmon)', async (_name, file) => {
    const out = await parse(file);
    const rows = monitorRows(read(file).split('\n'));
    expect(out.records).toBe(rows.length);
    expect(out.warnings).toEqual([]);
    expect(out.processes.map((process) => [process.ref.index, process.pid, process.type, process.smPct, process.name]))
      .toEqual(rows.filter((row) => row['pid'] !== '-').map((row) => [Number(row['gpu']), Number(row['pid']), row['type'], dashNumber(row['sm']), row['command']]));
  });

  it.each(csvFiles.filter((file) => formatByName(path.basename(file)) === 'nvidia-smi-capture').map((file) => [path.basename(file), file]))(
    '%s (capture)', async (_name, file) => {
      const out = await parse(file);
      const sections = captureCsvSections(read(file));
      expect(sections.map((section) => section.query)).toEqual(['gpu', 'compute-apps', 'gpu', 'compute-apps']);
      const gpuRows = sections.filter((section) => section.query === 'gpu').flatMap((section) => csvRows(section.lines));
      const processRows = sections.filter((section) => section.query === 'compute-apps').flatMap((section) => csvRows(section.lines));
      expect(out.records).toBe(gpuRows.length + processRows.length);
      expect(out.warnings).toEqual([]);
      expect(out.samples.map(observedSample)).toEqual(gpuRows.map(expectedSample));
      expect(out.processes.map(observedProcess)).toEqual(processRows.map(expectedProcess));
    });
});

describe('nvidia-smi text corpus: values typed by hand from the files', () => {
  const MASKED_UUID = 'GPU-00000000-0000-0000-0000-000000000000';

  it('H100 under MIG, --query-gpu under load: utilization is [N/A], memory and power are there', async () => {
    const out = await parse(corpusPath('nvidia-smi-csv', 'nvgpuexp-linux-h100-mig-590.48.01-query-gpu-load.csv'));
    const ref = { host: 'corpus', uuid: MASKED_UUID, pciBusId: '00000000:00:09.0', index: 0 };
    expect(out.devices).toEqual([{
      ref, model: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559, migMode: 'enabled', pciDeviceId: '233010DE', driverVersion: '590.48.01',
      // pcie.link.gen.max 5, pcie.link.width.max 16
      pcieLinkMaxGeneration: 5, pcieLinkMaxWidth: 16,
    }]);
    // power.draw 433.78 W (= power.draw.average; power.draw.instant 447.35 W is not taken)
    expect(out.samples).toEqual([{
      ref, time: Date.UTC(2026, 6, 14, 9, 0, 44, 579), memoryTotalMiB: 81559, memoryUsedMiB: 11125, powerW: 433.78,
    }]);
  });

  it('Windows RTX 2080 SUPER compute apps: 12 processes, memory [N/A] under WDDM', async () => {
    const out = await parse(corpusPath('nvidia-smi-csv', 'nvgpuexp-windows-geforce-rtx-2080-super-591.86-compute-apps-load.csv'));
    expect(out.records).toBe(12);
    const ref = { host: 'corpus', uuid: MASKED_UUID, pciBusId: '00000000:0C:00.0' };
    const time = Date.UTC(2026, 5, 22, 23, 4, 33, 535);
    expect(out.processes[0]).toEqual({ ref, time, pid: 12444, name: 'C:\\Windows\\SystemApps\\MicrosoftWindows.Client.CBS_cw5n1h2txyewy\\TextInputHost.exe' });
    expect(out.processes[4]).toEqual({ ref, time, pid: 20372, name: 'C:\\Program Files\\NZXT CAM\\NZXT CAM.exe' });
    expect(out.processes.map((process) => process.pid)).toEqual([12444, 15076, 2056, 12332, 20372, 4680, 14160, 14184, 16280, 24804, 25704, 26660]);
    expect(out.processes.every((process) => process.usedMemoryMiB === undefined)).toBe(true);
    expect(out.devices).toEqual([{ ref, model: 'NVIDIA GeForce RTX 2080 SUPER' }]);
  });

  it('netdata Tesla P100: no timestamp, no index, fan.speed [N/A] ignored', async () => {
    const out = await parse(corpusPath('nvidia-smi-csv', 'netdata-tesla-p100-query-gpu.csv'));
    const ref = { host: 'corpus', uuid: 'GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6' };
    expect(out.devices).toEqual([{ ref, model: 'Tesla P100-PCIE-16GB' }]);
    expect(out.samples).toEqual([{ ref, memoryUsedMiB: 0, utilizationPct: 0, memoryUtilizationPct: 0, powerW: 28.16 }]);
  });

  it('nvidia_gpu_exporter test query: two GPUs, values with units repeated', async () => {
    const out = await parse(corpusPath('nvidia-smi-csv', 'nvgpuexp-exporter-testdata-query.csv'));
    const first = { host: 'corpus', uuid: 'GPU-df6e7a7c-7314-46f8-abc4-b88b36dcf3aa', pciBusId: '00000000:01:00.0', index: 0 };
    const second = { host: 'corpus', uuid: 'GPU-04757e3e-3077-4e2e-b988-7e2d647b52e9', pciBusId: '00000000:02:00.0', index: 1 };
    expect(out.devices).toEqual([
      { ref: first, model: 'NVIDIA GeForce RTX 2080 SUPER', driverVersion: '466.63' },
      { ref: second, model: 'Some Other GPU', driverVersion: '123.45' },
    ]);
    expect(out.samples).toEqual([{ ref: first, memoryUsedMiB: 575 }, { ref: second, memoryUsedMiB: 1234 }]);
  });

  it('H200 dmon under load: five rows of GPU 0 at 100 % sm', async () => {
    const out = await parse(corpusPath('nvidia-smi-dmon', 'nvgpuexp-linux-h200-590.48.01-dmon-load.txt'));
    expect(out.samples.map((sample) => sample.powerW)).toEqual([630, 628, 629, 632, 630]);
    expect(out.samples.map((sample) => sample.utilizationPct)).toEqual([100, 100, 100, 100, 100]);
    expect(out.samples.map((sample) => sample.memoryUtilizationPct)).toEqual([8, 8, 8, 8, 8]);
    expect(out.samples.every((sample) => sample.ref.index === 0 && sample.time === undefined)).toBe(true);
  });

  it('RTX 2080 SUPER pmon under load: two ffmpeg, gnome-shell and Xwayland, five times', async () => {
    const out = await parse(corpusPath('nvidia-smi-dmon', 'nvgpuexp-linux-geforce-rtx-2080-super-595.71.05-pmon-load.txt'));
    expect(out.records).toBe(20);
    expect(out.processes.slice(0, 4)).toEqual([
      { ref: { host: 'corpus', index: 0 }, pid: 1696, type: 'G', name: 'gnome-shell' },
      { ref: { host: 'corpus', index: 0 }, pid: 4584, type: 'G', name: 'Xwayland' },
      { ref: { host: 'corpus', index: 0 }, pid: 5267, type: 'C', name: 'ffmpeg', smPct: 7 },
      { ref: { host: 'corpus', index: 0 }, pid: 5268, type: 'C', name: 'ffmpeg' },
    ]);
    const smOf = (pid: number) => out.processes.filter((process) => process.pid === pid).map((process) => process.smPct);
    expect(smOf(5267)).toEqual([7, 8, undefined, undefined, undefined]);
    expect(smOf(5268)).toEqual([undefined, undefined, 7, 7, 7]);
  });

  it('H100 MIG capture: the idle and load query-gpu rows and the three load processes, nothing from dmon or pmon', async () => {
    const out = await parse(corpusPath('nvidia-smi-csv', 'nvgpuexp-capture-linux-h100-mig-590.48.01.txt'));
    expect(out.records).toBe(5);
    const gpu = { host: 'corpus', uuid: MASKED_UUID, pciBusId: '00000000:00:09.0', index: 0 };
    expect(out.samples).toEqual([
      { ref: gpu, time: Date.UTC(2026, 6, 14, 9, 0, 27, 792), memoryTotalMiB: 81559, memoryUsedMiB: 59, powerW: 71.15 },
      { ref: gpu, time: Date.UTC(2026, 6, 14, 9, 0, 44, 579), memoryTotalMiB: 81559, memoryUsedMiB: 11125, powerW: 433.78 },
    ]);
    const processRef = { host: 'corpus', uuid: MASKED_UUID, pciBusId: '00000000:00:09.0' };
    const time = Date.UTC(2026, 6, 14, 9, 0, 44, 742);
    expect(out.processes).toEqual([
      { ref: processRef, time, pid: 21180, name: '/root/tools/memhog', usedMemoryMiB: 2296 },
      { ref: processRef, time, pid: 21181, name: '/root/tools/memhog', usedMemoryMiB: 1272 },
      { ref: processRef, time, pid: 21198, name: './gpu_burn', usedMemoryMiB: 7484 },
    ]);
  });

  it('reads a capture the same whatever the chunk size', async () => {
    const file = corpusPath('nvidia-smi-csv', 'nvgpuexp-capture-windows-geforce-rtx-2080-super-610.62.txt');
    const reference = await parse(file, [1 << 20]);
    for (const sizes of [[1], [7, 13], [333]]) expect(await parse(file, sizes)).toEqual(reference);
  });
});

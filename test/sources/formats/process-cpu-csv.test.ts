/**
 * processes.csv of a `gpu-audit collect` bundle: the CPU ticks of every GPU process and its
 * descendants, read as `processCpu` readings and shown in the workload's pipeline evidence.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit, type AuditOptions } from '../../../src/engine/run-audit.js';
import { collect } from '../../../src/collect/index.js';
import { BUNDLE_FILES, PROCESSES_HEADER, PROC_STAT_HEADER } from '../../../src/collect/bundle-writer.js';
import type { ProcessCpuSample } from '../../../src/model/observations.js';
import type { BundleManifest } from '../../../src/model/index.js';
import { detectParser, localTimeZone } from '../../../src/sources/index.js';
import { PROCESS_CPU_CSV_HEADER, processCpuCsv, splitCsvRow } from '../../../src/sources/formats/process-cpu-csv.js';
import { corpusPath, repoRoot } from '../../helpers/corpus.js';
import { chunked, RecordingSink } from '../../helpers/sink.js';

class ProcessRecordingSink extends RecordingSink {
  readonly processCpus: ProcessCpuSample[] = [];
  processCpu(sample: ProcessCpuSample): void {
    this.processCpus.push(sample);
  }
}

const HEADER = PROCESS_CPU_CSV_HEADER.join(',');
const CONTEXT = { ref: 'processes.csv', host: 'node-07', timeZone: 'UTC' };

async function parse(text: string, chunkSizes?: number[]): Promise<{ sink: ProcessRecordingSink; records: number }> {
  const sink = new ProcessRecordingSink();
  const { records } = await processCpuCsv.parse(chunked(text, chunkSizes), CONTEXT, sink);
  return { sink, records };
}

describe('detection', () => {
  it('claims exactly the header the collector writes, and the registry picks this parser for it', () => {
    expect(PROCESS_CPU_CSV_HEADER).toEqual(PROCESSES_HEADER);
    expect(processCpuCsv.detect(`${HEADER}\n`)).toBe(true);
    expect(detectParser(`${HEADER}\n`)?.format).toBe('process-cpu-csv');
    expect(processCpuCsv.detect(`\uFEFF${HEADER}\r\n`)).toBe(true);
    expect(processCpuCsv.detect(`${HEADER},extra\n`)).toBe(false);
    expect(detectParser(`${PROC_STAT_HEADER.join(',')}\n`)?.format).toBe('proc-stat-csv');
  });
});

describe('splitCsvRow', () => {
  it.each([
    ['a,b,,c', ['a', 'b', '', 'c']],
    ['"a,b",c', ['a,b', 'c']],
    ['x,"say ""hi""",y', ['x', 'say "hi"', 'y']],
    ['x,""', ['x', '']],
  ])('splits %s', (line, cells) => {
    expect(splitCsvRow(line)).toEqual(cells);
  });

  it('refuses a quote that does not close, or text after a closing quote', () => {
    expect(splitCsvRow('x,"open')).toBeUndefined();
    expect(splitCsvRow('x,"a"b,c')).toBeUndefined();
  });
});

describe('parsing', () => {
  it('reads user + system ticks as CPU-seconds at USER_HZ 100, names kept exactly, whatever the chunking', async () => {
    const text = [
      HEADER,
      // (1200 + 300) / 100 = 15 s; (850 + 50) / 100 = 9 s; (7 + 3) / 100 = 0.1 s.
      '2026-11-29T10:00:00.000Z,4242,4242,1,python,S,1200,300,40,91000',
      '2026-11-29T10:00:00.000Z,4242,4250,4242,pt_data_worker,R,850,50,4,91500',
      '2026-11-29T10:00:00.000Z,4242,4251,4242,"odd, ""name""",R,7,3,1,91600',
    ].join('\n') + '\n';
    const { sink, records } = await parse(text, [5, 11]);
    expect(records).toBe(3);
    expect(sink.warnings).toEqual([]);
    const time = Date.parse('2026-11-29T10:00:00Z');
    expect(sink.processCpus).toEqual([
      { host: 'node-07', time, gpuPid: 4242, pid: 4242, comm: 'python', startTicks: 91000, cpuSecondsTotal: 15 },
      { host: 'node-07', time, gpuPid: 4242, pid: 4250, comm: 'pt_data_worker', startTicks: 91500, cpuSecondsTotal: 9 },
      { host: 'node-07', time, gpuPid: 4242, pid: 4251, comm: 'odd, "name"', startTicks: 91600, cpuSecondsTotal: 0.1 },
    ]);
  });

  it('reads CRLF line ends (a bundle copied through Windows): the last cell, start_ticks, ends before the \\r', async () => {
    const text = `${HEADER}\r\n2026-11-29T10:00:00.000Z,4242,4250,4242,"odd, name",R,850,50,4,91500\r\n`;
    const { sink, records } = await parse(text, [3, 9]);
    expect(records).toBe(1);
    expect(sink.warnings).toEqual([]);
    // (850 + 50) / 100 = 9 s.
    expect(sink.processCpus).toEqual([
      { host: 'node-07', time: Date.parse('2026-11-29T10:00:00Z'), gpuPid: 4242, pid: 4250, comm: 'odd, name', startTicks: 91500, cpuSecondsTotal: 9 },
    ]);
  });

  it('leaves out unreadable rows with a warning naming the line, and warns on a header alone', async () => {
    const text = [
      HEADER,
      '2026-11-29T10:00:00.000Z,4242,4242,1,python,S,1200',
      'yesterday,4242,4242,1,python,S,1200,300,40,91000',
      '2026-11-29T10:00:00.000Z,4242,-1,1,python,S,1200,300,40,91000',
      '2026-11-29T10:00:00.000Z,4242,4242,1,"python,S,1200,300,40,91000',
      '2026-11-29T10:00:00.000Z,4242,4242,1,python,S,1200,300,40,91000',
    ].join('\n');
    const { sink, records } = await parse(text);
    expect(records).toBe(1);
    expect(sink.warnings).toEqual([
      { location: 'line 2', message: '7 columns where the header has 10; row left out' },
      { location: 'line 3', message: 'timestamp, pid or tick count unreadable; row left out' },
      { location: 'line 4', message: 'timestamp, pid or tick count unreadable; row left out' },
      { location: 'line 5', message: 'a quoted cell does not close on its line; row left out' },
    ]);
    const empty = await parse(`${HEADER}\n`);
    expect(empty.records).toBe(0);
    expect(empty.sink.warnings).toEqual([{ location: 'line 1', message: 'no readable process rows: no per-process CPU figures from this file' }]);
  });
});

/**
 * A bundle as `collect` writes it, by hand, so every figure can be worked out: 3 samples 10 s
 * apart of the corpus Tesla T4 document (processes 675 /usr/lib/xorg/Xorg and 5762 python)
 * with GPU utilization set to 20 %, on an 8-CPU host at USER_HZ 100.
 */
const TIMES = ['16:22:39', '16:22:49', '16:22:59'];
const ISO = TIMES.map((time) => `2023-04-24T${time}.000Z`);

/** Host: per 10 s, 8 CPUs x 10 s x 100 = 8000 ticks, user +7900, idle +100. */
const PROC_STAT = [
  PROC_STAT_HEADER.join(','),
  ...[0, 1, 2].map((k) => `${ISO[k]},${100_000 + 7900 * k},0,0,${50_000 + 100 * k},0,0,0,0,8`),
].join('\n') + '\n';

/**
 * python (5762) +500 user +200 system ticks per 10 s = 7 s; 8 workers (5800-5807) +850 +50 =
 * 9 s each; Xorg (675) +10 +5 = 0.15 s.
 */
const PROCESSES = [
  PROCESSES_HEADER.join(','),
  ...[0, 1, 2].flatMap((k) => [
    `${ISO[k]},675,675,1,Xorg,S,${300 + 10 * k},${100 + 5 * k},3,1000`,
    `${ISO[k]},5762,5762,1200,python,S,${10_000 + 500 * k},${2000 + 200 * k},40,90000`,
    ...[0, 1, 2, 3, 4, 5, 6, 7].map((w) => `${ISO[k]},5762,${5800 + w},5762,pt_data_worker,R,${1000 + 850 * k},${100 + 50 * k},4,${90100 + w}`),
  ]),
].join('\n') + '\n';

function writeBundle(directory: string): void {
  mkdirSync(directory, { recursive: true });
  const t4 = readFileSync(corpusPath('nvidia-smi-xml', 'telegraf-tesla-t4.xml'), 'utf8').replace('<gpu_util>0 %</gpu_util>', '<gpu_util>20 %</gpu_util>');
  writeFileSync(path.join(directory, 'nvidia-smi.xml'), TIMES.map((time) => t4.replace(/<timestamp>[^<]*<\/timestamp>/, `<timestamp>Mon Apr 24 ${time} 2023</timestamp>`)).join('\n'));
  writeFileSync(path.join(directory, 'proc-stat.csv'), PROC_STAT);
  writeFileSync(path.join(directory, 'processes.csv'), PROCESSES);
  const manifest: BundleManifest = {
    schemaVersion: 1, kind: 'gpu-audit-bundle', tool: { name: 'gpu-audit', version: 'test' }, host: 'node-07', timezone: 'UTC',
    startedAt: ISO[0]!, endedAt: ISO[2]!, complete: true, stoppedBy: 'duration', intervalSeconds: 10, durationSeconds: 30,
    clockTicksPerSecond: 100, cpuCount: 8, nvidiaSmi: { driverVersion: '515.105.01', cudaVersion: '11.7' },
    samples: { kept: 3, failed: 0, lastError: null }, files: BUNDLE_FILES,
  };
  writeFileSync(path.join(directory, 'manifest.json'), JSON.stringify(manifest));
}

const auditOptions = (directory: string): AuditOptions => ({
  inputs: [directory],
  timeZone: 'UTC',
  idleThresholdPct: 5,
  keepGoing: false,
  pricing: 'on-demand',
  workloads: [{ name: 'trainer', kind: 'training', match: { process: '^python$' } }],
});

describe('audit <bundle>', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'gpu-audit-processes-'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('names the GPU process, its workers and the cores they used in the input-bound evidence', async () => {
    const directory = path.join(root, 'hand-made');
    writeBundle(directory);
    const { report } = await runAudit(auditOptions(directory));
    expect(report.sources.map((source) => [source.ref.split(path.sep).pop(), source.format, source.records])).toEqual([
      ['nvidia-smi.xml', 'nvidia-smi-xml', 3],
      ['proc-stat.csv', 'proc-stat-csv', 3],
      ['processes.csv', 'process-cpu-csv', 30],
    ]);
    const trainer = report.workloads.find((workload) => workload.name === 'trainer')!;
    // GPU 20% busy (utilization); host busy = 1 - 200 / 16000 = 0.9875 (7.9 of 8 cores) >= 90%.
    // python's tree: (7 + 8 x 9) s per 10 s = 79 s / 10 s = 7.90 cores (158 s over the 20 s window).
    expect(trainer.cpuPipeline.verdict).toBe('input-bound');
    expect(trainer.cpuPipeline.evidence).toEqual([
      'GPU below 50% busy while the CPU is saturated (host at least 90% busy, or a container throttled in at least 25% of CFS periods)',
      'GPU 20% busy (utilization)',
      'host CPU 99% busy (7.9 of 8 cores)',
      'pid 5762 (python) and 8 child processes used 7.90 of 8 cores',
      // The T4 prints rx_util and tx_util 0 KB/s on a Gen3 x16 link (15024 MiB/s).
      'PCIe receive of GPU-d37e67a5-91dd-3774-a5cb-99096249601a averaged 0.0 MiB/s (0.0% of its Gen3 x16 link\'s 15024 MiB/s)',
    ]);
    // Xorg's tree belongs to the unassigned workload: 0.3 s in 20 s = 0.015 cores.
    const unassigned = report.workloads.find((workload) => workload.name === 'unassigned')!;
    expect(unassigned.cpuPipeline.evidence).toContain('pid 675 (/usr/lib/xorg/Xorg) used 0.01 of 8 cores');
  });

  describe('a bundle written by collect with the fake nvidia-smi', () => {
    const FAKE_DIR = path.join(repoRoot, 'test/fixtures/fake-nvidia-smi');
    const saved = { path: process.env.PATH, document: process.env.FAKE_NVIDIA_SMI_DOCUMENT, pid: process.env.FAKE_NVIDIA_SMI_PID };
    beforeAll(() => {
      process.env.PATH = `${FAKE_DIR}${path.delimiter}${saved.path ?? ''}`;
      process.env.FAKE_NVIDIA_SMI_DOCUMENT = corpusPath('nvidia-smi-xml', 'telegraf-tesla-t4.xml');
      // Every GPU process of the document becomes this test process: collect follows its tree.
      process.env.FAKE_NVIDIA_SMI_PID = String(process.pid);
    });
    afterAll(() => {
      process.env.PATH = saved.path;
      for (const [name, value] of [['FAKE_NVIDIA_SMI_DOCUMENT', saved.document], ['FAKE_NVIDIA_SMI_PID', saved.pid]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    it('reads its processes.csv: this process, sampled each time, in the evidence', async () => {
      const directory = path.join(root, 'collected');
      await collect({ directory, durationSeconds: 2, intervalSeconds: 1, host: 'node-07', timeZone: localTimeZone() });
      const rows = readFileSync(path.join(directory, 'processes.csv'), 'utf8').trim().split('\n').length - 1;
      expect(rows).toBeGreaterThan(0);
      const { report } = await runAudit({ ...auditOptions(directory), timeZone: localTimeZone() });
      expect(report.sources.find((source) => source.format === 'process-cpu-csv')?.records).toBe(rows);
      // The T4 document's two processes now both carry this pid; the CPU this test used is
      // not knowable in advance, only its shape.
      const evidence = report.workloads.flatMap((workload) => workload.cpuPipeline.evidence);
      expect(evidence).toContainEqual(expect.stringMatching(new RegExp(`^pid ${process.pid} \\(.+\\)( and \\d+ child process(es)?)? used \\d+\\.\\d\\d of \\d+ cores$`)));
    }, 30_000);
  });
});

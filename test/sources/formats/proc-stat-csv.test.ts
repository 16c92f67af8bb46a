/**
 * proc-stat.csv of a `gpu-audit collect` bundle: host CPU ticks read as the same `hostCpu`
 * counters node_exporter gives, so the pipeline verdict sees the bundle host's CPU.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuUsageTable } from '../../../src/analysis/cpu-pipeline/cpu-usage.js';
import { runAudit } from '../../../src/engine/run-audit.js';
import { collect } from '../../../src/collect/index.js';
import { PROC_STAT_HEADER } from '../../../src/collect/bundle-writer.js';
import type { HostCpuSample } from '../../../src/model/observations.js';
import type { BundleManifest } from '../../../src/model/index.js';
import { detectParser, localTimeZone } from '../../../src/sources/index.js';
import { PROC_STAT_CSV_HEADER, procStatCsv } from '../../../src/sources/formats/proc-stat-csv.js';
import { corpusPath, repoRoot } from '../../helpers/corpus.js';
import { chunked, RecordingSink } from '../../helpers/sink.js';

class CpuRecordingSink extends RecordingSink {
  readonly hosts: HostCpuSample[] = [];
  hostCpu(sample: HostCpuSample): void {
    this.hosts.push(sample);
  }
}

const HEADER = PROC_STAT_CSV_HEADER.join(',');
const CONTEXT = { ref: 'proc-stat.csv', host: 'gpu-node-1', timeZone: 'UTC' };

/**
 * 4 CPUs, 10 s apart (columns: user nice system idle iowait irq softirq steal cpus).
 * Increases, in ticks: user 2400, system 400, idle 1000, iowait 100, softirq 100 = 4000
 * ticks = 40 s at USER_HZ 100 = 4 CPUs x 10 s. Not busy = idle + iowait = 1100, so the
 * busy share is 1 - 1100 / 4000 = 0.725: 2.9 of 4 cores.
 */
const TWO_ROWS = [
  HEADER,
  '2026-11-29T10:00:00.000Z,1000,0,200,3000,100,0,50,0,4',
  '2026-11-29T10:00:10.000Z,3400,0,600,4000,200,0,150,0,4',
].join('\n') + '\n';

async function parse(text: string, chunkSizes?: number[]): Promise<{ sink: CpuRecordingSink; records: number }> {
  const sink = new CpuRecordingSink();
  const { records } = await procStatCsv.parse(chunked(text, chunkSizes), CONTEXT, sink);
  return { sink, records };
}

function hostFigures(samples: readonly HostCpuSample[]) {
  const table = new CpuUsageTable();
  for (const sample of samples) table.hostCpu(sample);
  return table.hosts();
}

describe('detection', () => {
  it('claims exactly the header the collector writes, and the registry picks this parser for it', () => {
    expect(PROC_STAT_CSV_HEADER).toEqual(PROC_STAT_HEADER);
    expect(procStatCsv.detect(TWO_ROWS)).toBe(true);
    expect(detectParser(TWO_ROWS)?.format).toBe('proc-stat-csv');
    expect(procStatCsv.detect(`\uFEFF${HEADER}\r\n`)).toBe(true);
    expect(procStatCsv.detect(`${HEADER},extra\n`)).toBe(false);
    expect(procStatCsv.detect('timestamp,user_ticks\n')).toBe(false);
  });
});

describe('parsing', () => {
  it('spreads each row over its CPUs as node_exporter modes in seconds, whatever the chunking', async () => {
    const { sink, records } = await parse(TWO_ROWS, [7, 13]);
    expect(records).toBe(2);
    expect(sink.warnings).toEqual([]);
    // 2 rows x 8 modes x 4 CPUs.
    expect(sink.hosts).toHaveLength(64);
    // user at the first row: 1000 ticks / 100 per s / 4 CPUs = 2.5 s on each CPU.
    expect(sink.hosts[0]).toEqual({ host: 'gpu-node-1', time: Date.parse('2026-11-29T10:00:00Z'), cpu: '0', mode: 'user', secondsTotal: 2.5 });
    expect(new Set(sink.hosts.map((sample) => sample.mode))).toEqual(new Set(['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal']));
  });

  it('reads CRLF line ends (a bundle copied through Windows) as the LF ones', async () => {
    const lf = await parse(TWO_ROWS);
    const crlf = await parse(TWO_ROWS.replaceAll('\n', '\r\n'), [7, 13]);
    expect(crlf.records).toBe(2);
    expect(crlf.sink.warnings).toEqual([]);
    expect(crlf.sink.hosts).toEqual(lf.sink.hosts);
  });

  it('gives the CPU table the hand-worked busy share and core count', async () => {
    const [figures] = hostFigures((await parse(TWO_ROWS)).sink.hosts);
    expect(figures).toMatchObject({ host: 'gpu-node-1', cores: 4, windowSeconds: 10, counterResets: 0 });
    expect(figures!.busyFraction).toBeCloseTo(0.725, 12);
  });

  it('takes a reboot (counters going down) as a reset from 0, as node_exporter counters are', async () => {
    // Third row after a reboot: user 800, system 100, idle 1000, iowait 50, softirq 50 since boot.
    // Increases: user 2400 + 800 = 3200, system 400 + 100 = 500, idle 1000 + 1000 = 2000,
    // iowait 100 + 50 = 150, softirq 100 + 50 = 150; total 6000, not busy 2150:
    // busy = 1 - 2150 / 6000 = 0.641666...; 5 modes went down on each of 4 CPUs = 20 resets.
    const text = `${TWO_ROWS}2026-11-29T10:00:20.000Z,800,0,100,1000,50,0,50,0,4\n`;
    const [figures] = hostFigures((await parse(text)).sink.hosts);
    expect(figures!.busyFraction).toBeCloseTo(1 - 2150 / 6000, 12);
    expect(figures!.counterResets).toBe(20);
    expect(figures!.windowSeconds).toBe(20);
  });

  it('leaves out a row with missing columns or unreadable values, with a warning naming the line', async () => {
    const text = [
      HEADER,
      '2026-11-29T10:00:00.000Z,1000,0,200,3000,100,0,50,0,4',
      '2026-11-29T10:00:05.000Z,2000,0,400,3500',
      'yesterday,1,0,1,1,1,0,1,0,4',
      '2026-11-29T10:00:10.000Z,3400,0,600,4000,200,0,150,0,4',
    ].join('\n');
    const { sink, records } = await parse(text);
    expect(records).toBe(2);
    expect(sink.warnings).toEqual([
      { location: 'line 3', message: '5 columns where the header has 10; row left out' },
      { location: 'line 4', message: 'timestamp or tick count unreadable; row left out' },
    ]);
    expect(hostFigures(sink.hosts)[0]!.busyFraction).toBeCloseTo(0.725, 12);
  });

  it('keeps the first CPU count when CPUs go offline mid-window, and says so', async () => {
    const text = TWO_ROWS.replace(/,4\n$/, ',2\n');
    const { sink } = await parse(text);
    expect(sink.warnings).toEqual([{ location: 'line 3', message: 'cpus changed from 4 to 2; cores are reported as 4' }]);
    expect(hostFigures(sink.hosts)[0]).toMatchObject({ cores: 4 });
  });

  it('warns, without failing, on a header with no rows (a bundle stopped at its first sample)', async () => {
    const { sink, records } = await parse(`${HEADER}\n`);
    expect(records).toBe(0);
    expect(sink.warnings).toEqual([{ location: 'line 1', message: 'no readable sample rows: no host CPU figures from this file' }]);
  });
});

describe('audit <bundle>', () => {
  const FAKE_DIR = path.join(repoRoot, 'test/fixtures/fake-nvidia-smi');
  let root: string;
  let savedPath: string | undefined;
  let savedDocument: string | undefined;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'gpu-audit-proc-stat-'));
    savedPath = process.env.PATH;
    savedDocument = process.env.FAKE_NVIDIA_SMI_DOCUMENT;
    process.env.PATH = `${FAKE_DIR}${path.delimiter}${savedPath ?? ''}`;
    process.env.FAKE_NVIDIA_SMI_DOCUMENT = corpusPath('nvidia-smi-xml', 'telegraf-a10g.xml');
  });
  afterAll(() => {
    process.env.PATH = savedPath;
    if (savedDocument === undefined) delete process.env.FAKE_NVIDIA_SMI_DOCUMENT;
    else process.env.FAKE_NVIDIA_SMI_DOCUMENT = savedDocument;
    rmSync(root, { recursive: true, force: true });
  });

  it('reads the bundle\'s proc-stat.csv as the manifest host\'s CPU in the workload\'s pipeline evidence', async () => {
    const directory = path.join(root, 'bundle');
    await collect({ directory, durationSeconds: 2, intervalSeconds: 1, host: 'gpu-node-1', timeZone: localTimeZone() });
    const manifest = JSON.parse(readFileSync(path.join(directory, 'manifest.json'), 'utf8')) as BundleManifest;
    expect(manifest.files.map((file) => file.format)).toContain('proc-stat-csv');
    // The real ticks of this machine are unknowable here: replace them with the hand-worked rows.
    writeFileSync(path.join(directory, 'proc-stat.csv'), TWO_ROWS);

    const { report } = await runAudit({
      inputs: [directory],
      timeZone: 'UTC',
      idleThresholdPct: 5,
      keepGoing: false,
      pricing: 'on-demand',
      workloads: [{ name: 'trainer', kind: 'training', match: { hosts: ['gpu-node-1'] } }],
    });
    // processes.csv holds whatever processes of this machine carry the document's pids.
    const processRows = readFileSync(path.join(directory, 'processes.csv'), 'utf8').trim().split('\n').length - 1;
    expect(report.sources.map((source) => [path.basename(source.ref), source.format, source.records])).toEqual([
      ['nvidia-smi.xml', 'nvidia-smi-xml', manifest.samples.kept],
      ['proc-stat.csv', 'proc-stat-csv', 2],
      ['processes.csv', 'process-cpu-csv', processRows],
    ]);
    const [workload] = report.workloads;
    // The A10G document says 0% busy, so the verdict is idle; the host CPU figure is still
    // evidence: 72.5% busy, 0.725 x 4 = 2.9 cores (see TWO_ROWS).
    expect(workload!.cpuPipeline.verdict).toBe('idle');
    expect(workload!.cpuPipeline.evidence).toContain('host CPU 73% busy (2.9 of 4 cores)');
  }, 30_000);
});

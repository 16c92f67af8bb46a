/**
 * A file read in blocks by several workers (and this thread) reaches the sink as it does read
 * whole in one thread: the same calls in the same order, the same line numbers in warnings and
 * errors, the same warning limit over the file. The one difference BlockParsing allows, a
 * device's inventory sent again unchanged at the start of a block, is dropped by the log below
 * (the analysis keeps the first value of each field, so it changes nothing).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/support/errors.js';
import type { DeviceInfo, DeviceRef, GpuSample, ObservationSink, ProcessSample, SourceWarning } from '../../../src/model/observations.js';
import { sourceParsers } from '../../../src/sources/index.js';
import { openInput } from '../../../src/sources/inputs.js';
import { MAX_LINE_CHARS } from '../../../src/sources/lexers/text/lines.js';
import { DEFAULT_WARNING_LIMIT } from '../../../src/sources/lexers/text/warnings.js';
import type { SourceParser } from '../../../src/sources/types.js';
import { MAX_BLOCKS_HELD_HERE, parseInBlocks } from '../../../src/sources/parallel/parse-in-blocks.js';
import { corpusFiles } from '../../helpers/corpus.js';

/** Every call, as text; a device's inventory equal to the last one sent for it is left out. */
class CallLog implements ObservationSink {
  readonly calls: string[] = [];
  private readonly lastInventory = new Map<string, string>();

  device(info: DeviceInfo): void {
    const key = refKey(info.ref);
    const text = JSON.stringify(info);
    if (this.lastInventory.get(key) === text) return;
    this.lastInventory.set(key, text);
    this.calls.push(`device ${text}`);
  }

  sample(sample: GpuSample): void {
    // Keys sorted: their order is not part of a call (a block read in a worker comes back
    // through the call codec, which builds each sample in its own order).
    this.calls.push(`sample ${JSON.stringify(Object.fromEntries(Object.entries(sample).sort(([a], [b]) => (a < b ? -1 : 1))))}`);
  }

  process(process: ProcessSample): void {
    this.calls.push(`process ${JSON.stringify(process)}`);
  }

  warn(warning: SourceWarning): void {
    this.calls.push(`warn ${warning.location}: ${warning.message}`);
  }
}

function refKey(ref: DeviceRef): string {
  return JSON.stringify([ref.host, ref.uuid, ref.pciBusId, ref.index, ref.gpuInstanceId, ref.computeInstanceId]);
}

interface Outcome {
  calls: string[];
  records?: number;
  error?: string;
}

const context = (file: string) => ({ ref: path.basename(file), host: 'node-1', timeZone: 'UTC' });
const inputOf = (file: string) => ({ ref: path.basename(file), path: file, discovered: false });

function ended(log: CallLog, error: unknown): Outcome {
  if (!(error instanceof InputError)) throw error;
  return { calls: log.calls, error: error.describe() };
}

async function parserOf(file: string): Promise<{ parser: SourceParser; head: string }> {
  const opened = await openInput(inputOf(file));
  opened.close();
  const parser = sourceParsers.find((candidate) => candidate.detect(opened.head));
  if (parser === undefined) throw new Error(`no parser for ${file}`);
  return { parser, head: opened.head };
}

/** The whole file in this thread, as the audit reads a small file. */
async function wholeFile(file: string): Promise<Outcome> {
  const { parser } = await parserOf(file);
  const opened = await openInput(inputOf(file));
  const log = new CallLog();
  try {
    const result = await parser.parse(opened.chunks, context(file), log);
    return { calls: log.calls, records: result.records };
  } catch (error) {
    return ended(log, error);
  } finally {
    opened.close();
  }
}

async function inBlocks(file: string, blockBytes: number, workers: number): Promise<Outcome & { readAgain?: number }> {
  const { parser, head } = await parserOf(file);
  const log = new CallLog();
  const request = { input: inputOf(file), context: context(file), path: file, fileBytes: statSync(file).size, blockBytes, workers };
  try {
    const result = await parseInBlocks(request, parser, head, log);
    return { calls: log.calls, records: result.records, readAgain: result.blocksReadAgain };
  } catch (error) {
    return ended(log, error);
  }
}

const HEADER = 'timestamp, name, uuid, index, memory.total [MiB], memory.used [MiB], utilization.gpu [%], utilization.memory [%], power.draw [W]';

/** A `-l` log of 4 GPUs; `row(tick, gpu)` may replace a row's text (return undefined to keep it). */
function queryLog(ticks: number, row?: (tick: number, gpu: number) => string | undefined, lineEnd = '\n'): string {
  const lines = [HEADER];
  for (let tick = 0; tick < ticks; tick += 1) {
    for (let gpu = 0; gpu < 4; gpu += 1) {
      const time = new Date(Date.UTC(2026, 10, 2, 0, 0, tick)).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');
      const used = (tick * 37 + gpu * 101) % 80_000;
      lines.push(row?.(tick, gpu) ?? `${time}, NVIDIA H100 80GB HBM3, GPU-0000000${gpu}-aaaa-bbbb-cccc-dddddddddddd, ${gpu}, 81559 MiB, ${used} MiB, ${(tick + gpu) % 101} %, ${tick % 50} %, ${(100 + tick % 600).toFixed(2)} W`);
    }
  }
  return lines.join(lineEnd) + lineEnd;
}

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-blocks-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Writes a file of the test's directory and returns its path. */
function write(name: string, text: string): string {
  const file = path.join(directory, name);
  writeFileSync(file, text);
  return file;
}

describe('reading a file in blocks', () => {

  it('gives the calls of the whole-file parse on every corpus --query-gpu and --query-compute-apps CSV', async () => {
    const files = corpusFiles('nvidia-smi-csv').filter((file) => file.endsWith('.csv'));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const { parser } = await parserOf(file);
      if (parser.blocks === undefined) continue;
      const whole = await wholeFile(file);
      expect(whole.records, path.basename(file)).toBeGreaterThan(0);
      for (const [blockBytes, workers] of [[97, 1], [512, 2]] as const) {
        expect(await inBlocks(file, blockBytes, workers), `${path.basename(file)}, blocks of ${blockBytes} bytes`).toMatchObject(whole);
      }
    }
  });

  it('holds at most MAX_BLOCKS_HELD_HERE blocks read ahead in this thread, however slow the worker on the block whose turn it is', async () => {
    // Blocks of 200 bytes: this thread reads two ahead while the worker is still starting.
    const file = write('held.csv', queryLog(100));
    const whole = await wholeFile(file);
    const { parser, head } = await parserOf(file);
    const request = { input: inputOf(file), context: context(file), path: file, fileBytes: statSync(file).size, blockBytes: 200, workers: 1 };
    const log = new CallLog();
    const result = await parseInBlocks(request, parser, head, log);
    expect(log.calls).toEqual(whole.calls);
    expect(result.mostBlocksHeldHere).toBe(MAX_BLOCKS_HELD_HERE);
    expect(result.blocksReadAhead).toBeGreaterThan(MAX_BLOCKS_HELD_HERE);
  });

  it('gives them on a long log with one worker, with two, with none (this thread reads every block) and in blocks larger than the file', async () => {
    const file = write('long.csv', queryLog(500));
    const whole = await wholeFile(file);
    // 500 ticks x 4 GPUs.
    expect(whole.records).toBe(2_000);
    for (const [blockBytes, workers] of [[1_000, 1], [1_000, 2], [7_919, 3], [1 << 30, 2], [1_000, 0]] as const) {
      expect(await inBlocks(file, blockBytes, workers)).toMatchObject(whole);
    }
  });

  it('keeps CRLF line ends, blank lines, a repeated header and a last line without a newline as one thread does', async () => {
    const text = queryLog(60, (tick, gpu) => (gpu === 0 && tick % 7 === 0 ? `\r\n   \r\n${HEADER}\r\n` : undefined), '\r\n').replace(/\r\n$/, '');
    const file = write('crlf.csv', text);
    const whole = await wholeFile(file);
    expect(whole.records).toBeGreaterThan(200);
    for (const blockBytes of [64, 333]) expect(await inBlocks(file, blockBytes, 2)).toMatchObject(whole);
  });

  it('reads again, in this thread, a block read with a header that changed before it', async () => {
    // From tick 40 on, a concatenated log of other GPUs whose header has memory.used before
    // memory.total. Its rows read under either header (both cells are MiB), so the blocks read
    // with the old one send the new GPUs, in calls that are dropped; the blocks after them,
    // read with the new header, still refer to those GPUs.
    const rows = queryLog(80).split('\n').slice(1, -1);
    const otherHeader = HEADER.replace('memory.total [MiB], memory.used [MiB]', 'memory.used [MiB], memory.total [MiB]');
    const rest = rows.slice(160).map((line) => {
      const cells = line.split(', ');
      return [cells[0], cells[1], cells[2]!.replace('GPU-0', 'GPU-9'), cells[3], cells[5], cells[4], ...cells.slice(6)].join(', ');
    });
    const file = write('two-headers.csv', [HEADER, ...rows.slice(0, 160), otherHeader, ...rest, ''].join('\n'));
    const whole = await wholeFile(file);
    expect(whole.records).toBe(320);
    for (const [blockBytes, workers] of [[700, 1], [1_500, 2]] as const) {
      const blocks = await inBlocks(file, blockBytes, workers);
      expect(blocks).toMatchObject(whole);
      expect(blocks.readAgain).toBeGreaterThan(0);
    }
  });

  it('limits warnings over the file, not per block: the first ones with their file line numbers, then one count of the rest', async () => {
    // Every third row has an unreadable memory.used cell: 1,200 rows, 400 warnings.
    const file = write('bad-cells.csv', queryLog(300, (tick, gpu) => ((tick * 4 + gpu) % 3 === 0 ? `2026/11/02 00:00:00.000, NVIDIA H100 80GB HBM3, GPU-0000000${gpu}-aaaa-bbbb-cccc-dddddddddddd, ${gpu}, 81559 MiB, lots MiB, 1 %, 1 %, 100.00 W` : undefined)));
    const whole = await wholeFile(file);
    const warnings = whole.calls.filter((call) => call.startsWith('warn '));
    expect(warnings).toHaveLength(DEFAULT_WARNING_LIMIT + 1);
    // Data row k (from 0) is line k + 2; row 0 is the first bad one.
    expect(warnings[0]).toBe('warn line 2: memory.used [MiB]: cannot read "lots MiB"; value skipped');
    expect(warnings.at(-1)).toBe(`warn line 1201: ${400 - DEFAULT_WARNING_LIMIT} more warnings not listed (only the first ${DEFAULT_WARNING_LIMIT} are kept)`);
    for (const [blockBytes, workers] of [[512, 1], [2_048, 2]] as const) expect(await inBlocks(file, blockBytes, workers)).toMatchObject(whole);
  });

  it('stops at a line too long with the error one thread gives, at the file line, after the same calls', async () => {
    const file = write('long-line.csv', queryLog(100, (tick, gpu) => (tick === 70 && gpu === 2 ? 'x'.repeat(2 * MAX_LINE_CHARS) : undefined)));
    const whole = await wholeFile(file);
    // Row 70 x 4 + 2 = 282 is line 284.
    expect(whole.error).toBe(`long-line.csv: line 284: line longer than ${MAX_LINE_CHARS} characters: not line-oriented telemetry text`);
    for (const [blockBytes, workers] of [[4_096, 1], [65_536, 2], [4_096, 0]] as const) expect(await inBlocks(file, blockBytes, workers)).toEqual(whole);
  });
});

/**
 * The calls of the whole-file parse in blocks of 1,000 and 4,099 bytes, one block and this thread
 * alone; a log whose header changes has small blocks read with the old one read again, and its
 * single block never.
 */
async function expectReadAgainAfterHeaderChange(file: string, whole: Outcome): Promise<void> {
  const readAgain: number[] = [];
  for (const [blockBytes, workers] of [[1_000, 1], [4_099, 2], [1 << 30, 2], [1_000, 0]] as const) {
    const blocks = await inBlocks(file, blockBytes, workers);
    expect(blocks, `blocks of ${blockBytes} bytes`).toMatchObject(whole);
    readAgain.push(blocks.readAgain ?? 0);
  }
  expect(readAgain[0]).toBeGreaterThan(0);
  expect(readAgain[2]).toBe(0);
}

const DMON_HEADER = '#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %      %      %    MHz    MHz ';

/** An `nvidia-smi dmon -o DT` log of 4 GPUs, the header printed again every 20 ticks as dmon does. */
function dmonLog(ticks: number, row?: (tick: number, gpu: number) => string | undefined): string {
  const lines: string[] = [];
  for (let tick = 0; tick < ticks; tick += 1) {
    if (tick % 20 === 0) lines.push(DMON_HEADER);
    const stamp = new Date(Date.UTC(2026, 10, 2, 0, 0, tick)).toISOString();
    const date = stamp.slice(0, 10).replaceAll('-', '');
    for (let gpu = 0; gpu < 4; gpu += 1) {
      lines.push(row?.(tick, gpu) ?? ` ${date}   ${stamp.slice(11, 19)}      ${gpu}    ${300 + ((tick * 7 + gpu) % 300)}     61     55    ${(tick + gpu) % 101}     ${tick % 40}      0      0      0      0   2619   1980 `);
    }
  }
  return `${lines.join('\n')}\n`;
}

describe('reading an nvidia-smi dmon or pmon log in blocks', () => {
  it('gives the calls of the whole-file parse on every corpus dmon and pmon file, in blocks of a few lines', async () => {
    const files = corpusFiles('nvidia-smi-dmon').filter((file) => file.endsWith('.txt'));
    expect(files.filter((file) => file.includes('-pmon-')).length).toBeGreaterThan(3);
    for (const file of files) {
      const whole = await wholeFile(file);
      expect(whole.records, path.basename(file)).toBeGreaterThan(0);
      for (const [blockBytes, workers] of [[97, 1], [200, 2]] as const) {
        expect(await inBlocks(file, blockBytes, workers), `${path.basename(file)}, blocks of ${blockBytes} bytes`).toMatchObject(whole);
      }
    }
  });

  it('gives them on a long -o DT log with repeated headers, bad rows and a header that changes, whatever the blocks', async () => {
    // Every 37th row is cut short, and from tick 150 on the log is of another selection (no
    // mclk and pclk): the blocks read with the old header are read again.
    const cut = dmonLog(300, (tick, gpu) => ((tick * 4 + gpu) % 37 === 0 ? ' 20261102   00:00:00      1     72' : undefined));
    const lines = cut.split('\n');
    const changeAt = lines.findIndex((line, index) => index > 0 && line.startsWith('#Date') && lines.slice(0, index).filter((l) => l.startsWith('#Date')).length === 8);
    const narrowed = [...lines.slice(0, changeAt), ...lines.slice(changeAt).map((line) => line.replace(/\s+\S+\s+\S+\s*$/u, ' '))].join('\n');
    const file = write('dmon-dt.txt', narrowed);
    const whole = await wholeFile(file);
    expect(whole.records).toBeGreaterThan(1_000);
    expect(whole.calls.filter((call) => call.startsWith('warn ')).length).toBeGreaterThan(10);
    await expectReadAgainAfterHeaderChange(file, whole);
  });

  it('gives them on a long pmon log: processes, idle GPUs, a command with a space and a bad pid', async () => {
    const header = '# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command \n# Idx           #    C/G      %      %      %      %      %      %    name ';
    const lines: string[] = [];
    for (let tick = 0; tick < 400; tick += 1) {
      if (tick % 25 === 0) lines.push(header);
      lines.push(`    0      ${11_000 + (tick % 3)}     C     ${tick % 100}      5      -      -      -      -    python3        `);
      lines.push(`    1          -     -      -      -      -      -      -      -    -              `);
      lines.push(tick % 41 === 0 ? '    2      12x45     G      1      1      -      -      -      -    Xorg           ' : `    2       2345     G      1      1      -      -      -      -    NVIDIA Overlay.`);
    }
    const file = write('pmon.txt', `${lines.join('\n')}\n`);
    const whole = await wholeFile(file);
    expect(whole.records).toBeGreaterThan(1_100);
    for (const [blockBytes, workers] of [[900, 1], [3_001, 2], [900, 0]] as const) {
      expect(await inBlocks(file, blockBytes, workers), `blocks of ${blockBytes} bytes`).toMatchObject(whole);
    }
  });
});

/** A `dcgmi dmon` log of 4 GPUs and a MIG instance row, its header printed again every 14 ticks as dcgmi does. */
function dcgmiLog(ticks: number, header = '#Entity   GPUTL  FBUSD   POWER     SMACT'): string {
  const lines: string[] = [];
  for (let tick = 0; tick < ticks; tick += 1) {
    if (tick % 14 === 0) lines.push(header, 'ID');
    for (let gpu = 0; gpu < 4; gpu += 1) {
      lines.push(tick % 23 === gpu ? `GPU ${gpu}     N/A    N/A     N/A       N/A` : `GPU ${gpu}     ${(tick + gpu) % 101}     ${40_000 + tick}   ${(300 + tick % 97).toFixed(3)}   ${((tick % 100) / 100).toFixed(3)}`);
    }
    lines.push(`GPU-I 7   ${tick % 50}     1024    N/A       0.100`);
  }
  return `${lines.join('\n')}\n`;
}

describe('reading a dcgmi dmon log in blocks', () => {
  it('gives the calls of the whole-file parse on every corpus dcgmi dmon file, in blocks of a few lines', async () => {
    const files = corpusFiles('dcgmi').filter((file) => file.includes('dcgmi-dmon-') && !file.includes('field-list'));
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const whole = await wholeFile(file);
      for (const [blockBytes, workers] of [[97, 1], [300, 2]] as const) {
        expect(await inBlocks(file, blockBytes, workers), `${path.basename(file)}, blocks of ${blockBytes} bytes`).toMatchObject(whole);
      }
    }
  });

  it('gives them on a long log with repeated headers, blank readings, MIG rows and a header that changes', async () => {
    // The MIG rows are skipped with one warning for the file; from tick 200 on, another field selection.
    const file = write('dcgmi.txt', dcgmiLog(200) + dcgmiLog(100, '#Entity   GPUTL  FBUSD   POWER     TENSO'));
    const whole = await wholeFile(file);
    expect(whole.records).toBe(300 * 4);
    expect(whole.calls.filter((call) => call.includes('entities skipped'))).toHaveLength(1);
    await expectReadAgainAfterHeaderChange(file, whole);
  });
});

describe('reading an nvidia-smi XML log in blocks, which start at a <?xml line', () => {

  /** A `-l` log of `count` copies of a corpus document, each a second after the one before. */
  const logOf = (document: string, count: number): string[] =>
    Array.from({ length: count }, (_, copy) => document.replace(/<timestamp>[^<]*<\/timestamp>/, `<timestamp>Mon Apr 24 16:22:${String(10 + copy).padStart(2, '0')} 2023</timestamp>`));
  const t4 = (): string => readFileSync(corpusFiles('nvidia-smi-xml').find((file) => file.endsWith('telegraf-tesla-t4.xml'))!, 'utf8');

  it('gives the calls of the whole-file parse on a log of each corpus document, in blocks of a third of a document', async () => {
    for (const source of corpusFiles('nvidia-smi-xml')) {
      const document = readFileSync(source, 'utf8');
      const file = write(path.basename(source), logOf(document, 4).join(''));
      const whole = await wholeFile(file);
      expect(whole.records, path.basename(source)).toBe(4);
      const third = Math.ceil(Buffer.byteLength(document) / 3);
      expect(await inBlocks(file, third, 2), path.basename(source)).toMatchObject(whole);
    }
  });

  it('numbers documents and lines over the file, and gives a value problem once per file', async () => {
    // Every document has an unreadable gpu_util: one warning, at document 1. The third is cut
    // short at a line end, so the next declaration, a block's first line, finds it unfinished.
    const documents = logOf(t4().replace(/<gpu_util>[^<]*<\/gpu_util>/, '<gpu_util>lots %</gpu_util>'), 6);
    documents[2] = documents[2]!.slice(0, documents[2]!.indexOf('<fb_memory_usage>'));
    const file = write('defects.xml', documents.join(''));
    const whole = await wholeFile(file);
    expect(whole.records).toBe(5);
    expect(whole.calls.filter((call) => call.startsWith('warn '))).toEqual([
      'warn document 1: GPU 00000000:00:1E.0: utilization/gpu_util: "lots %" is not a number; value ignored',
      expect.stringMatching(/^warn document 3, line \d+: a new document begins inside <gpu> \(expected <\/gpu>\): the document is cut short; document skipped$/),
    ]);
    for (const [blockBytes, workers] of [[4_000, 1], [9_000, 2], [30_000, 1]] as const) {
      expect(await inBlocks(file, blockBytes, workers), `blocks of ${blockBytes} bytes`).toMatchObject(whole);
    }
  });

  it('a document cut mid-line, and a last one cut short, as one thread reads them', async () => {
    const documents = logOf(t4(), 5);
    documents[1] = documents[1]!.slice(0, documents[1]!.indexOf('<product_name>') + 20);
    documents[4] = documents[4]!.slice(0, documents[4]!.indexOf('</nvidia_smi_log>'));
    const file = write('cut.xml', documents.join(''));
    const whole = await wholeFile(file);
    expect(whole.records).toBe(3);
    expect(whole.calls.filter((call) => call.startsWith('warn '))).toHaveLength(2);
    for (const blockBytes of [2_500, 7_000]) expect(await inBlocks(file, blockBytes, 2)).toMatchObject(whole);
  });

  it('reads the rest of the file in one piece from a block that ends inside a comment running over a <?xml line', async () => {
    // nvidia-smi writes no comments: the blocks after the comment's start cannot be read alone.
    const documents = logOf(t4(), 6);
    documents[2] = documents[2]!.replace('</nvidia_smi_log>', '</nvidia_smi_log>\n<!-- a note\n');
    documents[3] = `${documents[3]!.replace('<?xml', '<?xml-not')}-->\n`;
    const file = write('comment.xml', documents.join(''));
    const whole = await wholeFile(file);
    expect(whole.records).toBe(5);
    const blocks = await inBlocks(file, 6_000, 2);
    expect(blocks).toMatchObject(whole);
    expect(blocks.readAgain).toBe(1);
  });

  it('blocks in which no document starts say nothing of the file end, even before the first readable document', async () => {
    // The first document is cut short just before its end: some 18 KB, nine blocks of 2,000
    // bytes, eight of them empty, read before any document was.
    const documents = logOf(t4(), 3);
    documents[0] = documents[0]!.slice(0, documents[0]!.indexOf('</nvidia_smi_log>'));
    const file = write('late.xml', documents.join(''));
    const whole = await wholeFile(file);
    expect(whole.records).toBe(2);
    expect(await inBlocks(file, 2_000, 2)).toMatchObject(whole);
  });

  it('a log with no readable document fails with the error one thread gives', async () => {
    const broken = logOf(t4(), 4).map((document) => document.slice(0, document.indexOf('<fb_memory_usage>')));
    const file = write('broken.xml', broken.join(''));
    const whole = await wholeFile(file);
    expect(whole.error).toMatch(/^broken\.xml: document 4, line \d+: input ends inside <gpu>/);
    for (const [blockBytes, workers] of [[2_000, 2], [5_000, 2], [5_000, 0]] as const) expect(await inBlocks(file, blockBytes, workers)).toEqual(whole);
  });
});

/**
 * The streaming parsers give the same report whatever the chunking: every corpus file of
 * every format gpu-audit reads is audited once as a file (64 KiB reads) and once through
 * stdin in tiny chunks of random length (1-97 bytes, seeded), which cut inside tags, label
 * sets, numbers and CSV cells; the reports must be equal. A multi-document XML log built from
 * a corpus document is then cut at chosen places (inside a tag, inside a multi-byte
 * character, inside a number, at a document boundary) and at random ones, plain and gzipped.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../bench/generate/random.js';
import { runAudit, type AuditOptions } from '../../src/engine/run-audit.js';
import { loadCatalog } from '../../src/catalog/index.js';
import type { InstanceCatalog } from '../../src/model/catalog.js';
import { InputError } from '../../src/support/errors.js';
import type { Report } from '../../src/model/report.js';
import { corpusFiles, corpusPath } from '../helpers/corpus.js';

/** The corpus folders holding outputs gpu-audit reads (the rest are configs and manifests). */
const FORMAT_FOLDERS = ['nvidia-smi-xml', 'nvidia-smi-csv', 'nvidia-smi-dmon', 'dcgm-exporter', 'dcgmi', 'prometheus-api'];
const MAX_CHUNK_BYTES = 97;

let catalog: InstanceCatalog;
beforeAll(async () => {
  catalog = await loadCatalog({ preferCache: false });
});

function options(inputs: string[], stdin?: Readable): AuditOptions {
  return {
    inputs,
    stdin,
    host: 'corpus-host',
    timeZone: 'UTC',
    idleThresholdPct: 5,
    keepGoing: false,
    pricing: 'on-demand',
    catalog,
    now: () => new Date('2026-12-01T00:00:00Z'),
  };
}

/** `bytes` cut at the given offsets, in order. */
function cutAt(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const chunks: Buffer[] = [];
  let start = 0;
  for (const offset of [...offsets].sort((a, b) => a - b)) {
    if (offset <= start || offset >= bytes.length) continue;
    chunks.push(bytes.subarray(start, offset));
    start = offset;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

function randomCuts(length: number, seed: string): number[] {
  const random = new SeededRandom(seed);
  const offsets: number[] = [];
  for (let offset = random.int(1, MAX_CHUNK_BYTES); offset < length; offset += random.int(1, MAX_CHUNK_BYTES)) offsets.push(offset);
  return offsets;
}

type Outcome = { report: Report } | { error: string };

/** The audit's report (or its input error), with the input's name taken out: the two paths name it differently. */
async function outcome(auditOptions: AuditOptions, filePath?: string): Promise<Outcome> {
  try {
    const { report } = await runAudit(auditOptions);
    const text = JSON.stringify({ ...report, sources: report.sources.map((source) => ({ ...source, ref: '<input>' })) });
    // Warnings may quote the file's path; stdin has none to quote.
    return { report: JSON.parse(filePath === undefined ? text : text.split(JSON.stringify(filePath).slice(1, -1)).join('<input>')) as Report };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { error: `${error.message} @ ${error.location ?? ''}` };
  }
}

const auditFile = (file: string): Promise<Outcome> => outcome(options([file]), file);
const auditChunks = (chunks: Buffer[]): Promise<Outcome> => outcome(options(['-'], Readable.from(chunks)));

describe('every corpus file gives the same report read whole or in tiny chunks', () => {
  const files = FORMAT_FOLDERS.flatMap((folder) => corpusFiles(folder, (name) => !name.endsWith('.md')));

  it('covers every format folder', () => {
    expect(files.length).toBeGreaterThan(90);
  });

  it.each(files.map((file) => [file.slice(corpusPath().length + 1), file]))('%s', async (_name, file) => {
    const bytes = readFileSync(file);
    const whole = await auditFile(file);
    const chunked = await auditChunks(cutAt(bytes, randomCuts(bytes.length, file)));
    expect(chunked).toEqual(whole);
  });
});

describe('a multi-document nvidia-smi -q -x log cut anywhere', () => {
  /**
   * Three documents of telegraf-dual_a5000-v13.xml (2x RTX A5000, llama-server on each), a
   * minute apart. The second has GPU 0 at 37 % and its process renamed to a path with
   * 2-, 3- and 4-byte UTF-8 characters (the corpus has no non-ASCII output), so a cut
   * inside a character would show as U+FFFD in the report.
   */
  const source = readFileSync(corpusPath('nvidia-smi-xml', 'telegraf-dual_a5000-v13.xml'), 'utf8');
  const PROCESS = '/root/src/llama.cpp/build/bin/llama-server';
  const RENAMED = '/srv/jürgen/模型/llama-server-🚀';
  const documents = [
    source,
    source
      .replace('Tue Dec 30 09:46:54 2025', 'Tue Dec 30 09:47:54 2025')
      .replace('<gpu_util>0 %</gpu_util>', '<gpu_util>37 %</gpu_util>')
      .replace(PROCESS, RENAMED),
    source.replace('Tue Dec 30 09:46:54 2025', 'Tue Dec 30 09:48:54 2025'),
  ];
  const log = Buffer.from(documents.join(''), 'utf8');

  /** Byte offsets of chosen cuts, each found in the log itself. */
  const inside = (needle: string, charsIn: number, from = 0): number => {
    const at = log.indexOf(needle, from);
    if (at < 0) throw new Error(`${needle} not in the log`);
    return at + Buffer.byteLength(needle.slice(0, charsIn));
  };
  const secondDocument = log.indexOf('<?xml', 1);
  const chosenCuts = {
    insideATag: inside('<gpu_util>', 4),
    insideAClosingTag: inside('</nvidia_smi_log>', 9),
    // 22430 MiB: a parser that took `224` as the value would report the wrong peak.
    insideANumber: inside('<used_memory>22430 MiB', '<used_memory>224'.length),
    // The 2-byte ü, the 3-byte 模 (cut after its first byte) and the 4-byte 🚀 (after its second).
    insideTwoByteCharacter: inside('jürgen', 1) + 1,
    insideThreeByteCharacter: inside('模型', 0) + 1,
    insideFourByteCharacter: inside('🚀', 0) + 2,
    atDocumentBoundary: secondDocument,
    insideTheNextDeclaration: secondDocument + 3,
  };

  let whole: Outcome;
  beforeAll(async () => {
    whole = await auditChunks([log]);
  });

  it('reads the log whole as three samples per GPU, the renamed process intact', () => {
    expect('report' in whole).toBe(true);
    const { report } = whole as { report: Report };
    expect(report.gpus.map((gpu) => gpu.samples)).toEqual([3, 3]);
    // GPU 0 utilization: 0 %, 37 %, 0 % a minute apart; the peak is 37.
    expect(report.gpus[0]!.utilization?.max).toBe(37);
    const names = report.gpus.flatMap((gpu) => gpu.processes.map((process) => process.name));
    expect(names).toContain(RENAMED);
    // GPU 0's llama-server held 22430 MiB in every document.
    expect(report.gpus[0]!.processes.map((process) => process.maxMemoryMiB)).toContain(22430);
  });

  it.each(Object.entries(chosenCuts))('gives the same report when cut %s', async (_where, offset) => {
    expect(await auditChunks(cutAt(log, [offset]))).toEqual(whole);
  });

  it('gives the same report cut at all those places at once and in 1-97 byte pieces', async () => {
    expect(await auditChunks(cutAt(log, Object.values(chosenCuts)))).toEqual(whole);
    for (const seed of ['a', 'b', 'c']) {
      expect(await auditChunks(cutAt(log, randomCuts(log.length, seed)))).toEqual(whole);
    }
  });

  it('gives the same report gzipped and cut into pieces (inside the gzip stream)', async () => {
    const gzipped = gzipSync(log);
    expect(await auditChunks(cutAt(gzipped, randomCuts(gzipped.length, 'gzip')))).toEqual(whole);
  });
});

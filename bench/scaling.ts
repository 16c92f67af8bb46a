/**
 * `npm run bench:scaling`: the linear-time check. For every parser, inputs whose size doubles
 * three times (8x in all), and the time each takes to parse; likewise crafted inputs that grow
 * one token (a number of 100,000 digits and more in each numeric format, one label value, one
 * DOCTYPE internal subset), and board matching with every GPU on one host. Each case passes when
 * 8x the input takes at most 16x the time (every doubling at most about 2.5x, room for the
 * garbage collector's work growing with the heap): a quadratic path takes 64x. Exits 1 when a case fails; writes bench/SCALING.md. Not part of `npm test`,
 * as no timing is (the guide keeps performance in the bench).
 *
 *   npm run bench:scaling                      every case
 *   npm run bench:scaling -- --only identity   cases whose name contains a word
 *
 * Inputs grow from the corpus beside the project (../shared/corpus): a JSON document by
 * repeating the elements of its longest array, any other text by repeating the whole file (a
 * log of several documents or scrapes, which every text parser reads).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { resolveBoards, type BoardIdentity } from '../src/analysis/identity.js';
import type { ObservationSink } from '../src/model/index.js';
import { detectParser } from '../src/sources/detect.js';
import { sourceParsers } from '../src/sources/registry.js';
import type { SourceParser } from '../src/sources/types.js';
import { writeFileAtomic } from '../src/support/atomic-write.js';
import { repoRoot } from './contenders.js';

/** 8x the input in at most this many times the time. */
const ALLOWED_RATIO = 16;
const DOUBLINGS = 3;
/** The smallest case is grown until it takes this long, so that timer and JIT noise stay small beside it. */
const BASE_MS = 60;
const RUNS = 3;
const PIECE = 64 * 1024;
const CORPUS = path.join(repoRoot, '..', 'shared', 'corpus');

interface Case {
  name: string;
  /** What one unit of size is. */
  unit: string;
  /** The input for `size` units, made before the clock starts, and the work on it: the reason when the input is refused. */
  prepare(size: number): () => Promise<string | undefined> | undefined;
  /** The first size tried; doubled until a run takes BASE_MS, or until it reaches `largestStart`. */
  start: number;
  largestStart: number;
}

const noop = (): void => undefined;
const SINK: ObservationSink = { device: noop, sample: noop, process: noop, warn: noop, assignment: noop, hostCpu: noop, containerCpu: noop, processCpu: noop, serving: noop };

async function* pieces(text: string): AsyncIterable<string> {
  for (let at = 0; at < text.length; at += PIECE) yield text.slice(at, at + PIECE);
}

/** Undefined when read; the message when refused (a cap reached is an answer too: the time to reach it is what is measured). */
async function parseText(parser: SourceParser, text: string): Promise<string | undefined> {
  try {
    await parser.parse(pieces(text), { ref: 'scaling-input', host: 'bench-host', timeZone: 'UTC', reread: () => pieces(text) }, SINK);
    return undefined;
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'InputError') throw error;
    return error.message;
  }
}

function corpusFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    return statSync(full).isDirectory() ? corpusFiles(full) : [full];
  });
}

function readText(file: string): string {
  const bytes = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** Inputs start at most this long, so that 8x stays well within a string's limit (2^29 characters). */
const LARGEST_START_CHARS = 2 ** 25;

/** The longest array of objects in a JSON value (series, items), found depth first. */
function longestArray(value: unknown): unknown[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const ofObjects = Array.isArray(value) && value.every((element) => element !== null && typeof element === 'object' && !Array.isArray(element));
  let best = ofObjects ? value : undefined;
  for (const child of Object.values(value)) {
    const inner = longestArray(child);
    if (inner !== undefined && (best === undefined || inner.length > best.length)) best = inner;
  }
  return best;
}

/** `text` grown `times` over: the longest array of a JSON document repeated, or the whole text. */
function grower(text: string): (times: number) => string {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    const joined = text.endsWith('\n') ? text : `${text}\n`;
    return (times) => joined.repeat(times);
  }
  const array = longestArray(document);
  if (array === undefined || array.length === 0) return (times) => text.repeat(times);
  const original = [...array];
  return (times) => {
    array.length = 0;
    for (let copy = 0; copy < times; copy += 1) array.push(...original);
    return JSON.stringify(document);
  };
}

/** One case per parser: its largest corpus file, grown. */
function parserCases(): Case[] {
  const largest = new Map<SourceParser, { file: string; text: string }>();
  for (const file of corpusFiles(CORPUS)) {
    if (/\.(md|txt\.md)$/.test(file)) continue;
    const text = readText(file);
    const parser = detectParser(text.slice(0, 65_536));
    if (parser === undefined) continue;
    const known = largest.get(parser);
    if (known === undefined || text.length > known.text.length) largest.set(parser, { file, text });
  }
  return sourceParsers.flatMap((parser) => {
    const found = largest.get(parser);
    if (found === undefined) return [];
    const grow = grower(found.text);
    return [{
      name: `${parser.format} (${path.relative(CORPUS, found.file)})`,
      unit: 'copies',
      start: 1,
      largestStart: Math.max(1, Math.floor(LARGEST_START_CHARS / found.text.length)),
      prepare: (size: number) => {
        const text = grow(size);
        return () => parseText(parser, text);
      },
    }];
  });
}

const byFormat = (format: string): SourceParser => sourceParsers.find((parser) => parser.format === format)!;
const digits = (count: number): string => '7'.repeat(count);
const UUID = 'GPU-11111111-2222-3333-4444-555555555555';

/** Inputs that grow one token, the cases of the reliability issue. */
function tokenCases(): Case[] {
  const token = (name: string, format: string, text: (size: number) => string, start = 100_000): Case => ({
    name,
    unit: 'characters',
    start,
    // The issue's sizes (100,000 digits and up), within the 1 MiB line: timed by repetition, not grown.
    largestStart: start,
    prepare: (size) => {
      const input = text(size);
      return () => parseText(byFormat(format), input);
    },
  });
  const labels = `gpu="0",UUID="${UUID}",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="h1"`;
  const xml = (body: string): string => `<?xml version="1.0" ?>\n<nvidia_smi_log>\n<timestamp>Fri Aug  4 11:44:30 2023</timestamp>\n<gpu id="00000000:01:00.0"><uuid>${UUID}</uuid>${body}</gpu>\n</nvidia_smi_log>\n`;
  return [
    token('number token: query-gpu CSV cell', 'nvidia-smi-csv', (size) => `timestamp, uuid, utilization.gpu [%]\n2026/07/14 09:00:44.579, ${UUID}, ${digits(size)} %\n`),
    token('number token: exposition value', 'dcgm-exporter', (size) => `DCGM_FI_DEV_GPU_UTIL{${labels}} ${digits(size)}\n`),
    token('number token: Prometheus JSON value', 'prometheus-json', (size) => JSON.stringify({
      status: 'success', data: { resultType: 'vector', result: [{ metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', UUID, Hostname: 'h1', gpu: '0' }, value: [1_700_000_000, digits(size)] }] },
    })),
    token('number token: dcgmi dmon field', 'dcgmi-dmon', (size) => `#Entity   GPUTL\nID\nGPU 0     ${digits(size)}\n`),
    token('number token: XML element', 'nvidia-smi-xml', (size) => xml(`<utilization><gpu_util>${digits(size)} %</gpu_util></utilization>`)),
    token('label value: exposition', 'dcgm-exporter', (size) => `DCGM_FI_DEV_GPU_UTIL{${labels},pod="${'p'.repeat(size)}"} 50\n`),
    token('DOCTYPE internal subset: XML', 'nvidia-smi-xml', (size) => xml('').replace('<nvidia_smi_log>', `<!DOCTYPE nvidia_smi_log [\n<!-- ${'x'.repeat(size)} -->\n]>\n<nvidia_smi_log>`)),
  ];
}

/** Board matching with every GPU on one host: each board seen by uuid and bus id, and again by index alone. */
function identityCase(): Case {
  return {
    name: 'identity: GPUs on one host',
    unit: 'GPUs',
    start: 2_500,
    largestStart: 2 ** 20,
    prepare: (size) => {
      const identities: BoardIdentity[] = [];
      for (let gpu = 0; gpu < size; gpu += 1) {
        const busId = `0000${(gpu >> 8).toString(16).padStart(4, '0')}:${(gpu & 0xff).toString(16).padStart(2, '0')}:00.0`.toUpperCase();
        identities.push({ host: 'h', uuid: `GPU-${gpu.toString(16).padStart(8, '0')}-0000-0000-0000-000000000000`, pciBusId: busId, index: gpu });
        identities.push({ host: 'h', index: gpu });
      }
      return () => {
        resolveBoards(identities);
        return undefined;
      };
    },
  };
}

/** The best of RUNS attempts, each `repeats` runs in a row, in ms per run. */
async function bestMs(run: () => Promise<unknown> | undefined, repeats = 1): Promise<number> {
  let best = Infinity;
  for (let attempt = 0; attempt < RUNS; attempt += 1) {
    const started = process.hrtime.bigint();
    for (let repeat = 0; repeat < repeats; repeat += 1) await run();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6 / repeats);
  }
  return best;
}

interface Outcome {
  name: string;
  unit: string;
  sizes: number[];
  ms: number[];
  ratio: number;
  passed: boolean;
  /** Why the largest input was refused, if it was. */
  refused: string | undefined;
}

async function measureCase(scalingCase: Case): Promise<Outcome> {
  let size = scalingCase.start;
  await scalingCase.prepare(size)(); // warm the JIT before anything is timed
  while (size * 2 <= scalingCase.largestStart && (await bestMs(scalingCase.prepare(size))) < BASE_MS) size *= 2;
  // Too quick to time alone: each attempt repeats the run, as often at every size.
  let repeats = 1;
  const smallest = scalingCase.prepare(size);
  while (repeats < 1024 && (await bestMs(smallest, repeats)) * repeats < BASE_MS) repeats *= 2;
  const sizes: number[] = [];
  const ms: number[] = [];
  let refused: string | undefined;
  for (let step = 0; step <= DOUBLINGS; step += 1) {
    const run = scalingCase.prepare(size);
    sizes.push(size);
    ms.push(await bestMs(run, repeats));
    refused = await run();
    size *= 2;
  }
  const ratio = ms[ms.length - 1]! / ms[0]!;
  return { name: scalingCase.name, unit: scalingCase.unit, sizes, ms, ratio, passed: ratio <= ALLOWED_RATIO, refused };
}

function formatMs(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

function table(outcomes: readonly Outcome[]): string {
  const rows = outcomes.map((outcome) => {
    const times = outcome.ms.map(formatMs).join(' / ');
    const largest = outcome.refused === undefined ? 'read' : `refused: ${outcome.refused.replaceAll('|', '\\|')}`;
    return `| ${outcome.name} | ${outcome.sizes[0]!.toLocaleString('en-US')} ${outcome.unit} | ${times} | ${outcome.ratio.toFixed(1)}x | ${outcome.passed ? 'linear' : '**FAILED**'} | ${largest} |`;
  });
  return [
    '| Case | Smallest size | ms at 1x / 2x / 4x / 8x | 8x size takes | Verdict | Largest input |',
    '|---|---:|---:|---:|---|---|',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { only: { type: 'string' }, 'no-write': { type: 'boolean', default: false } } });
  const cases = [...parserCases(), ...tokenCases(), identityCase()].filter((entry) => values.only === undefined || entry.name.includes(values.only));
  const outcomes: Outcome[] = [];
  for (const entry of cases) {
    const outcome = await measureCase(entry);
    outcomes.push(outcome);
    console.log(`${outcome.passed ? 'ok    ' : 'FAILED'} ${outcome.name}: ${outcome.ms.map(formatMs).join(' / ')} ms (${outcome.ratio.toFixed(1)}x for 8x)${outcome.refused === undefined ? '' : `, the largest refused: ${outcome.refused}`}`);
  }
  const markdown = [
    '# Linear time: inputs whose size doubles',
    '',
    `Written by \`npm run bench:scaling\` (bench/scaling.ts) on ${new Date().toISOString().slice(0, 10)}, Node.js ${process.version}. Each figure is the best of ${RUNS} attempts per size, in ms per run; the smallest size is grown until a run takes ${BASE_MS} ms (token cases stay at the issue's sizes and repeat the run instead). A case passes when 8x the input takes at most ${ALLOWED_RATIO}x the time (a quadratic path takes 64x).`,
    '',
    table(outcomes),
    '',
  ].join('\n');
  if (!values['no-write']) writeFileAtomic(path.join(repoRoot, 'bench', 'SCALING.md'), markdown);
  const failed = outcomes.filter((outcome) => !outcome.passed);
  if (failed.length > 0) {
    console.error(`${failed.length} case(s) grew faster than linear: ${failed.map((outcome) => outcome.name).join('; ')}`);
    process.exitCode = 1;
  }
}

await main();

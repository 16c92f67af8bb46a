/**
 * Which inputs are parsed in a worker: large regular files (a worker's start costs more than it
 * saves on a small one), never stdin, and as GPU_AUDIT_WORKERS says.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STDIN_REF, type InputRef } from '../../../src/sources/inputs.js';
import {
  blockWorkerCount,
  PARSE_BLOCK_BYTES,
  PARSE_WORKER_MIN_BYTES,
  parseBlockBytesOf,
  parsesInWorker,
  parseWorkerModeOf,
  readTail,
  TAIL_BYTES,
  type ParseWorkerMode,
} from '../../../src/sources/parallel/policy.js';

let directory: string;
const file = (name: string): InputRef => ({ ref: name, path: path.join(directory, name), discovered: false });
/** What openInput says of an input's size: a regular file's, else undefined. */
function bytesOf(input: InputRef): number | undefined {
  if (input.path === undefined) return undefined;
  try {
    const info = statSync(input.path);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
}
const shouldParseInWorker = async (input: InputRef, mode: ParseWorkerMode): Promise<boolean> => parsesInWorker(bytesOf(input), mode);

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-worker-policy-'));
  // Sparse files: their size counts, their bytes take no disk.
  for (const [name, size] of [['at-threshold.csv', PARSE_WORKER_MIN_BYTES], ['just-below.csv', PARSE_WORKER_MIN_BYTES - 1]] as const) {
    writeFileSync(path.join(directory, name), '');
    truncateSync(path.join(directory, name), size);
  }
  writeFileSync(path.join(directory, 'small.csv'), 'index, utilization.gpu [%]\n0, 5 %\n');
  mkdirSync(path.join(directory, 'folder'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('auto', () => {
  it('a file of 32 MiB or more, on a machine of two cores or more', async () => {
    expect(PARSE_WORKER_MIN_BYTES).toBe(32 * 1024 * 1024);
    expect(await shouldParseInWorker(file('at-threshold.csv'), 'auto')).toBe(availableParallelism() >= 2);
    expect(await shouldParseInWorker(file('just-below.csv'), 'auto')).toBe(false);
    expect(await shouldParseInWorker(file('small.csv'), 'auto')).toBe(false);
  });
});

describe('always and never', () => {
  it('always: every regular file, whatever its size; never: none', async () => {
    expect(await shouldParseInWorker(file('small.csv'), 'always')).toBe(true);
    expect(await shouldParseInWorker(file('at-threshold.csv'), 'never')).toBe(false);
  });

  it('stdin, a directory or a vanished file: never, not even with always', async () => {
    expect(await shouldParseInWorker({ ref: STDIN_REF, path: undefined, discovered: false }, 'always')).toBe(false);
    expect(await shouldParseInWorker(file('folder'), 'always')).toBe(false);
    expect(await shouldParseInWorker(file('gone.csv'), 'always')).toBe(false);
  });
});

describe('the tail a parser is shown (SourceParser.sendsAllAtEnd)', () => {
  it('is the last TAIL_BYTES of a file, or all of a shorter one', async () => {
    const long = path.join(directory, 'long.prom');
    const text = Array.from({ length: 20_000 }, (_, line) => `line ${line}`).join('\n');
    writeFileSync(long, text);
    expect(await readTail(long, text.length)).toBe(text.slice(-TAIL_BYTES));
    const small = path.join(directory, 'small.csv');
    expect(await readTail(small, statSync(small).size)).toBe('index, utilization.gpu [%]\n0, 5 %\n');
  });
});

describe('GPU_AUDIT_WORKERS', () => {
  it('0 or never turns workers off, always forces them, anything else is auto', () => {
    expect(parseWorkerModeOf({ GPU_AUDIT_WORKERS: '0' })).toBe('never');
    expect(parseWorkerModeOf({ GPU_AUDIT_WORKERS: 'never' })).toBe('never');
    expect(parseWorkerModeOf({ GPU_AUDIT_WORKERS: 'ALWAYS' })).toBe('always');
    expect(parseWorkerModeOf({ GPU_AUDIT_WORKERS: '1' })).toBe('auto');
    expect(parseWorkerModeOf({})).toBe('auto');
  });
});

describe('reading one file in blocks', () => {
  it('blocks of 8 MiB, or as GPU_AUDIT_BLOCK_BYTES says when it is a positive whole number', () => {
    expect(PARSE_BLOCK_BYTES).toBe(8 * 1024 * 1024);
    expect(parseBlockBytesOf({})).toBe(PARSE_BLOCK_BYTES);
    expect(parseBlockBytesOf({ GPU_AUDIT_BLOCK_BYTES: '4096' })).toBe(4096);
    for (const odd of ['0', '-5', '1.5', 'lots', '']) expect(parseBlockBytesOf({ GPU_AUDIT_BLOCK_BYTES: odd }), odd).toBe(PARSE_BLOCK_BYTES);
  });

  it('one worker per core but the replaying thread, at least one, at most three', () => {
    expect(blockWorkerCount()).toBe(Math.min(3, Math.max(1, availableParallelism() - 1)));
  });
});

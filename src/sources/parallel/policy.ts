/**
 * When an input is parsed in a worker thread (parse-in-worker.ts). Cheap to import: the worker
 * machinery itself loads only when this says yes.
 */
import { availableParallelism } from 'node:os';
import { open } from 'node:fs/promises';

/**
 * Files from this size up are parsed in a worker. Starting a worker and loading the parsers in
 * it costs about what parsing a few MiB costs; from this size the overlap with the analysis
 * saves more than that (bench/MEASUREMENTS.md). Below it, one thread is as fast and starts
 * nothing. A gzipped file counts by its
 * compressed size: it holds several times more text, which only makes the worker pay more.
 */
export const PARSE_WORKER_MIN_BYTES = 32 * 1024 * 1024;

/** `auto`: large regular files on a machine with more than one core; `always`: every file (tests, debugging); `never`. */
export type ParseWorkerMode = 'auto' | 'always' | 'never';

/** Environment variable that sets the mode: `0` (never), `always`; anything else, or unset, is `auto`. */
export const PARSE_WORKERS_ENV = 'GPU_AUDIT_WORKERS';

export function parseWorkerModeOf(env: NodeJS.ProcessEnv): ParseWorkerMode {
  const value = env[PARSE_WORKERS_ENV]?.trim().toLowerCase();
  if (value === '0' || value === 'never') return 'never';
  if (value === 'always') return 'always';
  return 'auto';
}

/**
 * Blocks a file is cut into where several threads read it (parse-in-blocks.ts): two batches'
 * worth of text each (protocol.ts BATCH_MAX_TEXT), so that a worker can finish its block while
 * the one before is replayed, and the threads' shares of the file end within a block of each
 * other. Each block starts a fresh reader: its caches fill again, a device's inventory is sent
 * again, which costs nothing measurable at this size.
 */
export const PARSE_BLOCK_BYTES = 8 * 1024 * 1024;

/** Environment variable that sets the block size in bytes, for tests and debugging. */
export const PARSE_BLOCK_BYTES_ENV = 'GPU_AUDIT_BLOCK_BYTES';

/**
 * Workers that read one file in blocks, besides the main thread, which replays their blocks and
 * reads blocks itself whenever it would wait for them: one per core but the main thread's, at
 * most three (beyond that, the replay and analysis in one thread are the bound).
 */
export function blockWorkerCount(): number {
  return Math.min(3, Math.max(1, availableParallelism() - 1));
}

/**
 * Whether an input of `bytes` bytes (OpenedInput.bytes: undefined for stdin and anything but a
 * regular file, which a worker cannot reopen) is parsed in a worker, as `mode` says.
 */
export function parsesInWorker(bytes: number | undefined, mode: ParseWorkerMode): boolean {
  if (bytes === undefined) return false;
  return mode === 'always' || (mode === 'auto' && bytes >= PARSE_WORKER_MIN_BYTES && availableParallelism() >= 2);
}

/** The block size `env` sets (PARSE_BLOCK_BYTES_ENV), else PARSE_BLOCK_BYTES. */
export function parseBlockBytesOf(env: NodeJS.ProcessEnv): number {
  const value = Number(env[PARSE_BLOCK_BYTES_ENV]);
  return Number.isSafeInteger(value) && value > 0 ? value : PARSE_BLOCK_BYTES;
}

/** What SourceParser.sendsAllAtEnd is shown of a file's end. */
export const TAIL_BYTES = 64 * 1024;

/** The last TAIL_BYTES of the file at `path` (of `bytes` bytes) as text; a character cut at the start is replaced. */
export async function readTail(path: string, bytes: number): Promise<string> {
  const length = Math.min(TAIL_BYTES, bytes);
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, bytes - length);
    return buffer.toString('utf8', 0, bytesRead);
  } finally {
    await file.close();
  }
}

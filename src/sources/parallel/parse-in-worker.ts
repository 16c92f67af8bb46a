/**
 * Parsing in a worker thread while the main thread analyses (issue 8: "use worker threads over
 * files where it pays"). On a large log, parsing takes two to three times as long as the
 * analysis of what it yields; in two threads the two overlap on two cores.
 *
 * The worker opens the input itself and runs the parser against a proxy sink (call-encoder.ts);
 * this thread replays every call, in order, on the real sink (call-decoder.ts), so the analysis
 * sees the same calls with the same values as when the parser runs here: the report is the same.
 *
 * Loaded on demand (audit.ts imports it only for a large file), with node:worker_threads, so
 * that a small audit starts without either.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type * as Esbuild from 'esbuild';
import type { ObservationSink } from '../../model/index.js';
import type { ParseResult } from '../types.js';
import { CallDecoder } from './call-decoder.js';
import { deserializeError } from './errors.js';
import type { AckMessage, BlockJob, ParseJob, WorkerMessage } from './protocol.js';

export interface WorkerParseResult extends ParseResult {
  /** Batches replayed. */
  batches: number;
  /** The most batches the worker had posted and not yet seen replayed (at most MAX_BATCHES_AHEAD). */
  mostBatchesAhead: number;
}

/** Parses `job.input` in a worker thread, replaying what the parser observes on `sink`; the worker is gone when this settles. */
export async function parseInWorker(job: ParseJob, sink: ObservationSink): Promise<WorkerParseResult> {
  const worker = startParseWorker(job);
  const decoder = new CallDecoder();
  let batches = 0;
  let mostBatchesAhead = 0;
  let settled = false;
  try {
    return await new Promise<WorkerParseResult>((resolve, reject) => {
      const fail = (error: unknown): void => {
        settled = true;
        reject(error);
      };
      worker.on('message', (message: WorkerMessage) => {
        // After a failure, batches still in the queue must not reach the sink.
        if (settled) return;
        switch (message.type) {
          case 'batch': {
            try {
              decoder.replay(message, sink);
            } catch (error) {
              return fail(error);
            }
            batches += 1;
            mostBatchesAhead = Math.max(mostBatchesAhead, message.ahead);
            const ack: AckMessage = { type: 'ack', buffer: message.buffer };
            worker.postMessage(ack, [message.buffer]);
            return;
          }
          case 'done':
            settled = true;
            return resolve({ records: message.records, batches, mostBatchesAhead });
          case 'failed':
            return fail(deserializeError(message.error));
        }
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (!settled) fail(new Error(`the parse worker stopped (exit code ${code}) before it finished ${job.input.ref}`));
      });
    });
  } finally {
    settled = true;
    await worker.terminate();
  }
}

/**
 * The worker's entry is parse-worker beside this module, in the form this module was loaded
 * in: the CLI's bundle (dist/bundle/gpu-audit.cjs, beside parse-worker.cjs) or tsc's dist/ (.js).
 */
function workerEntry(): URL {
  const here = import.meta.url;
  return new URL(`./parse-worker${path.extname(fileURLToPath(here))}`, here);
}

/**
 * Whether a worker can be started: false where this module was bundled into someone else's
 * program without parse-worker beside it (then the input is parsed in the calling thread).
 */
export function parseWorkerInstalled(): boolean {
  return existsSync(workerEntry());
}

/**
 * The worker's young generation, in MB: a third of V8's default. What a parser allocates dies
 * within a chunk or lives for the input (devices, label sets), so a smaller nursery costs
 * little CPU and lowers the peak memory (bench/MEASUREMENTS.md).
 */
const WORKER_YOUNG_GENERATION_MB = 16;

/** A worker running `job` (parse-worker.ts); its messages are the caller's to handle. */
export function startParseWorker(job: ParseJob | BlockJob): Worker {
  const entry = workerEntry();
  const options = { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } };
  if (entry.pathname.endsWith('.ts')) return new Worker(workerScriptFromSources(fileURLToPath(entry)), { ...options, eval: true });
  return new Worker(entry, options);
}

let scriptFromSources: string | undefined;

/**
 * The TypeScript sources (under vitest or tsx): a worker cannot load .ts by itself, and a
 * TypeScript loader in each worker costs about half a second. The entry is bundled once per
 * process instead, with esbuild, a dev dependency (the installed CLI runs the parse-worker.cjs
 * that its build made), and each worker runs that script.
 */
function workerScriptFromSources(entry: string): string {
  if (scriptFromSources === undefined) {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
    const built = esbuild.buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'error' });
    scriptFromSources = built.outputFiles[0]!.text;
  }
  return scriptFromSources;
}

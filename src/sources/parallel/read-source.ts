/**
 * One input parsed where it is cheapest: in this thread, in a worker thread beside the
 * analysis, or in blocks by several workers (a large file whose format allows it). Every way
 * sends the same observations in the same order; the policy is ./policy.ts.
 */
import type { ObservationSink } from '../../model/index.js';
import type { InputRef, OpenedInput } from '../inputs.js';
import { rereadOf } from '../inputs.js';
import type { ParseResult, SourceContext, SourceParser } from '../types.js';
import { blockWorkerCount, PARSE_BLOCK_BYTES, parsesInWorker, readTail, type ParseWorkerMode } from './policy.js';

/** How inputs are parsed: the CLI sets these from GPU_AUDIT_WORKERS and GPU_AUDIT_BLOCK_BYTES; tests force a way. */
export interface ParsePerformance {
  /** Parse large files in a worker thread (default `auto`: from PARSE_WORKER_MIN_BYTES). */
  parseWorkers?: ParseWorkerMode;
  /** Block size, in bytes, where workers read one file in blocks (./parse-in-blocks.ts). */
  parseBlockBytes?: number;
}

export async function parseSource(
  input: InputRef,
  opened: OpenedInput,
  parser: SourceParser,
  context: SourceContext,
  sink: ObservationSink,
  performance: ParsePerformance = {},
): Promise<ParseResult> {
  const mode = performance.parseWorkers ?? 'auto';
  const bytes = opened.bytes;
  const inWorker = parsesInWorker(bytes, mode);
  // A file that sends everything at its end (one scrape) is read here: a worker would overlap nothing.
  const allAtEnd = mode === 'auto' && inWorker && !opened.compressed && input.path !== undefined && bytes !== undefined
    && parser.sendsAllAtEnd?.(opened.head, await readTail(input.path, bytes)) === true;
  const worker = inWorker && !allAtEnd ? await import('./parse-in-worker.js') : undefined;
  if (worker?.parseWorkerInstalled() !== true) {
    return parser.parse(opened.chunks, { ...context, reread: rereadOf(input, opened, parser.textPieceBytes) }, sink);
  }
  // The worker reads the file itself: this thread's stream was only for the head.
  opened.close();
  if (parser.blocks !== undefined && !opened.compressed && input.path !== undefined && bytes !== undefined) {
    const { parseInBlocks } = await import('./parse-in-blocks.js');
    const request = { input, context, path: input.path, fileBytes: bytes, blockBytes: performance.parseBlockBytes ?? PARSE_BLOCK_BYTES, workers: blockWorkerCount() };
    return parseInBlocks(request, parser, opened.head, sink);
  }
  return worker.parseInWorker({ input, format: parser.format, context }, sink);
}

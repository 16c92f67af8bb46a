/**
 * The worker thread's work: open the input, parse it with the parser the main thread chose,
 * and post what the parser observed in batches of about a megabyte (protocol.ts BATCH_MIN_NUMBERS
 * and the rules after it), never more than MAX_BATCHES_AHEAD ahead of the main thread's replay.
 * A block worker does the same for each block of a file it is sent (runBlockJob).
 */
import type { MessagePort } from 'node:worker_threads';
import { parseFileBlock } from './file-blocks.js';
import { sourceParsers } from '../registry.js';
import { openInput, rereadOf } from '../inputs.js';
import type { SourceParser } from '../types.js';
import { CallEncoder } from './call-encoder.js';
import { serializeError } from './errors.js';
import {
  BATCH_MAX_TEXT,
  BLOCK_BATCHES_AHEAD,
  fileBlockOf,
  MAX_BATCHES_AHEAD,
  type AckMessage,
  type BlockAssignment,
  type BlockJob,
  type ParseJob,
  type WorkerMessage,
} from './protocol.js';

export async function runParseJob(job: ParseJob, port: MessagePort): Promise<void> {
  const poster = new BatchPoster(port, MAX_BATCHES_AHEAD);
  port.on('message', (ack: AckMessage) => poster.acknowledged(ack));
  try {
    const parser = parserOf(job.format);
    const opened = await openInput(job.input);
    opened.setTextPieceBytes(parser.textPieceBytes);
    try {
      const context = { ...job.context, reread: rereadOf(job.input, opened, parser.textPieceBytes) };
      const result = await parser.parse(poster.flushingBetween(opened.chunks), context, poster.encoder);
      await poster.flush();
      poster.post({ type: 'done', records: result.records });
    } finally {
      opened.close();
    }
  } catch (error) {
    await poster.fail(error);
  }
}

/** Parses the blocks it is sent, one at a time, in the order sent; the main thread ends the worker. */
export function runBlockJob(job: BlockJob, port: MessagePort): void {
  const poster = new BatchPoster(port, BLOCK_BATCHES_AHEAD);
  const assignments: BlockAssignment[] = [];
  let running = false;
  const runNext = async (): Promise<void> => {
    running = true;
    for (let assignment = assignments.shift(); assignment !== undefined; assignment = assignments.shift()) {
      try {
        const parser = parserOf(job.format);
        if (parser.blocks === undefined) throw new Error(`parse worker: the parser of format ${job.format} cannot read blocks`);
        const block = fileBlockOf(job, assignment.index, parser.textPieceBytes);
        const { result, endOfFile } = await parseFileBlock(parser.blocks, block, job.context, poster.encoder, assignment.state, (text) => poster.flushingBetween(text));
        await poster.flush();
        poster.post({ type: 'block-done', result, endOfFile });
      } catch (error) {
        await poster.fail(error);
      }
    }
    running = false;
  };
  port.on('message', (message: AckMessage | BlockAssignment) => {
    if (message.type === 'ack') return poster.acknowledged(message);
    assignments.push(message);
    if (!running) void runNext();
  });
}

function parserOf(format: string): SourceParser {
  const parser = sourceParsers.find((candidate) => candidate.format === format);
  if (parser === undefined) throw new Error(`parse worker: no parser of format ${format}`);
  return parser;
}

/** The encoder the parser writes to, and the posting of its batches, paced by the main thread's acks. */
class BatchPoster {
  readonly encoder = new CallEncoder();
  private ahead = 0;
  private wake: (() => void) | undefined;

  /** `maxAhead`: batches posted and not yet acknowledged, at most. */
  constructor(
    private readonly port: MessagePort,
    private readonly maxAhead: number,
  ) {
    // A parser sending much between two reads (ObservationSink.pause): post each batch as it fills.
    this.encoder.onPause = async () => {
      if (this.encoder.isFull) await this.flush();
    };
  }

  post(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
    this.port.postMessage(message, transfer);
  }

  acknowledged(ack: AckMessage): void {
    this.ahead -= 1;
    this.encoder.recycle(ack.buffer);
    this.wake?.();
    this.wake = undefined;
  }

  /** Posts the calls recorded so far, once the main thread is less than `maxAhead` batches behind. */
  async flush(): Promise<void> {
    if (this.encoder.isEmpty) return;
    while (this.ahead >= this.maxAhead) await new Promise<void>((resolve) => (this.wake = resolve));
    const batch = this.encoder.takeBatch();
    this.ahead += 1;
    this.post({ type: 'batch', ...batch, ahead: this.ahead }, [batch.buffer]);
  }

  /**
   * What the parser observed before it threw reaches the sink first, as it would in one thread.
   * Should that post fail too, the parse's own error is still the one to report.
   */
  async fail(error: unknown): Promise<void> {
    await this.flush().catch(() => undefined);
    this.post({ type: 'failed', error: serializeError(error) });
  }

  /**
   * The chunks, with a flush when the parser asks for the next one and the calls recorded
   * since the last batch make one (CallEncoder.isFull), or BATCH_MAX_TEXT of text went by
   * since; while the main thread is behind, reading waits.
   */
  async *flushingBetween(chunks: AsyncIterable<string>): AsyncIterable<string> {
    let textSinceBatch = 0;
    for await (const chunk of chunks) {
      yield chunk;
      textSinceBatch += chunk.length;
      if (this.encoder.isFull || textSinceBatch >= BATCH_MAX_TEXT) {
        await this.flush();
        textSinceBatch = 0;
      }
    }
  }
}

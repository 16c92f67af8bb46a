/**
 * The worker thread's work: open the input, parse it with the parser the main thread chose,
 * and post what the parser observed in batches of about a megabyte (protocol.ts BATCH_MIN_NUMBERS
 * and the rules after it), never more than MAX_BATCHES_AHEAD ahead of the main thread's replay.
 */
import type { MessagePort } from 'node:worker_threads';
import { sourceParsers } from '../index.js';
import { openInput } from '../inputs.js';
import { CallEncoder } from './call-encoder.js';
import { serializeError } from './errors.js';
import { BATCH_MAX_TEXT, MAX_BATCHES_AHEAD, type AckMessage, type ParseJob, type WorkerMessage } from './protocol.js';

export async function runParseJob(job: ParseJob, port: MessagePort): Promise<void> {
  const encoder = new CallEncoder();
  let ahead = 0;
  let wake: (() => void) | undefined;
  port.on('message', (ack: AckMessage) => {
    ahead -= 1;
    encoder.recycle(ack.buffer);
    wake?.();
    wake = undefined;
  });
  const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

  /** Posts the calls recorded so far, once the main thread is less than MAX_BATCHES_AHEAD behind. */
  const flush = async (): Promise<void> => {
    if (encoder.isEmpty) return;
    while (ahead >= MAX_BATCHES_AHEAD) await new Promise<void>((resolve) => (wake = resolve));
    const batch = encoder.takeBatch();
    ahead += 1;
    post({ type: 'batch', ...batch, ahead }, [batch.buffer]);
  };

  try {
    const parser = sourceParsers.find((candidate) => candidate.format === job.format);
    if (parser === undefined) throw new Error(`parse worker: no parser of format ${job.format}`);
    const opened = await openInput(job.input);
    opened.setTextPieceBytes(parser.textPieceBytes);
    try {
      const result = await parser.parse(flushingBetween(opened.chunks, encoder, flush), job.context, encoder);
      await flush();
      post({ type: 'done', records: result.records });
    } finally {
      opened.close();
    }
  } catch (error) {
    // What the parser observed before it threw reaches the sink first, as it would in one thread.
    // Should that post fail too, the parse's own error is still the one to report.
    await flush().catch(() => undefined);
    post({ type: 'failed', error: serializeError(error) });
  }
}

/**
 * The chunks, with `flush` run when the parser asks for the next one and the calls recorded
 * since the last batch make one (CallEncoder.isFull), or BATCH_MAX_TEXT of text went by
 * since; while the main thread is behind, reading waits.
 */
async function* flushingBetween(chunks: AsyncIterable<string>, encoder: CallEncoder, flush: () => Promise<void>): AsyncIterable<string> {
  let textSinceBatch = 0;
  for await (const chunk of chunks) {
    yield chunk;
    textSinceBatch += chunk.length;
    if (encoder.isFull || textSinceBatch >= BATCH_MAX_TEXT) {
      await flush();
      textSinceBatch = 0;
    }
  }
}

/**
 * One large file read by several workers at once: it is cut into blocks of whole lines
 * (file-blocks.ts), each worker parses the blocks it is sent (SourceParser.blocks), and this
 * thread replays their calls on the sink in file order, so the analysis sees what it sees when
 * one thread reads the file. One parse worker (parse-in-worker.ts) is the bound on a long CSV
 * log, with the analysis idle half the time; two share the parse.
 *
 * What a block needs from the text before it, its `state`, is known only once the blocks before
 * it are replayed. A block is sent with the state in effect at the last block replayed (for a
 * CSV log, its first header nearly always); when its turn comes and the state in effect differs
 * (the header changed in a block before it), its calls are dropped and it is read again here.
 * Its line numbers, warnings and warning limit are made the file's here (see BlockParsing).
 */
import type { Worker } from 'node:worker_threads';
import { InputError } from '../../model/errors.js';
import type { ObservationSink } from '../../model/observations.js';
import { blockCountOf, blockText } from '../file-blocks.js';
import { WarningLimiter } from '../text/warnings.js';
import type { BlockResult, ParseResult, SourceParser } from '../types.js';
import { CallDecoder } from './call-decoder.js';
import { deserializeError } from './errors.js';
import { startParseWorker } from './parse-in-worker.js';
import { fileBlockOf, type AckMessage, type BlockAssignment, type BlockJob, type WorkerMessage } from './protocol.js';

export interface BlockParseResult extends ParseResult {
  blocks: number;
  /** Blocks read in this thread (those read again included). */
  blocksReadHere: number;
  /** Blocks read again in this thread because they were sent with a state that turned out wrong. */
  blocksReadAgain: number;
}

type BatchMessage = Extract<WorkerMessage, { type: 'batch' }>;
type Outcome = { result: BlockResult } | { error: Error };

interface WorkerLink {
  worker: Worker;
  /** Each worker numbers refs its own way. */
  decoder: CallDecoder;
  /** The blocks it was sent and has not finished, in order: it parses the first. */
  queue: Block[];
}

interface Block {
  index: number;
  /** The state it was sent with. */
  assumed: string | undefined;
  link: WorkerLink;
  /** Batches that came before its turn. */
  held: BatchMessage[];
  /** Its turn came: batches replay as they come. */
  started: boolean;
  /** It was sent with the wrong state: its batches are dropped and it is read again here. */
  readAgain: boolean;
  outcome: Outcome | undefined;
}

/** A plain file to read in blocks. */
export interface BlockRequest extends Pick<BlockJob, 'input' | 'context' | 'path' | 'blockBytes'> {
  /** Its size when it was planned (the last block reads on to the end). */
  fileBytes: number;
  /** Workers to start (at most one per block). */
  workers: number;
}

/**
 * Parses `request.path` in blocks with `parser`, replaying on `sink`; the workers are gone when
 * this settles. `head` is the file's detection head (for the state blocks start in).
 */
export async function parseInBlocks(request: BlockRequest, parser: SourceParser, head: string, sink: ObservationSink): Promise<BlockParseResult> {
  const blocks = parser.blocks;
  if (blocks === undefined) throw new Error(`the parser of format ${parser.format} cannot read blocks`);
  const { fileBytes, workers: workerCount, ...rest } = request;
  const job: BlockJob = { ...rest, kind: 'blocks', format: parser.format, blockCount: blockCountOf(fileBytes, request.blockBytes) };
  const limiter = new WarningLimiter(sink);
  let linesBefore = 0;
  // The calls of the block whose turn it is, with its locations made the file's.
  const blockSink: ObservationSink = {
    device: (info) => sink.device(info),
    sample: (sample) => sink.sample(sample),
    process: (process) => sink.process(process),
    assignment: (assignment) => sink.assignment?.(assignment),
    hostCpu: (sample) => sink.hostCpu?.(sample),
    containerCpu: (sample) => sink.containerCpu?.(sample),
    processCpu: (sample) => sink.processCpu?.(sample),
    warn: (warning) => limiter.warn(fileLineLocation(warning.location, linesBefore), warning.message),
  };

  const links: WorkerLink[] = [];
  /** Blocks by index, as sent to a worker (undefined: read here). */
  const sent: (Block | undefined)[] = [];
  let turn = 0;
  let state: string | undefined;
  let sendState = blocks.initialState(head);
  let records = 0;
  let blocksReadAgain = 0;
  let blocksReadHere = 0;
  let nextIndex = 0;
  let pumping = false;
  let settled = false;

  /** Sends `link` its next block, if any is left for workers (the rest are read here). */
  const send = (link: WorkerLink): void => {
    let index = nextIndex;
    while (index < job.blockCount && readsHere(index, links.length)) index += 1;
    nextIndex = index + 1;
    if (index >= job.blockCount) return;
    const block: Block = { index, assumed: index === 0 ? undefined : sendState, link, held: [], started: false, readAgain: false, outcome: undefined };
    sent[index] = block;
    link.queue.push(block);
    const assignment: BlockAssignment = { type: 'block', index, state: block.assumed };
    link.worker.postMessage(assignment);
  };

  const replay = (link: WorkerLink, batch: BatchMessage): void => {
    link.decoder.replay(batch, blockSink);
    acknowledge(link, batch);
  };

  const startTurn = (block: Block): void => {
    block.started = true;
    if (block.index > 0 && block.assumed !== state) {
      block.readAgain = true;
      for (const batch of block.held) acknowledge(block.link, batch);
    } else {
      for (const batch of block.held) replay(block.link, batch);
    }
    block.held = [];
  };

  /** Block `index` read in this thread, from the state in effect, straight into the sink. */
  const readHere = async (index: number): Promise<Outcome> => {
    blocksReadHere += 1;
    const text = blockText(fileBlockOf(job, index, parser.textPieceBytes));
    try {
      return { result: await blocks.parseBlock(text, job.context, blockSink, state) };
    } catch (error) {
      return { error: error as Error };
    }
  };

  return await new Promise<BlockParseResult>((resolve, reject) => {
    const fail = (error: unknown): void => {
      settled = true;
      reject(error);
    };

    /** Replays finished blocks in file order, as far as they go. */
    const pump = async (): Promise<void> => {
      if (pumping || settled) return;
      pumping = true;
      try {
        while (turn < job.blockCount) {
          let outcome: Outcome;
          const block = sent[turn];
          if (readsHere(turn, links.length)) {
            outcome = await readHere(turn);
          } else if (block === undefined) {
            break;
          } else {
            if (!block.started) startTurn(block);
            if (block.outcome === undefined) break;
            outcome = block.outcome;
            if (block.readAgain) {
              blocksReadAgain += 1;
              outcome = await readHere(turn);
            }
          }
          if ('error' in outcome) return fail(withFileLocation(outcome.error, linesBefore));
          const { result } = outcome;
          records += result.records;
          linesBefore += result.lines;
          limiter.addSuppressed(result.suppressedWarnings);
          state = result.state;
          sendState = state;
          turn += 1;
        }
        if (turn === job.blockCount) {
          limiter.finish(`line ${linesBefore}`);
          settled = true;
          resolve({ records, blocks: job.blockCount, blocksReadHere, blocksReadAgain });
        }
      } catch (error) {
        fail(error);
      } finally {
        pumping = false;
      }
    };

    const onMessage = (link: WorkerLink, message: WorkerMessage): void => {
      // After a failure, batches still in the queue must not reach the sink.
      if (settled) return;
      const block = link.queue[0];
      if (block === undefined) return fail(new Error(`parse worker: a message (${message.type}) with no block sent`));
      switch (message.type) {
        case 'batch':
          if (!block.started) block.held.push(message);
          else if (block.readAgain) acknowledge(link, message);
          else {
            try {
              replay(link, message);
            } catch (error) {
              fail(error);
            }
          }
          return;
        case 'block-done':
        case 'failed':
          block.outcome = message.type === 'failed' ? { error: deserializeError(message.error) } : { result: message.result };
          link.queue.shift();
          send(link);
          void pump();
          return;
        case 'done':
          return fail(new Error('parse worker: a whole-file result from a block worker'));
      }
    };

    for (let count = 0; count < Math.min(workerCount, job.blockCount); count += 1) {
      const link: WorkerLink = { worker: startParseWorker(job), decoder: new CallDecoder(), queue: [] };
      links.push(link);
      link.worker.on('message', (message: WorkerMessage) => onMessage(link, message));
      link.worker.on('error', fail);
      link.worker.on('exit', (code) => {
        if (!settled) fail(new Error(`a parse worker stopped (exit code ${code}) before it finished ${job.input.ref}`));
      });
    }
    for (let round = 0; round < BLOCKS_QUEUED; round += 1) for (const link of links) send(link);
    void pump();
  }).finally(async () => {
    settled = true;
    await Promise.all(links.map((link) => link.worker.terminate()));
  });
}

/**
 * Blocks a worker is sent ahead of the one it parses: it goes on to the next without waiting for
 * this thread, which may be busy reading a block itself.
 */
const BLOCKS_QUEUED = 3;

/**
 * With one worker (two cores), this thread reads one block in HERE_CYCLE itself, straight into
 * the sink: replaying and analysing the worker's blocks keeps it busy about half the time, and
 * a worker's parse costs more than one here (its calls are encoded, posted and decoded). With more
 * workers, it only replays.
 */
const HERE_CYCLE = 3;

function readsHere(index: number, workers: number): boolean {
  return workers === 1 && index % HERE_CYCLE === HERE_CYCLE - 1;
}

function acknowledge(link: WorkerLink, batch: BatchMessage): void {
  const ack: AckMessage = { type: 'ack', buffer: batch.buffer };
  link.worker.postMessage(ack, [batch.buffer]);
}

const LINE_LOCATION = /^line (\d+)$/;

/** A block's `line N` as the file's line, `linesBefore` lines further on; any other location as it is. */
export function fileLineLocation(location: string, linesBefore: number): string {
  const match = LINE_LOCATION.exec(location);
  return match === null ? location : `line ${Number(match[1]) + linesBefore}`;
}

function withFileLocation(error: Error, linesBefore: number): Error {
  if (!(error instanceof InputError) || error.location === undefined) return error;
  return new InputError(error.message, { file: error.file, location: fileLineLocation(error.location, linesBefore), cause: error.cause });
}

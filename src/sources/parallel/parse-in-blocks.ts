/**
 * One large file read by several threads at once: it is cut into blocks of whole lines
 * (file-blocks.ts), workers parse the blocks they are sent (SourceParser.blocks), and this
 * thread replays their calls on the sink in file order, so the analysis sees what it sees when
 * one thread reads the file. One parse worker (parse-in-worker.ts) is the bound on a long CSV
 * or XML log, with the analysis idle half the time or more.
 *
 * Each worker is sent a few blocks ahead of the one it parses. Whenever this thread would wait
 * for a worker, it reads the next block no one was sent itself, into a buffer of calls replayed
 * at its turn: the threads share the parse in whatever ratio keeps them busy, on any number of
 * cores and for any cost of the analysis.
 *
 * What a block needs from the text before it, its `state`, is known only once the blocks before
 * it are replayed. A block is read with the state in effect at the last block replayed (for a
 * CSV log, its first header nearly always); when its turn comes and the state in effect differs
 * (the header changed in a block before it), its calls are dropped and it is read again, here,
 * straight into the sink. A block that ends inside a construct running on into the next
 * (BlockResult.runsOver) has its calls dropped too, and the rest of the file is read here in one
 * piece from its start. Line and document numbers, warnings and what the file's end means are
 * made the file's here (see BlockParsing).
 */
import type { Worker } from 'node:worker_threads';
import { InputError } from '../../support/index.js';
import type { ObservationSink, SourceWarning } from '../../model/index.js';
import { blockCountOf, parseFileBlock, type FileBlockResult } from './file-blocks.js';
import { withWarnings } from '../sink-with-warnings.js';
import { WarningLimiter } from '../lexers/text/warnings.js';
import type { BlockParsing, BlockResult, FileEnd, ParseResult, SourceParser } from '../types.js';
import { CallDecoder } from './call-decoder.js';
import { CallEncoder } from './call-encoder.js';
import { deserializeError } from './errors.js';
import { startParseWorker } from './parse-in-worker.js';
import { fileBlockOf, type AckMessage, type BlockAssignment, type BlockJob, type EncodedBatch, type WorkerMessage } from './protocol.js';

/** A plain file to read in blocks. */
export interface BlockRequest extends Pick<BlockJob, 'input' | 'context' | 'path' | 'blockBytes'> {
  /** Its size when it was planned (the last block reads on to the end). */
  fileBytes: number;
  /** Workers to start (at most one per block; none: this thread reads every block, one after another). */
  workers: number;
}

export interface BlockParseResult extends ParseResult {
  blocks: number;
  /** Blocks this thread read ahead while it would have waited for a worker. */
  blocksReadAhead: number;
  /** The most blocks read ahead here that waited for their turn at once (at most MAX_BLOCKS_HELD_HERE). */
  mostBlocksHeldHere: number;
  /** Blocks read again here: read with a state that turned out wrong, or running over (then with the rest of the file). */
  blocksReadAgain: number;
}

/**
 * Blocks a worker is sent beyond the one it parses, so that it goes on to the next without
 * waiting for this thread, which may be busy reading a block itself.
 */
const BLOCKS_QUEUED = 2;

/**
 * Blocks this thread holds read ahead and not yet replayed, at most: each is a buffer of its
 * calls (about half its text, for a CSV log), and a worker slow on the block whose turn it is
 * must not let them pile up.
 */
export const MAX_BLOCKS_HELD_HERE = 2;

type Outcome = FileBlockResult | { error: Error };

interface WorkerLink {
  worker: Worker;
  /** Each worker numbers refs its own way. */
  decoder: CallDecoder;
  /** The blocks it was sent and has not finished, in order: it parses the first. */
  queue: Block[];
}

interface Block {
  index: number;
  /** The state it is read with. */
  assumed: string | undefined;
  /** The worker reading it; undefined: read ahead here. */
  link: WorkerLink | undefined;
  decoder: CallDecoder;
  /** Batches that came before its turn. */
  held: EncodedBatch[];
  /** Its turn came: a worker's batches replay as they come. */
  started: boolean;
  /** It was read with the wrong state: its calls are dropped and it is read again here. */
  readAgain: boolean;
  outcome: Outcome | undefined;
}

/**
 * Parses `request.path` in blocks with `parser`, replaying on `sink`; the workers are gone when
 * this settles. `head` is the file's detection head (for the state blocks start in).
 */
export async function parseInBlocks(request: BlockRequest, parser: SourceParser, head: string, sink: ObservationSink): Promise<BlockParseResult> {
  const blocks = parser.blocks;
  if (blocks === undefined) throw new Error(`the parser of format ${parser.format} cannot read blocks`);
  const { fileBytes, workers, ...rest } = request;
  const job: BlockJob = { ...rest, kind: 'blocks', format: parser.format, blockCount: blockCountOf(fileBytes, request.blockBytes), marker: blocks.lineMarker ?? '' };
  const replay = new BlockReplay(job, parser, blocks, head, sink);
  try {
    return await replay.run(Math.min(workers, job.blockCount));
  } finally {
    await replay.stop();
  }
}

class BlockReplay {
  private readonly links: WorkerLink[] = [];
  /** Blocks by index, once sent to a worker or read here. */
  private readonly sent: Block[] = [];
  /** Limits the file's warnings, where the parser limits them (BlockParsing.limitsWarnings). */
  private readonly limiter: WarningLimiter | undefined;
  /** Messages of the warnings given once per file (BlockParsing.oncePerFile). */
  private readonly givenOnce = new Set<string>();
  /** The calls of the block whose turn it is, with its locations made the file's. */
  private readonly blockSink: ObservationSink;
  private turn = 0;
  private linesBefore = 0;
  private documentsBefore = 0;
  private records = 0;
  /**
   * The state in effect at the start of the turn's block, which new blocks are read with: the
   * head's until the first block is replayed (whose own start needs none).
   */
  private state: string | undefined;
  /**
   * The blocks read ahead here go through one encoder and decoder, as a worker's do: its
   * buffers are reused, and a device is numbered once.
   */
  private readonly hereEncoder = new CallEncoder();
  private readonly hereDecoder = new CallDecoder();
  private readingAhead = false;
  /** Blocks read ahead here, read and waiting for their turn. */
  private heldHere = 0;
  private mostHeldHere = 0;
  private blocksReadAhead = 0;
  private blocksReadAgain = 0;
  private pumping = false;
  private settled = false;
  private resolve: (result: BlockParseResult) => void = () => undefined;
  private reject: (error: unknown) => void = () => undefined;

  constructor(
    private readonly job: BlockJob,
    private readonly parser: SourceParser,
    private readonly blocks: BlockParsing,
    head: string,
    private readonly sink: ObservationSink,
  ) {
    this.state = blocks.initialState(head);
    this.limiter = blocks.limitsWarnings === true ? new WarningLimiter(sink) : undefined;
    this.blockSink = withWarnings(sink, (warning) => this.warn(warning));
  }

  run(workers: number): Promise<BlockParseResult> {
    return new Promise<BlockParseResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      for (let count = 0; count < workers; count += 1) this.startWorker();
      for (let round = 0; round <= BLOCKS_QUEUED; round += 1) for (const link of this.links) this.send(link);
      void this.pump();
    });
  }

  async stop(): Promise<void> {
    this.settled = true;
    await Promise.all(this.links.map((link) => link.worker.terminate()));
  }

  private startWorker(): void {
    const link: WorkerLink = { worker: startParseWorker(this.job), decoder: new CallDecoder(), queue: [] };
    this.links.push(link);
    link.worker.on('message', (message: WorkerMessage) => this.onMessage(link, message));
    link.worker.on('error', (error) => this.fail(error));
    link.worker.on('exit', (code) => this.fail(new Error(`a parse worker stopped (exit code ${code}) before it finished ${this.job.input.ref}`)));
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }

  /** The next block no thread has, now read by `link` (undefined: here). */
  private take(link: WorkerLink | undefined): Block | undefined {
    const index = this.sent.length;
    if (index >= this.job.blockCount) return undefined;
    const block: Block = {
      index,
      assumed: index === 0 ? undefined : this.state,
      link,
      decoder: link?.decoder ?? this.hereDecoder,
      held: [],
      started: false,
      readAgain: false,
      outcome: undefined,
    };
    this.sent.push(block);
    return block;
  }

  private send(link: WorkerLink): void {
    const block = this.take(link);
    if (block === undefined) return;
    link.queue.push(block);
    const assignment: BlockAssignment = { type: 'block', index: block.index, state: block.assumed };
    link.worker.postMessage(assignment);
  }

  private onMessage(link: WorkerLink, message: WorkerMessage): void {
    // After a failure, batches still in the queue must not reach the sink.
    if (this.settled) return;
    const block = link.queue[0];
    if (block === undefined) return this.fail(new Error(`parse worker: a message (${message.type}) with no block sent`));
    switch (message.type) {
      case 'batch':
        if (!block.started) block.held.push(message);
        else if (block.readAgain) this.drop(block, message);
        else this.replay(block, message);
        return;
      case 'block-done':
      case 'failed':
        block.outcome = message.type === 'failed' ? { error: deserializeError(message.error) } : { result: message.result, endOfFile: message.endOfFile };
        link.queue.shift();
        this.send(link);
        void this.pump();
        return;
      case 'done':
        return this.fail(new Error('parse worker: a whole-file result from a block worker'));
    }
  }

  private replay(block: Block, batch: EncodedBatch): void {
    try {
      block.decoder.replay(batch, this.blockSink);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.release(block, batch);
  }

  private drop(block: Block, batch: EncodedBatch): void {
    block.decoder.skip(batch);
    this.release(block, batch);
  }

  /** A batch's buffer goes back to its encoder: the worker's, or this thread's. */
  private release(block: Block, batch: EncodedBatch): void {
    if (block.link === undefined) this.hereEncoder.recycle(batch.buffer);
    else acknowledge(block.link, batch);
  }

  /** Replays finished blocks in file order, as far as they go; then, rather than wait, reads one ahead. */
  private async pump(): Promise<void> {
    if (this.pumping || this.settled) return;
    this.pumping = true;
    try {
      for (let block = this.sent[this.turn]; block !== undefined && !this.settled; block = this.sent[this.turn]) {
        // A worker's block replays as its batches come, unless it may run over; others once read.
        const streams = block.link !== undefined && this.blocks.mayRunOver !== true;
        if (block.outcome === undefined && !streams) break;
        if (!block.started && block.outcome !== undefined && 'result' in block.outcome && block.outcome.result.runsOver === true) {
          return await this.readRest(block);
        }
        if (!block.started) this.startTurn(block);
        if (block.outcome === undefined) break;
        const outcome = block.readAgain ? await this.readAgain(block) : block.outcome;
        if ('error' in outcome) return this.fail(this.withFileLocation(outcome.error));
        this.finishTurn(outcome.result);
        // The blocks after one that read to the end of the file are empty, unless the file grew
        // while it was read; what it grew by is left out rather than read twice.
        if (outcome.endOfFile) this.turn = this.job.blockCount;
      }
      if (this.turn === this.job.blockCount) return this.finish();
      if (!this.readingAhead && this.heldHere < MAX_BLOCKS_HELD_HERE && !this.settled) {
        const block = this.take(undefined);
        if (block !== undefined) void this.readAhead(block);
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.pumping = false;
    }
  }

  private startTurn(block: Block): void {
    block.started = true;
    if (block.link === undefined) this.heldHere -= 1;
    if (block.index > 0 && block.assumed !== this.state) {
      block.readAgain = true;
      for (const batch of block.held) this.drop(block, batch);
    } else {
      for (const batch of block.held) this.replay(block, batch);
    }
    block.held = [];
  }

  private finishTurn(result: BlockResult): void {
    if (result.fileEnd !== undefined) this.fileEnd(result.fileEnd, result.records);
    this.records += result.records;
    this.linesBefore += result.lines;
    this.documentsBefore += result.documents ?? 0;
    this.limiter?.addSuppressed(result.suppressedWarnings);
    this.state = result.state;
    this.turn += 1;
  }

  /** What the file's end means, told by its last block, which read `records` of them. */
  private fileEnd(end: FileEnd, records: number): void {
    if (this.records + records === 0) {
      const location = end.noRecords.location === undefined ? undefined : this.fileLocation(end.noRecords.location);
      throw new InputError(end.noRecords.message, { file: this.job.input.ref, location });
    }
    if (end.warning !== undefined) this.warn(end.warning);
  }

  private finish(): void {
    this.limiter?.finish(`line ${this.linesBefore}`);
    this.settled = true;
    const { records, blocksReadAhead, blocksReadAgain } = this;
    this.resolve({ records, blocks: this.job.blockCount, blocksReadAhead, mostBlocksHeldHere: this.mostHeldHere, blocksReadAgain });
  }

  private warn(warning: SourceWarning): void {
    if (this.blocks.oncePerFile?.(warning) === true) {
      if (this.givenOnce.has(warning.message)) return;
      this.givenOnce.add(warning.message);
    }
    const location = this.fileLocation(warning.location);
    if (this.limiter === undefined) this.sink.warn({ location, message: warning.message });
    else this.limiter.warn(location, warning.message);
  }

  /** Reads `block` here into a buffer of calls (as a worker would), replayed at its turn. */
  private async readAhead(block: Block): Promise<void> {
    this.readingAhead = true;
    this.blocksReadAhead += 1;
    block.outcome = await this.read(block, this.hereEncoder, false);
    if (!this.hereEncoder.isEmpty) block.held.push(this.hereEncoder.takeBatch());
    this.readingAhead = false;
    this.heldHere += 1;
    this.mostHeldHere = Math.max(this.mostHeldHere, this.heldHere);
    void this.pump();
  }

  /** Reads a block read with the wrong state again here, from the state in effect, straight into the sink. */
  private async readAgain(block: Block): Promise<Outcome> {
    this.blocksReadAgain += 1;
    block.assumed = this.state;
    return await this.read(block, this.blockSink, false);
  }

  /**
   * The block ran over into the next (BlockResult.runsOver): its calls are dropped, and the file
   * from its start to the end is read here as one block, straight into the sink.
   */
  private async readRest(block: Block): Promise<void> {
    block.started = true;
    for (const batch of block.held) this.drop(block, batch);
    block.held = [];
    this.blocksReadAgain += 1;
    const outcome = await this.read(block, this.blockSink, true);
    if ('error' in outcome) return this.fail(this.withFileLocation(outcome.error));
    this.finishTurn(outcome.result);
    this.turn = this.job.blockCount;
    this.finish();
  }

  /** Reads `block` (with the rest of the file after it, if `toEnd`) from the state it assumes. */
  private async read(block: Block, sink: ObservationSink, toEnd: boolean): Promise<Outcome> {
    const fileBlock = fileBlockOf(this.job, block.index, this.parser.textPieceBytes);
    if (toEnd) fileBlock.last = true;
    try {
      return await parseFileBlock(this.blocks, fileBlock, this.job.context, sink, block.assumed);
    } catch (error) {
      return { error: error as Error };
    }
  }

  /** A block's `line N` and `document N` as the file's: the lines and documents before it further on. */
  private fileLocation(location: string): string {
    return location.replace(BLOCK_LOCATION, (_, kind: string, number: string) => `${kind} ${Number(number) + (kind === 'line' ? this.linesBefore : this.documentsBefore)}`);
  }

  private withFileLocation(error: Error): Error {
    if (!(error instanceof InputError) || error.location === undefined) return error;
    return new InputError(error.message, { file: error.file, location: this.fileLocation(error.location), cause: error.cause });
  }
}

/** The numbers of a location that count from a block's start. */
const BLOCK_LOCATION = /\b(line|document) (\d+)\b/g;

function acknowledge(link: WorkerLink, batch: EncodedBatch): void {
  const ack: AckMessage = { type: 'ack', buffer: batch.buffer };
  link.worker.postMessage(ack, [batch.buffer]);
}


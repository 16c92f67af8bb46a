/**
 * What the parse worker and the main thread say to each other (see parse-in-worker.ts).
 *
 * The worker runs a parser against a proxy ObservationSink that records every call; the main
 * thread replays the calls, in the same order, on the real sink. A GpuSample (one per row of a
 * log: millions) travels as numbers in a Float64Array whose buffer is transferred, not copied;
 * every other call is rare and travels as its argument, structured-cloned, in `calls`.
 */
import type { DeviceRef, GpuSample, ObservationSink } from '../../model/index.js';
import type { FileBlock } from './file-blocks.js';
import type { InputRef } from '../inputs.js';
import type { BlockResult, SourceContext } from '../types.js';

/** What the worker is asked to do: open `input` itself and parse it with the parser of `format`. */
export interface ParseJob {
  input: InputRef;
  /** `SourceParser.format` of the parser the main thread detected on the input's head. */
  format: string;
  context: SourceContext;
}

/**
 * What a block worker is asked to do (parse-in-blocks.ts): parse the blocks of `path`
 * (file-blocks.ts) it is sent, one at a time, with the `blocks` reading of the parser of `format`.
 */
export interface BlockJob extends ParseJob {
  kind: 'blocks';
  /** The file's path (the input is a plain file). */
  path: string;
  blockBytes: number;
  blockCount: number;
  /** BlockParsing.lineMarker ('' for none). */
  marker: string;
}

/** Block `index` of the job's file, in text pieces of at most `pieceBytes` (SourceParser.textPieceBytes). */
export function fileBlockOf(job: BlockJob, index: number, pieceBytes: number | undefined): FileBlock {
  return { path: job.path, ref: job.input.ref, index, blockBytes: job.blockBytes, last: index === job.blockCount - 1, marker: job.marker, pieceBytes };
}

/** Main -> block worker: parse block `index`, starting in `state` (BlockParsing.parseBlock). */
export interface BlockAssignment {
  type: 'block';
  index: number;
  state: string | undefined;
}

/**
 * The numeric fields of a GpuSample in the order of their bits in a sample's presence mask.
 * The check below fails to compile when GpuSample gains a field this list lacks.
 */
export const SAMPLE_FIELDS = [
  'time',
  'utilizationPct',
  'memoryUtilizationPct',
  'memoryUsedMiB',
  'memoryTotalMiB',
  'smActivePct',
  'tensorActivePct',
  'grEngineActivePct',
  'powerW',
  'pcieRxKiBps',
  'pcieTxKiBps',
  'computeProcessCount',
] as const;

type SampleField = (typeof SAMPLE_FIELDS)[number];
type NumericSampleField = Exclude<keyof GpuSample, 'ref'>;
// Compiles only while SAMPLE_FIELDS lists every field of GpuSample but its ref, and nothing else.
const sampleFieldsMatchGpuSample: [SampleField] extends [NumericSampleField] ? ([NumericSampleField] extends [SampleField] ? true : never) : never = true;
void sampleFieldsMatchGpuSample;

/** One bit per field of SAMPLE_FIELDS. */
const SAMPLE_BIT: Readonly<Record<SampleField, number>> = Object.freeze(
  Object.fromEntries(SAMPLE_FIELDS.map((field, bit) => [field, 1 << bit])) as Record<SampleField, number>,
);

/** Each bit by name, for the encoder and decoder, which test them field by field: they run per sample. */
export const {
  time: TIME,
  utilizationPct: UTILIZATION,
  memoryUtilizationPct: MEMORY_UTILIZATION,
  memoryUsedMiB: MEMORY_USED,
  memoryTotalMiB: MEMORY_TOTAL,
  smActivePct: SM_ACTIVE,
  tensorActivePct: TENSOR_ACTIVE,
  grEngineActivePct: GR_ENGINE_ACTIVE,
  powerW: POWER,
  pcieRxKiBps: PCIE_RX,
  pcieTxKiBps: PCIE_TX,
  computeProcessCount: COMPUTE_PROCESSES,
} = SAMPLE_BIT;

/**
 * Kind of each call, the first number of its record in a batch. A sample's record goes on with
 * its ref id, its presence mask and the values present, in SAMPLE_FIELDS order; any other
 * call's record is its kind alone, and its argument is the next entry of the batch's `calls`.
 */
export const CALL_KIND = {
  sample: 0,
  device: 1,
  process: 2,
  warn: 3,
  assignment: 4,
  hostCpu: 5,
  containerCpu: 6,
  processCpu: 7,
  /** A sample with a value that is not a number: sent whole, as a rare call, so that it arrives unchanged. */
  sampleAsObject: 8,
  serving: 9,
} as const satisfies Record<Exclude<keyof ObservationSink, 'pause'> | 'sampleAsObject', number>;

/**
 * The worker posts the calls it recorded once they hold at least this many numbers: 1 MiB of
 * Float64, some fourteen thousand rows of a CSV log. A post and its ack cost the worker a fixed
 * time: one batch per megabyte, rather than per piece of text, keeps the round trips to about a
 * thousand per GB.
 */
export const BATCH_MIN_NUMBERS = 128 * 1024;

/**
 * ... or once they hold this many rare calls. A rare call is one number in the buffer, but its
 * argument travels as a structured clone of a hundred bytes or more (a pod assignment, a
 * process), so that an input of mostly rare calls still posts batches of about a megabyte,
 * not of 128 Ki cloned objects.
 */
export const BATCH_MIN_CALLS = 8 * 1024;

/**
 * ... or once the parser has read this many characters of text since the last batch, whatever
 * the batch holds. Some inputs yield few numbers per megabyte (a DCGM scrape is megabytes of
 * text and one sample per GPU; an XML log is kilobytes per sample). Without this, a file of
 * such scrapes would go over in a few batches, and the analysis would wait for the parse
 * instead of running beside it. This rule adds at most some 240 round trips per GB.
 */
export const BATCH_MAX_TEXT = 4 * 1024 * 1024;

/**
 * The worker's lead over the main thread, in batches posted and not yet replayed, so that
 * memory stays bounded: the parse waits when the analysis falls behind, instead of queueing
 * the file's samples in messages. Whether a batch is due is checked between pieces of text
 * (64 KiB, inputs.ts TEXT_PIECE_BYTES, or a whole 1 MiB read for a parser that asks for it),
 * so a batch holds less than BATCH_MIN_NUMBERS numbers and BATCH_MIN_CALLS calls plus what the
 * parser recorded for one piece. The worker holds at most MAX_BATCHES_AHEAD such batches and
 * the one it is filling: some 6 MiB of numbers, and rare calls' arguments of about as much.
 */
export const MAX_BATCHES_AHEAD = 4;

/**
 * The same for a block worker (parse-in-blocks.ts), whose batches wait for the blocks before
 * theirs: it goes on through a block or two more (two or three batches each) while the main
 * thread reads one itself, instead of waiting for it.
 */
export const BLOCK_BATCHES_AHEAD = 8;

/** What the worker recorded since its last batch (call-encoder.ts). */
export interface EncodedBatch {
  /** A Float64Array's buffer (transferred); the first `length` numbers are the records. */
  buffer: ArrayBuffer;
  length: number;
  /** Refs first used in this batch; their ids continue from the last batch's. */
  refs: DeviceRef[];
  /** The argument of each rare call, in the order of their records. */
  calls: unknown[];
}

/** Worker -> main. */
export type WorkerMessage =
  | (EncodedBatch & {
      type: 'batch';
      /** Batches posted and not acknowledged, this one included: never above MAX_BATCHES_AHEAD (BLOCK_BATCHES_AHEAD for a block worker). */
      ahead: number;
    })
  | { type: 'done'; records: number }
  /** A block worker read its block to the end (its batches came before). */
  | { type: 'block-done'; result: BlockResult; endOfFile: boolean }
  /** The parse (or a block worker's block) stopped on this error, after posting what it observed before. */
  | { type: 'failed'; error: SerializedError };

/** Main -> worker: a batch was replayed; its buffer comes back for the next one. */
export interface AckMessage {
  type: 'ack';
  buffer: ArrayBuffer;
}

/** An error as it crosses threads: an InputError keeps its fields, anything else its name, message and stack. */
export type SerializedError =
  | { kind: 'input'; message: string; file: string | undefined; location: string | undefined }
  | { kind: 'internal'; name: string; message: string; stack: string | undefined };

import type { ObservationSink, SourceWarning } from '../model/index.js';
import type { InputLimits } from './input-limits.js';

/** Everything a parser needs to know about the input besides its bytes. */
export interface SourceContext {
  /** The input as the user named it; used in every message. */
  ref: string;
  /** Host the input's devices are attributed to. */
  host: string;
  /** IANA time zone in which timestamps without a zone are read. */
  timeZone: string;
  /** The caps of --input-limit; absent: the defaults (input-limits.ts). */
  limits?: InputLimits;
  /**
   * The input's text again from its start, for a parser that reads it twice (prometheus-json.ts);
   * absent where it can be read once (standard input). Not sent to a worker: each thread makes its own.
   */
  reread?: () => AsyncIterable<string>;
}

export interface ParseResult {
  /** Documents (XML) or data rows (text formats) read. */
  records: number;
}

/**
 * One input format. `detect` looks at the decoded head of the input (up to 64 KiB),
 * never at the file name. `parse` reads decoded text chunks in order (chunk boundaries
 * fall anywhere, even inside a tag or a number), pushes what it finds into the sink,
 * and throws InputError for an input it cannot read at all.
 */
export interface SourceParser {
  format: string;
  /** Human description for messages and the README (`nvidia-smi -q -x XML`). */
  description: string;
  detect(head: string): boolean;
  /**
   * The largest text chunk, in input bytes, the parser wants to be handed (default: inputs.ts
   * TEXT_PIECE_BYTES, small enough for ordinary heap strings; Infinity: whole reads); for a
   * parser that keeps parts of the text across chunks.
   */
  textPieceBytes?: number;
  parse(chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink): Promise<ParseResult>;
  /** Present where a large file can be read in blocks of lines, several at once (see BlockParsing). */
  blocks?: BlockParsing;
  /**
   * Whether a file that starts with `head` and ends with `tail` (its last few tens of KiB, the
   * first line likely cut) sends all it observes at its end, such as one scrape of an exposition:
   * a parse worker then has nothing to overlap and only adds its start and the copying
   * (audit.ts reads such a large file here). Absent: never.
   */
  sendsAllAtEnd?(head: string, tail: string): boolean;
}

/**
 * Reading one file in blocks of whole lines, each in a thread of its own
 * (sources/parallel/parse-in-blocks.ts), replayed in file order: a format whose lines need nothing from
 * the lines before them but a small `state` (the CSV header in effect), or nothing at all (the
 * documents of an XML log). Each block's calls on the sink must then be those the whole-file
 * `parse` makes for its lines, with these differences, which the block reader undoes or which
 * change nothing:
 *
 * - locations are `line N` counted from the block's first line, `document N` from its first
 *   document (the reader adds the lines and documents before it);
 * - warnings are limited per block as WarningLimiter does, without the closing count, where
 *   `limitsWarnings` (the reader limits them over the file and writes it), and those
 *   `oncePerFile` says are given once per block (the reader keeps the first of each message);
 * - a device's inventory may be sent again unchanged at its first row in a block (the
 *   analysis keeps the first value of each field);
 * - the last block leaves what the file's end means to the reader (`fileEnd`).
 */
export interface BlockParsing {
  /** What a line must begin with for a block to start there (file-blocks.ts); default: any line. */
  lineMarker?: string;
  /** The state in effect after the head (a block assumes it until the reader knows better). */
  initialState(head: string): string | undefined;
  /** Warnings are limited per file as WarningLimiter limits them. */
  limitsWarnings?: boolean;
  /** Warnings given once per file, by message. */
  oncePerFile?(warning: SourceWarning): boolean;
  /**
   * A block's last construct may run on into the next block (BlockResult.runsOver): its calls are
   * replayed only once it is read, and dropped if it does. Such a parser keeps no state
   * (initialState and every block's state undefined), so that no block is read again for one.
   */
  mayRunOver?: boolean;
  parseBlock(chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink, start: BlockStart): Promise<BlockResult>;
}

export interface BlockStart {
  /** The state in effect at the block's start, undefined for the block that starts the file. */
  state: string | undefined;
  /** The block runs to the end of the file. */
  last: boolean;
}

export interface BlockResult extends ParseResult {
  /** Lines in the block. */
  lines: number;
  /** Documents in the block, where locations name documents. */
  documents?: number;
  /** The state in effect at the block's end. */
  state: string | undefined;
  /** Warnings the block counted and did not send (limitsWarnings). */
  suppressedWarnings: number;
  /**
   * The block ends inside a construct that the next block's text goes on with: the blocks after
   * it cannot be read on their own, and the rest of the file is read in one piece from its start.
   */
  runsOver?: boolean;
  /** The last block's: what the file's end means. */
  fileEnd?: FileEnd;
}

/** What the end of a file means, which depends on whether any record of it was read. */
export interface FileEnd {
  /** Given when some record was read. */
  warning?: SourceWarning;
  /** The InputError when none was (message and location, in the last block's terms). */
  noRecords: { message: string; location: string | undefined };
}

import type { ObservationSink } from '../model/observations.js';

/** Everything a parser needs to know about the input besides its bytes. */
export interface SourceContext {
  /** The input as the user named it; used in every message. */
  ref: string;
  /** Host the input's devices are attributed to. */
  host: string;
  /** IANA time zone in which timestamps without a zone are read. */
  timeZone: string;
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
}

/**
 * Reading one file in blocks of whole lines, each in a worker of its own
 * (worker/parse-in-blocks.ts), replayed in file order: a format whose lines need nothing from
 * the lines before them but a small `state` (the CSV header in effect). Each block's calls on
 * the sink must then be those the whole-file `parse` makes for its lines, with these
 * differences, which the block reader undoes or which change nothing:
 *
 * - locations are `line N` counted from the block's first line (the reader adds the lines
 *   before it);
 * - warnings are limited per block as WarningLimiter does, without the closing summary (the
 *   reader limits them over the file and writes it);
 * - a device's inventory may be sent again unchanged at its first row in a block (the
 *   analysis keeps the first value of each field).
 */
export interface BlockParsing {
  /** The state in effect after the head (a block assumes it until the reader knows better). */
  initialState(head: string): string | undefined;
  /**
   * Reads the text of one block: `state` is that in effect at its start, undefined for the
   * block that starts the file.
   */
  parseBlock(chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink, state: string | undefined): Promise<BlockResult>;
}

export interface BlockResult extends ParseResult {
  /** Lines in the block. */
  lines: number;
  /** The state in effect at the block's end. */
  state: string | undefined;
  /** Warnings the block counted and did not send. */
  suppressedWarnings: number;
}

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
}

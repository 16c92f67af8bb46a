/**
 * The SourceParser of an nvidia-smi `--query-*` CSV: detection by the header's field names,
 * line streaming and the warning cap are the same for every query kind; only the schema and
 * the row handling differ.
 *
 * A long log can be read in blocks of lines (SourceParser.blocks): what a block needs from the
 * text before it is the header in effect, which a block is handed as the line before its first.
 */
import type { ObservationSink } from '../../model/observations.js';
import type { BlockResult, ParseResult, SourceContext, SourceParser } from '../types.js';
import { forEachLineSpan, leadingLines } from './lines.js';
import { isAcceptedHeader, type QueryCsvReader, type QuerySchema } from './query-csv.js';
import { WarningLimiter, type Warn } from './warnings.js';

export function queryCsvParser<Row>(definition: {
  format: string;
  description: string;
  schema: QuerySchema<Row>;
  createReader: (context: SourceContext, sink: ObservationSink, warn: Warn) => QueryCsvReader<Row>;
}): SourceParser {
  /** Reads the lines of `chunks` after the header `header` (undefined: the chunks start the file). */
  async function readTable(chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink, warnings: WarningLimiter, header: string | undefined) {
    // The header a block is handed was read (and warned about) before the block: read it silently, as line 0.
    let silent = header !== undefined;
    const reader = definition.createReader(context, sink, (location, message) => {
      if (!silent) warnings.warn(location, message);
    });
    if (header !== undefined) reader.line(header, 0);
    silent = false;
    const lines = await forEachLineSpan(chunks, context.ref, (text, start, end, lineNumber) => reader.lineSpan(text, start, end, lineNumber), header === undefined);
    reader.finish(lines);
    return { reader, lines };
  }

  return {
    format: definition.format,
    description: definition.description,
    detect(head) {
      return isAcceptedHeader(leadingLines(head, 1)[0], definition.schema);
    },
    async parse(chunks, context, sink): Promise<ParseResult> {
      const warnings = new WarningLimiter(sink);
      const { reader, lines } = await readTable(chunks, context, sink, warnings, undefined);
      warnings.finish(`line ${lines}`);
      return { records: reader.rows };
    },
    blocks: {
      // Detection found the header on the head's first line.
      initialState: (head) => leadingLines(head, 1)[0],
      limitsWarnings: true,
      async parseBlock(chunks, context, sink, start): Promise<BlockResult> {
        const warnings = new WarningLimiter(sink);
        const { reader, lines } = await readTable(chunks, context, sink, warnings, start.state);
        return { records: reader.rows, lines, state: reader.header, suppressedWarnings: warnings.suppressedCount };
      },
    },
  };
}

/**
 * The SourceParser of an nvidia-smi `--query-*` CSV: detection by the header's field names,
 * line streaming and the warning cap are the same for every query kind; only the schema and
 * the row handling differ.
 *
 * A long log can be read in blocks of lines (SourceParser.blocks): what a block needs from the
 * text before it is the header in effect, which a block is handed as the line before its first.
 */
import type { ObservationSink } from '../../../model/index.js';
import type { SourceContext, SourceParser } from '../../types.js';
import { forEachLineSpan, leadingLines } from './lines.js';
import { isAcceptedHeader, type QueryCsvReader, type QuerySchema } from './query-csv.js';
import { parseTable, tableBlocks, type ReadTable } from './line-table.js';
import type { Warn } from './warnings.js';

export function queryCsvParser<Row>(definition: {
  format: string;
  description: string;
  schema: QuerySchema<Row>;
  createReader: (context: SourceContext, sink: ObservationSink, warn: Warn) => QueryCsvReader<Row>;
}): SourceParser {
  const readTable: ReadTable = async (chunks, context, sink, warnings, header) => {
    let silent = header !== undefined;
    const reader = definition.createReader(context, sink, (location, message) => {
      if (!silent) warnings.warn(location, message);
    });
    if (header !== undefined) reader.line(header, 0);
    silent = false;
    const lines = await forEachLineSpan(chunks, context.ref, (text, start, end, lineNumber) => reader.lineSpan(text, start, end, lineNumber), header === undefined);
    reader.finish(lines);
    return { records: reader.rows, lines, header: reader.header };
  };

  return {
    format: definition.format,
    description: definition.description,
    detect(head) {
      return isAcceptedHeader(leadingLines(head, 1)[0], definition.schema);
    },
    parse: parseTable(readTable),
    // Detection found the header on the head's first line.
    blocks: tableBlocks(readTable, (head) => leadingLines(head, 1)[0]),
  };
}

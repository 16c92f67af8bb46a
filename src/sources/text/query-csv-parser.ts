/**
 * The SourceParser of an nvidia-smi `--query-*` CSV: detection by the header's field names,
 * line streaming and the warning cap are the same for every query kind; only the schema and
 * the row handling differ.
 */
import type { ObservationSink } from '../../model/observations.js';
import type { ParseResult, SourceContext, SourceParser } from '../types.js';
import { forEachLineSpan, leadingLines } from './lines.js';
import { isAcceptedHeader, type QueryCsvReader, type QuerySchema } from './query-csv.js';
import { WarningLimiter, type Warn } from './warnings.js';

export function queryCsvParser<Row>(definition: {
  format: string;
  description: string;
  schema: QuerySchema<Row>;
  createReader: (context: SourceContext, sink: ObservationSink, warn: Warn) => QueryCsvReader<Row>;
}): SourceParser {
  return {
    format: definition.format,
    description: definition.description,
    detect(head) {
      return isAcceptedHeader(leadingLines(head, 1)[0], definition.schema);
    },
    async parse(chunks, context, sink): Promise<ParseResult> {
      const warnings = new WarningLimiter(sink);
      const reader = definition.createReader(context, sink, warnings.warn);
      const lines = await forEachLineSpan(chunks, context.ref, (text, start, end, lineNumber) => reader.lineSpan(text, start, end, lineNumber));
      reader.finish(lines);
      warnings.finish(`line ${lines}`);
      return { records: reader.rows };
    },
  };
}

/**
 * The SourceParser shape shared by line tables whose lines need nothing from the lines before
 * them but the header in effect (a `--query-*` CSV, `dmon`, `pmon`, `dcgmi dmon`): the whole
 * file read with one warning limit, or a long log read in blocks (SourceParser.blocks), each
 * block handed the header in effect before it, which it reads first and silently (it was read
 * and warned about before the block).
 */
import type { ObservationSink, SourceWarning } from '../../../model/index.js';
import type { BlockParsing, ParseResult, SourceContext } from '../../types.js';
import { forEachLine } from './lines.js';
import { WarningLimiter, type Warn } from './warnings.js';

/** What reading a table's lines gives. */
export interface TableRead {
  records: number;
  lines: number;
  /** The header in effect at the end (a block's state), undefined when none was read. */
  header: string | undefined;
}

/**
 * Reads the lines of `chunks`, after `header` where one is given (a block's: lines numbered from
 * the block's first, the header before it read silently, as line 0), warning through `warnings`.
 */
export type ReadTable = (chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink, warnings: WarningLimiter, header: string | undefined) => Promise<TableRead>;

/**
 * The lines of a table read with ReadTable's `header`: its lines first, as line 0 and with their
 * warnings left out (they were given before the block), then those of `chunks`; each line goes to
 * `readLine` with the warn to use. Returns the number of lines of `chunks`.
 */
export async function readTableLines(
  chunks: AsyncIterable<string>,
  file: string,
  warnings: WarningLimiter,
  header: string | undefined,
  readLine: (line: string, lineNumber: number, warn: Warn) => void,
): Promise<number> {
  let muted = header !== undefined;
  const warn: Warn = (location, message) => {
    if (!muted) warnings.warn(location, message);
  };
  const onLine = (line: string, lineNumber: number): void => readLine(line, lineNumber, warn);
  for (const line of header?.split('\n') ?? []) onLine(line, 0);
  muted = false;
  return forEachLine(chunks, file, onLine, header === undefined);
}

/** SourceParser.parse of a line table: the whole file, its warnings limited and counted at its end. */
export function parseTable(read: ReadTable): (chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink) => Promise<ParseResult> {
  return async (chunks, context, sink) => {
    const warnings = new WarningLimiter(sink);
    const { records, lines } = await read(chunks, context, sink, warnings, undefined);
    warnings.finish(`line ${lines}`);
    return { records };
  };
}

/** SourceParser.blocks of a line table whose header `initialState` finds in the file's head. */
export function tableBlocks(read: ReadTable, initialState: (head: string) => string | undefined, oncePerFile?: (warning: SourceWarning) => boolean): BlockParsing {
  return {
    initialState,
    limitsWarnings: true,
    ...(oncePerFile === undefined ? {} : { oncePerFile }),
    async parseBlock(chunks, context, sink, start) {
      const warnings = new WarningLimiter(sink);
      const { records, lines, header } = await read(chunks, context, sink, warnings, start.state);
      return { records, lines, state: header, suppressedWarnings: warnings.suppressedCount };
    },
  };
}

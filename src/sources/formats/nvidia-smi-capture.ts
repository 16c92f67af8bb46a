/**
 * nvidia_gpu_exporter capture files: the outputs of many nvidia-smi commands in one file,
 * each section introduced by a header between two 80-`#` rule lines:
 *
 *   ################################################################################
 *   # load :: query-gpu (csv, what the exporter parses)
 *   # $ nvidia-smi --query-gpu=timestamp,name,... --format=csv
 *   ################################################################################
 *   timestamp, name, ...
 *
 * Only the `--query-gpu` and `--query-compute-apps` CSV sections are read, with the same
 * readers as standalone CSV files. The other sections (`-q` text, the default table, `-L`,
 * `topo -m`, dmon and pmon) carry no time of their own or repeat what the CSV sections
 * already say; reading them too would count the same moment twice.
 */
import { InputError } from '../../support/index.js';
import type { ObservationSink } from '../../model/index.js';
import { createComputeAppsReader } from './nvidia-smi-compute-apps.js';
import { createGpuQueryReader } from './nvidia-smi-csv.js';
import type { ParseResult, SourceContext, SourceParser } from '../types.js';
import { forEachLine, leadingLines } from '../lexers/text/lines.js';
import type { Warn } from '../lexers/text/warnings.js';
import { WarningLimiter } from '../lexers/text/warnings.js';

const RULE_LENGTH = 80;
const HASH = 0x23;

/** An 80-`#` line that opens or closes a section header (trailing blanks allowed). */
export function isRuleLine(line: string): boolean {
  if (line.charCodeAt(0) !== HASH) return false;
  const trimmed = line.trimEnd();
  if (trimmed.length !== RULE_LENGTH) return false;
  for (let position = 1; position < RULE_LENGTH; position += 1) {
    if (trimmed.charCodeAt(position) !== HASH) return false;
  }
  return true;
}

const COMMAND_PREFIX = '# $ ';

interface TableReader {
  line(text: string, lineNumber: number): void;
  finish(lineNumber: number): void;
  readonly rows: number;
}

type ReaderFactory = (context: SourceContext, sink: ObservationSink, warn: Warn) => TableReader;

/** `--format=csv` with any options (nounits; noheader fails in the reader and becomes a warning). */
const CSV_FORMAT = /(?:^|\s)--format[= ]csv\b/;

/** Which commands' output is read, and by which table reader. */
const CSV_QUERIES: readonly { option: RegExp; reader: ReaderFactory }[] = [
  { option: /(?:^|\s)--query-gpu[= ]/, reader: createGpuQueryReader },
  { option: /(?:^|\s)--query-compute-apps[= ]/, reader: createComputeAppsReader },
];

function readerFactoryFor(command: string): ReaderFactory | undefined {
  if (!CSV_FORMAT.test(command)) return undefined;
  return CSV_QUERIES.find((query) => query.option.test(command))?.reader;
}

export const nvidiaSmiCapture: SourceParser = {
  format: 'nvidia-smi-capture',
  description: 'nvidia_gpu_exporter capture file (sections of nvidia-smi output; the CSV sections are read)',
  detect(head) {
    const [first] = leadingLines(head, 1);
    return first !== undefined && isRuleLine(first) && head.includes(`\n${COMMAND_PREFIX}`) && /\n# [^\n]* :: /.test(head);
  },
  async parse(chunks, context, sink): Promise<ParseResult> {
    const warnings = new WarningLimiter(sink);
    const { warn } = warnings;
    let inSectionHeader = false;
    let title = '';
    let titleLine = 0;
    let command: string | undefined;
    let reader: TableReader | undefined;
    let records = 0;
    let sawRule = false;

    const closeSection = (lineNumber: number): void => {
      if (reader === undefined) return;
      try {
        reader.finish(lineNumber);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        warn(`line ${titleLine}`, `section "${title}": ${error.message}`);
      }
      records += reader.rows;
      reader = undefined;
    };

    const lines = await forEachLine(chunks, context.ref, (line, lineNumber) => {
      if (isRuleLine(line)) {
        sawRule = true;
        if (inSectionHeader) {
          // Second rule: the section body starts; read it if its command is one we read.
          inSectionHeader = false;
          const factory = command === undefined ? undefined : readerFactoryFor(command);
          reader = factory?.(context, sink, warn);
        } else {
          closeSection(lineNumber);
          inSectionHeader = true;
          title = '';
          titleLine = lineNumber;
          command = undefined;
        }
        return;
      }
      if (inSectionHeader) {
        if (line.startsWith(COMMAND_PREFIX)) command = line.slice(COMMAND_PREFIX.length).trim();
        else if (title === '' && line.startsWith('# ')) {
          title = line.slice(2).trim();
          titleLine = lineNumber;
        }
        return;
      }
      if (reader === undefined) return;
      try {
        reader.line(line, lineNumber);
      } catch (error) {
        // One unreadable section (an error message instead of CSV, noheader output) does not spoil the others.
        if (!(error instanceof InputError)) throw error;
        warn(error.location ?? `line ${lineNumber}`, `section "${title}": ${error.message}; section skipped`);
        records += reader.rows;
        reader = undefined;
      }
    });
    closeSection(lines);
    if (!sawRule) {
      throw new InputError('no 80-# section rule line: expected an nvidia_gpu_exporter capture file', { file: context.ref, location: 'line 1' });
    }
    warnings.finish(`line ${lines}`);
    return { records };
  },
};

/**
 * Every file input read into one sink, in the order named: each input is opened (its head
 * read) while the one before is parsed, its format detected from that head, and parsed where
 * it is cheapest (./parallel/read-source.ts). A file found by walking a directory that is no
 * format we read is skipped and said so; with keepGoing, an unreadable input is recorded and
 * the rest are read.
 */
import type { ObservationSink, SourceSummary } from '../model/index.js';
import { InputError } from '../support/index.js';
import { detectOrSkip } from './detect.js';
import { HEAD_CHARS, hostForInput, openInput, type InputRef, type OpenedInput } from './inputs.js';
import { parseSource, type ParsePerformance } from './parallel/read-source.js';
import { PARSE_WORKER_MIN_BYTES } from './parallel/policy.js';
import { withWarnings } from './sink-with-warnings.js';
import { inputLimitsOf, type InputLimits } from './input-limits.js';

/** A sink told where each input starts (the fleet analyzer names warnings by source). */
export type SourceSink = ObservationSink & { beginSource(ref: string): void };

export interface ReadFilesOptions {
  /** Host for inputs that name none (overrides the file name). */
  host?: string;
  timeZone: string;
  keepGoing: boolean;
  /** --input-limit: caps the parsers apply (input-limits.ts); defaults where absent. */
  inputLimits?: Partial<InputLimits>;
  stdin?: NodeJS.ReadableStream;
  /** Called as each input starts, for progress display. */
  onInput?: (ref: string, index: number, total: number) => void;
  /**
   * Called once, before the input with which the inputs reach LARGE_READ_BYTES in all is read,
   * so that a program can prepare for a long read (the CLI tunes V8's garbage collection then).
   * A thousand small host snapshots are as long a read as one large log.
   */
  onLargeInput?: (ref: string) => void;
  performance?: ParsePerformance;
}

export interface FilesRead {
  sources: SourceSummary[];
  /** Inputs that could not be read (only with keepGoing; otherwise the first one is thrown). */
  failures: InputError[];
}

/** Bytes of input from which a read is a long one (see onLargeInput): where a parse worker starts to pay. */
export const LARGE_READ_BYTES = PARSE_WORKER_MIN_BYTES;

/** Warning messages kept per source; the rest are counted so a broken log cannot flood the report. */
const MAX_WARNINGS_PER_SOURCE = 50;

export async function readFiles(inputs: readonly InputRef[], sink: SourceSink, options: ReadFilesOptions): Promise<FilesRead> {
  const sources: SourceSummary[] = [];
  const failures: InputError[] = [];
  let opening: Promise<OpenedInput> | undefined = inputs.length === 0 ? undefined : openAhead(inputs[0]!, options);
  let bytesOpened = 0;
  try {
    for (const [index, input] of inputs.entries()) {
      options.onInput?.(input.ref, index, inputs.length);
      const thisOne: Promise<OpenedInput> = opening!;
      opening = index + 1 < inputs.length ? openAhead(inputs[index + 1]!, options) : undefined;
      try {
        const opened = await thisOne;
        const before = bytesOpened;
        bytesOpened += inputBytes(opened);
        if (before < LARGE_READ_BYTES && bytesOpened >= LARGE_READ_BYTES) options.onLargeInput?.(input.ref);
        sources.push(await readInput(input, opened, sink, options));
      } catch (error) {
        if (!(error instanceof InputError) || !options.keepGoing) throw error;
        failures.push(error);
        sources.push({ ref: input.ref, format: 'unreadable', records: 0, warnings: [error.describe()] });
      }
    }
  } finally {
    // Stopped early: the input opened ahead is not read.
    opening?.then((opened) => opened.close(), () => undefined);
  }
  return { sources, failures };
}

/** An input's size; one whose size is unknown (stdin) counts as large once it outgrows its head. */
function inputBytes(opened: OpenedInput): number {
  return opened.bytes ?? (opened.head.length < HEAD_CHARS ? opened.head.length : LARGE_READ_BYTES);
}

/** `openInput`, its failure held until the input's turn (a failure nobody awaits is not an unhandled rejection). */
function openAhead(input: InputRef, options: ReadFilesOptions): Promise<OpenedInput> {
  const opening = openInput(input, options.stdin);
  opening.catch(() => undefined);
  return opening;
}

async function readInput(input: InputRef, opened: OpenedInput, sink: SourceSink, options: ReadFilesOptions): Promise<SourceSummary> {
  try {
    const detected = detectOrSkip(opened.head, input);
    if (detected.skipped !== undefined) return { ref: input.ref, format: 'skipped', records: 0, warnings: [`skipped: ${detected.skipped}`] };
    const parser = detected.parser;
    opened.setTextPieceBytes(parser.textPieceBytes);
    const warnings: string[] = [];
    let warningCount = 0;
    const sourceSink = withWarnings(sink, (warning) => {
      warningCount += 1;
      if (warnings.length < MAX_WARNINGS_PER_SOURCE) warnings.push(`${warning.location}: ${warning.message}`);
    });
    sink.beginSource(input.ref);
    const context = { ref: input.ref, host: hostForInput(input, options.host), timeZone: options.timeZone, limits: inputLimitsOf(options.inputLimits) };
    const result = await parseSource(input, opened, parser, context, sourceSink, options.performance);
    if (warningCount > warnings.length) warnings.push(`… and ${warningCount - warnings.length} more warnings`);
    return { ref: input.ref, format: parser.format, records: result.records, warnings };
  } finally {
    opened.close();
  }
}

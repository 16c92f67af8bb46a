/**
 * Line splitting for the text formats. Input arrives as decoded chunks that may end
 * anywhere (inside a line, between `\r` and `\n`); parsers want whole lines, numbered
 * from 1, without the line end and without a leading byte-order mark.
 */
import { InputError } from '../../../support/index.js';

export type LineHandler = (line: string, lineNumber: number) => void;

/**
 * No nvidia-smi text line comes near this (the widest, a `--query-gpu` header with every
 * field, is about 10,000 characters). A longer "line" means the input is not text of ours,
 * and holding it would make memory grow with the input.
 */
export const MAX_LINE_CHARS = 1 << 20;

const BYTE_ORDER_MARK = 0xfeff;
const CARRIAGE_RETURN = 0x0d;

/**
 * Push chunks in, get whole lines out through a callback (a callback, not an async
 * iterator, because a 1 GB log has tens of millions of lines and a promise per line
 * costs more than the parsing). A string per line: LineSpanSplitter below, with each span
 * cut out of its chunk.
 */
export class LineSplitter {
  private readonly spans: LineSpanSplitter;

  /** `atFileStart` as LineSpanSplitter's. */
  constructor(file: string, onLine: LineHandler, atFileStart = true) {
    this.spans = new LineSpanSplitter(file, (text, start, end, lineNumber) =>
      onLine(start === 0 && end === text.length ? text : text.slice(start, end), lineNumber), atFileStart);
  }

  push(chunk: string): void {
    this.spans.push(chunk);
  }

  /** Emits the last line when the input does not end with a newline. */
  finish(): void {
    this.spans.finish();
  }

  /** Lines emitted so far (the number of the last one). */
  get linesRead(): number {
    return this.spans.linesRead;
  }
}

/** Reads every chunk and calls `onLine` for each line; returns the number of lines. `atFileStart` as LineSpanSplitter's. */
export async function forEachLine(chunks: AsyncIterable<string>, file: string, onLine: LineHandler, atFileStart = true): Promise<number> {
  const splitter = new LineSplitter(file, onLine, atFileStart);
  for await (const chunk of chunks) splitter.push(chunk);
  splitter.finish();
  return splitter.linesRead;
}

/**
 * The first `count` non-blank lines of a detection head, with BOM and `\r` removed.
 * The last one may be cut short where the head ends.
 */
export function leadingLines(head: string, count: number): string[] {
  const lines: string[] = [];
  let start = head.charCodeAt(0) === BYTE_ORDER_MARK ? 1 : 0;
  while (lines.length < count && start < head.length) {
    const newline = head.indexOf('\n', start);
    const end = newline === -1 ? head.length : newline;
    const line = head.slice(start, end).replace(/\r$/, '');
    if (line.trim() !== '') lines.push(line);
    start = end + 1;
  }
  return lines;
}

/**
 * Whether the first line of a detection head, without BOM and `\r`, is exactly `expected`:
 * detection by the one header line a program writes (the CSVs of a `gpu-audit collect`
 * bundle). Unlike leadingLines, blank lines are not skipped: the program writes none.
 */
export function isFirstLine(head: string, expected: string): boolean {
  const start = head.charCodeAt(0) === BYTE_ORDER_MARK ? 1 : 0;
  const newline = head.indexOf('\n', start);
  let end = newline === -1 ? head.length : newline;
  if (end > start && head.charCodeAt(end - 1) === CARRIAGE_RETURN) end -= 1;
  return end - start === expected.length && head.startsWith(expected, start);
}

/** A line as text[start, end), without its line end; `text` is often a whole chunk. */
export type LineSpanHandler = (text: string, start: number, end: number, lineNumber: number) => void;

/**
 * Lines read in place: a line inside one chunk is passed as a span of the chunk (no string
 * per line); only a line cut by a chunk boundary is joined into a string of its own. Pieces
 * of an unfinished line are kept in a list and joined once, so a long line split over many
 * chunks costs linear time.
 */
export class LineSpanSplitter {
  private readonly pieces: string[] = [];
  private pendingChars = 0;
  private lineNumber = 0;
  private started: boolean;

  /** `atFileStart`: the text starts the file, so a byte order mark there is dropped (one further in is text). */
  constructor(
    private readonly file: string,
    private readonly onLine: LineSpanHandler,
    atFileStart = true,
  ) {
    this.started = !atFileStart;
  }

  push(chunk: string): void {
    if (chunk.length === 0) return;
    let start = 0;
    if (!this.started) {
      this.started = true;
      if (chunk.charCodeAt(0) === BYTE_ORDER_MARK) start = 1;
    }
    let newline = chunk.indexOf('\n', start);
    while (newline !== -1) {
      if (this.pieces.length > 0) {
        this.pieces.push(chunk.slice(start, newline));
        const line = this.pieces.join('');
        this.pieces.length = 0;
        this.pendingChars = 0;
        this.emit(line, 0, line.length);
      } else {
        this.emit(chunk, start, newline);
      }
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) {
      this.pieces.push(start === 0 ? chunk : chunk.slice(start));
      this.pendingChars += chunk.length - start;
      if (this.pendingChars > MAX_LINE_CHARS) {
        throw new InputError(`line longer than ${MAX_LINE_CHARS} characters: not line-oriented telemetry text`, {
          file: this.file,
          location: `line ${this.lineNumber + 1}`,
        });
      }
    }
  }

  /** Emits the last line when the input does not end with a newline. */
  finish(): void {
    if (this.pieces.length === 0) return;
    const line = this.pieces.join('');
    this.pieces.length = 0;
    this.pendingChars = 0;
    this.emit(line, 0, line.length);
  }

  /** Lines emitted so far (the number of the last one). */
  get linesRead(): number {
    return this.lineNumber;
  }

  private emit(text: string, start: number, end: number): void {
    this.lineNumber += 1;
    this.onLine(text, start, end > start && text.charCodeAt(end - 1) === CARRIAGE_RETURN ? end - 1 : end, this.lineNumber);
  }
}

/** forEachLine for span handlers; `atFileStart` as LineSpanSplitter's. */
export async function forEachLineSpan(chunks: AsyncIterable<string>, file: string, onLine: LineSpanHandler, atFileStart = true): Promise<number> {
  const splitter = new LineSpanSplitter(file, onLine, atFileStart);
  for await (const chunk of chunks) splitter.push(chunk);
  splitter.finish();
  return splitter.linesRead;
}

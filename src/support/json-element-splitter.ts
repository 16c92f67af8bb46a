/**
 * Reads a JSON document chunk by chunk and hands over each element of one array in it, as its
 * own text, the moment the element ends: `{"status":..,"data":{"result":[ E0, E1, ... ]}}`
 * gives E0, E1, ... to the caller, who parses each with JSON.parse. What is left, the
 * envelope, is kept with every element replaced by `0`, for JSON.parse at the end.
 *
 * Why: JSON.parse of a whole Prometheus range answer holds every point as objects at once,
 * about ten times the text; an element at a time holds one series. The split only finds where values start and end: strings (with escapes) and
 * brackets. Every piece is still parsed by JSON.parse, so a document it accepts in pieces is
 * one JSON.parse accepts whole, and an invalid one fails in one of the pieces or here.
 *
 * The array is found by the keys on its path (the first names an object member of the
 * document, the next a member of that value, ...). A key that comes twice makes JSON.parse
 * keep the last value: the array met last replaces what an earlier one handed over
 * (`onArrayStart`). The values of string members on the way (such as `data.resultType`) are
 * noted as they come, for a caller that needs them before the end (`stringAt`).
 *
 * Positions: a syntax error must name the line and column of the document, but JSON.parse
 * only sees a piece. So the splitter counts lines as it goes (outside strings, where a raw line
 * break cannot stand), hands each element over with the position of its first character, and
 * keeps, per element, where the envelope's text after it stands in the document
 * (`positionInEnvelope`): three numbers per element, never the document's text.
 */

import { jsonErrorOffset } from './json-error-offset.js';
import { detached } from './text/detached.js';
import { toDisplayText } from './text/sanitize.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const NEWLINE = 0x0a;
const SPACE = 0x20;

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

export interface ElementSplitterHandlers {
  /** The array on the path opens (again, for a repeated key: drop what the earlier one gave). */
  onArrayStart(): void;
  /**
   * One element's text, with its index in the array and where it starts in the document: its
   * line and column, and `offset`, the characters of the document before it.
   */
  onElement(text: string, index: number, start: JsonPosition, offset: number): void;
}

/** A place in the document: 1-based line, and 1-based column in characters. */
export interface JsonPosition {
  line: number;
  column: number;
}

/** `position` characters into `text`, which starts at `start` in the document. */
export function positionAfter(start: JsonPosition, text: string, position: number): JsonPosition {
  let line = start.line;
  let lineStart = -1;
  for (let at = text.indexOf('\n'); at !== -1 && at < position; at = text.indexOf('\n', at + 1)) {
    line += 1;
    lineStart = at;
  }
  return { line, column: lineStart === -1 ? start.column + position : position - lineStart };
}

/**
 * What JSON.parse said of a piece, on one line and without the offset V8 names for some syntax
 * errors: that is a place in the piece, not in the document (callers say where the piece is).
 * V8's message may quote input lines.
 */
export function pieceSyntaxError(error: unknown): string {
  // V8 may quote the input around the error: made one line, and stripped of controls, so no input byte reaches the terminal as an escape.
  return toDisplayText(String((error as Error).message).replace(/\s+/gu, ' ').replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?/u, ''));
}

const CUT_SHORT = /Unexpected end of JSON input/u;

/**
 * Where a streamed document's syntax error is, where that can be said without its whole text:
 * its end, for one that is cut short (JSON.parse saw only part of it, whose offsets are not the file's).
 */
export function jsonEndLocation(error: unknown): string | undefined {
  return CUT_SHORT.test(String((error as Error | undefined)?.message ?? '')) ? 'end of file (cut short)' : undefined;
}

/**
 * Where JSON.parse stopped in `text` (a whole document), as `line L, column C` (both from 1):
 * from the offset V8 names ("at position N"), the end of the text for "Unexpected end of JSON
 * input", else where ./json-error-offset.ts finds the text stops being JSON.
 */
export function jsonSyntaxLocation(error: unknown, text: string): string | undefined {
  const message = String((error as Error | undefined)?.message ?? '');
  const position = /at position (\d+)/u.exec(message)?.[1];
  // Where V8 names no place (Node 20: "Unexpected token '}', ... is not valid JSON"), a scan of the text finds it.
  const offset = position !== undefined ? Number(position) : CUT_SHORT.test(message) ? text.length : jsonErrorOffset(text);
  if (offset === undefined) return undefined;
  return positionText(positionAfter({ line: 1, column: 1 }, text, Math.min(offset, text.length)));
}

/** `line 3, column 7`: how every JSON reader names a place in its input. */
export function positionText(position: JsonPosition): string {
  return `line ${position.line}, column ${position.column}`;
}

/** A bracket that closes what is not open: a syntax error the splitter finds itself, with where. */
export class JsonSplitError extends SyntaxError {
  constructor(message: string, readonly position: JsonPosition) {
    super(message);
  }
}

export class JsonElementSplitter {
  /** Open containers, outermost first: OPEN_BRACE or OPEN_BRACKET. */
  private readonly stack: number[] = [];
  /** Per open object up to the path's depth: the member key last read. */
  private readonly keys: (string | undefined)[] = [];
  /** In the innermost object: a `:` came, so a string now is a value, not a key. */
  private expectingValue = false;
  private inString = false;
  private escaped = false;
  /** A string being read at the path's depths or above: its raw text, gathered across chunks. */
  private stringParts: string[] | undefined;
  /** The last complete such string, raw (still escaped): a key once `:` follows. */
  private lastString: string | undefined;
  /** The depth of the array on the path while it is open, else -1. */
  private arrayDepth = -1;
  /** Text of the element being read, across chunks; undefined between elements. */
  private elementParts: string[] | undefined;
  /** Characters of elementParts. */
  private elementLength = 0;
  /** The element being read is a string, number or literal: it ends at `,`, `]` or a blank. */
  private elementIsScalar = false;
  private elementIndex = 0;
  private readonly envelope: string[] = [];
  private envelopeLength = 0;
  private readonly strings = new Map<string, string>();
  /** Characters of the chunks before the current one; the line being read and its first character's offset. */
  private consumed = 0;
  private line = 1;
  private lineStart = 0;
  /** Where the element being read starts in the document. */
  private elementStart: JsonPosition = { line: 1, column: 1 };
  private elementOffset = 0;
  /** Per element handed over: the envelope's length after its `0`, and the document position after the element. */
  private readonly anchorOffsets: number[] = [];
  private readonly anchorLines: number[] = [];
  private readonly anchorColumns: number[] = [];

  constructor(
    private readonly path: readonly string[],
    private readonly handlers: ElementSplitterHandlers,
  ) {}

  /** Characters of the envelope kept so far (what `end` returns). */
  get envelopeChars(): number {
    return this.envelopeLength;
  }

  /** Characters of the element being read that earlier chunks held (0 between elements). */
  get openElementChars(): number {
    return this.elementLength;
  }

  /** The value of a string member on the way to the array (`data.resultType`), once read. */
  stringAt(dottedPath: string): string | undefined {
    return this.strings.get(dottedPath);
  }

  write(chunk: string): void {
    const { stack } = this;
    // Where the current run of envelope, element or string text began in this chunk (-1: none).
    let envelopeFrom = this.elementParts === undefined ? 0 : -1;
    let elementFrom = this.elementParts === undefined ? -1 : 0;
    let stringFrom = this.stringParts === undefined ? -1 : 0;
    for (let at = 0; at < chunk.length; at += 1) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        // Most of a document is string text: jump to the quote that closes it.
        const close = this.closingQuote(chunk, at);
        if (close === -1) break;
        at = close;
        this.inString = false;
        if (stringFrom !== -1) {
          this.stringParts!.push(chunk.slice(stringFrom, at));
          this.endString(this.stringParts!.join(''));
          stringFrom = -1;
        }
        continue;
      }
      const code = chunk.charCodeAt(at);
      if (this.elementIsScalar && (code === COMMA || code === CLOSE_BRACKET || isJsonWhitespace(code))) {
        this.endElement(chunk, elementFrom, at);
        elementFrom = -1;
        envelopeFrom = at;
      }
      if (code === SPACE) continue; // indentation, the rest of what is not string text
      if (code === NEWLINE) {
        this.line += 1;
        this.lineStart = this.consumed + at + 1;
      }
      if (code === QUOTE) {
        this.inString = true;
        if (this.atElementStart()) {
          envelopeFrom = this.startElement(chunk, envelopeFrom, at, true);
          elementFrom = at;
        } else if (this.elementParts === undefined && stack.length <= this.path.length) {
          this.stringParts = [];
          stringFrom = at + 1;
        }
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        if (this.atElementStart()) {
          envelopeFrom = this.startElement(chunk, envelopeFrom, at, false);
          elementFrom = at;
        }
        stack.push(code);
        this.lastString = undefined;
        this.expectingValue = false;
        if (code === OPEN_BRACE) {
          if (stack.length <= this.path.length) this.keys[stack.length - 1] = undefined;
        } else if (this.arrayDepth === -1 && this.onPath()) {
          this.arrayDepth = stack.length;
          this.elementIndex = 0;
          this.handlers.onArrayStart();
        }
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        if (stack.pop() !== (code === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) {
          throw new JsonSplitError(`Unexpected token '${String.fromCharCode(code)}' in JSON`, this.positionAt(at));
        }
        if (stack.length + 1 === this.arrayDepth) {
          this.arrayDepth = -1;
        } else if (this.elementParts !== undefined && stack.length === this.arrayDepth) {
          this.endElement(chunk, elementFrom, at + 1);
          elementFrom = -1;
          envelopeFrom = at + 1;
        }
      } else if (code === COLON) {
        if (stack.length <= this.path.length && this.lastString !== undefined) this.keys[stack.length - 1] = decodeJsonString(this.lastString);
        this.lastString = undefined;
        this.expectingValue = true;
      } else if (code === COMMA) {
        this.lastString = undefined;
        this.expectingValue = false;
      } else if (!isJsonWhitespace(code) && this.atElementStart()) {
        envelopeFrom = this.startElement(chunk, envelopeFrom, at, true);
        elementFrom = at;
      }
    }
    if (stringFrom !== -1) this.stringParts!.push(chunk.slice(stringFrom));
    if (elementFrom !== -1) {
      this.elementParts!.push(chunk.slice(elementFrom));
      this.elementLength += chunk.length - elementFrom;
    }
    if (envelopeFrom !== -1) this.pushEnvelope(detached(chunk.slice(envelopeFrom)));
    this.consumed += chunk.length;
  }

  /**
   * Where the character at `offset` of the envelope (the text `end` returns, whose syntax error
   * JSON.parse reports by offset) stands in the document.
   */
  positionInEnvelope(envelope: string, offset: number): JsonPosition {
    const offsets = this.anchorOffsets;
    // The last element whose `0` ends at or before the offset (the anchors rise with the envelope).
    let low = 0;
    let high = offsets.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (offsets[middle]! <= offset) low = middle + 1;
      else high = middle - 1;
    }
    if (high === -1) return positionAfter({ line: 1, column: 1 }, envelope, offset);
    const from = offsets[high]!;
    return positionAfter({ line: this.anchorLines[high]!, column: this.anchorColumns[high]! }, envelope.slice(from, offset + 1), offset - from);
  }

  /** The document with each element replaced by `0`; throws a SyntaxError, as JSON.parse does, when it ends inside a value. */
  end(): string {
    if (this.stack.length > 0 || this.inString || this.elementParts !== undefined) throw new SyntaxError('Unexpected end of JSON input');
    return this.envelope.join('');
  }

  /**
   * The quote that closes the string being read, at or after `from` (where no escape is pending),
   * or -1 when the chunk ends first; then `escaped` says whether its last character escapes the
   * next chunk's first. A quote ends the string when an even number of backslashes precedes it.
   */
  private closingQuote(chunk: string, from: number): number {
    for (let quote = chunk.indexOf('"', from); quote !== -1; quote = chunk.indexOf('"', quote + 1)) {
      if (backslashesBefore(chunk, quote, from) % 2 === 0) return quote;
    }
    this.escaped = backslashesBefore(chunk, chunk.length, from) % 2 === 1;
    return -1;
  }

  /** Whether a value starting here is an element of the array on the path. */
  private atElementStart(): boolean {
    return this.arrayDepth !== -1 && this.stack.length === this.arrayDepth && this.elementParts === undefined;
  }

  /** Ends the envelope's run at `at` with a `0` in the element's place; returns the new envelope start (none). */
  private startElement(chunk: string, envelopeFrom: number, at: number, scalar: boolean): number {
    // Copies: a slice would keep the whole chunk it was cut from.
    if (envelopeFrom !== -1) this.pushEnvelope(detached(chunk.slice(envelopeFrom, at)));
    this.pushEnvelope('0');
    this.elementStart = this.positionAt(at);
    this.elementOffset = this.consumed + at;
    this.elementParts = [];
    this.elementIsScalar = scalar;
    return -1;
  }

  private endElement(chunk: string, from: number, to: number): void {
    const parts = this.elementParts!;
    if (from !== -1) parts.push(chunk.slice(from, to));
    this.elementParts = undefined;
    this.elementLength = 0;
    this.elementIsScalar = false;
    const after = this.positionAt(to);
    this.anchorOffsets.push(this.envelopeLength);
    this.anchorLines.push(after.line);
    this.anchorColumns.push(after.column);
    this.handlers.onElement(parts.length === 1 ? parts[0]! : parts.join(''), this.elementIndex, this.elementStart, this.elementOffset);
    this.elementIndex += 1;
  }

  private pushEnvelope(text: string): void {
    this.envelope.push(text);
    this.envelopeLength += text.length;
  }

  /** The document position of `at` in the chunk being read (lines are counted up to it). */
  private positionAt(at: number): JsonPosition {
    return { line: this.line, column: this.consumed + at - this.lineStart + 1 };
  }

  /** Whether the containers open now are the path's, so that an array opening here is the one. */
  private onPath(): boolean {
    const { stack, path, keys } = this;
    if (stack.length !== path.length + 1) return false;
    for (let depth = 0; depth < path.length; depth += 1) {
      if (stack[depth] !== OPEN_BRACE || keys[depth] !== path[depth]) return false;
    }
    return true;
  }

  /** A string closed at the path's depths: a member's value (noted by its path) or a key to be. */
  private endString(raw: string): void {
    this.stringParts = undefined;
    const { stack } = this;
    const depth = stack.length;
    if (!this.expectingValue || stack[depth - 1] !== OPEN_BRACE) {
      this.lastString = raw;
      return;
    }
    for (let level = 0; level < depth - 1; level += 1) if (this.keys[level] !== this.path[level]) return;
    const key = this.keys[depth - 1];
    if (key !== undefined) this.strings.set([...this.path.slice(0, depth - 1), key].join('.'), detached(decodeJsonString(raw)));
  }
}

/** Backslashes right before `at`, back to `from` at most. */
function backslashesBefore(chunk: string, at: number, from: number): number {
  let count = 0;
  while (at - count > from && chunk.charCodeAt(at - count - 1) === BACKSLASH) count += 1;
  return count;
}

/** A string's raw text (between its quotes) as JSON reads it; escapes are rare in keys. */
function decodeJsonString(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw; // invalid: JSON.parse of the envelope reports it
  }
}

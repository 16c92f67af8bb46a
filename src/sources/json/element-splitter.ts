/**
 * Reads a JSON document chunk by chunk and hands over each element of one array in it, as its
 * own text, the moment the element ends: `{"status":..,"data":{"result":[ E0, E1, ... ]}}`
 * gives E0, E1, ... to the caller, who parses each with JSON.parse. What is left, the
 * envelope, is kept with every element replaced by `0`, for JSON.parse at the end.
 *
 * Why: JSON.parse of a whole Prometheus range answer holds every point as objects at once,
 * about ten times the text (a 91 MB answer peaked near 1 GB); an element at a time holds one
 * series. The split only finds where values start and end: strings (with escapes) and
 * brackets. Every piece is still parsed by JSON.parse, so a document it accepts in pieces is
 * one JSON.parse accepts whole, and an invalid one fails in one of the pieces or here.
 *
 * The array is found by the keys on its path (the first names an object member of the
 * document, the next a member of that value, ...). A key that comes twice makes JSON.parse
 * keep the last value: the array met last replaces what an earlier one handed over
 * (`onArrayStart`). The values of string members on the way (such as `data.resultType`) are
 * noted as they come, for a caller that needs them before the end (`stringAt`).
 */

import { detached } from '../../text/detached.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

export interface ElementSplitterHandlers {
  /** The array on the path opens (again, for a repeated key: drop what the earlier one gave). */
  onArrayStart(): void;
  /** One element's text, with its position in the array. */
  onElement(text: string, index: number): void;
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
  /** The element being read is a string, number or literal: it ends at `,`, `]` or a blank. */
  private elementIsScalar = false;
  private elementIndex = 0;
  private readonly envelope: string[] = [];
  private readonly strings = new Map<string, string>();

  constructor(
    private readonly path: readonly string[],
    private readonly handlers: ElementSplitterHandlers,
  ) {}

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
      const code = chunk.charCodeAt(at);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTE) {
          this.inString = false;
          if (stringFrom !== -1) {
            this.stringParts!.push(chunk.slice(stringFrom, at));
            this.endString(this.stringParts!.join(''));
            stringFrom = -1;
          }
        }
        continue;
      }
      if (this.elementIsScalar && (code === COMMA || code === CLOSE_BRACKET || isJsonWhitespace(code))) {
        this.endElement(chunk, elementFrom, at);
        elementFrom = -1;
        envelopeFrom = at;
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
        if (stack.pop() !== (code === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) throw new SyntaxError(`Unexpected token '${String.fromCharCode(code)}' in JSON`);
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
    if (elementFrom !== -1) this.elementParts!.push(chunk.slice(elementFrom));
    if (envelopeFrom !== -1) this.envelope.push(detached(chunk.slice(envelopeFrom)));
  }

  /** The document with each element replaced by `0`; throws a SyntaxError, as JSON.parse does, when it ends inside a value. */
  end(): string {
    if (this.stack.length > 0 || this.inString || this.elementParts !== undefined) throw new SyntaxError('Unexpected end of JSON input');
    return this.envelope.join('');
  }

  /** Whether a value starting here is an element of the array on the path. */
  private atElementStart(): boolean {
    return this.arrayDepth !== -1 && this.stack.length === this.arrayDepth && this.elementParts === undefined;
  }

  /** Ends the envelope's run at `at` with a `0` in the element's place; returns the new envelope start (none). */
  private startElement(chunk: string, envelopeFrom: number, at: number, scalar: boolean): number {
    // Copies: a slice would keep the whole chunk it was cut from.
    if (envelopeFrom !== -1) this.envelope.push(detached(chunk.slice(envelopeFrom, at)));
    this.envelope.push('0');
    this.elementParts = [];
    this.elementIsScalar = scalar;
    return -1;
  }

  private endElement(chunk: string, from: number, to: number): void {
    const parts = this.elementParts!;
    if (from !== -1) parts.push(chunk.slice(from, to));
    this.elementParts = undefined;
    this.elementIsScalar = false;
    this.handlers.onElement(parts.length === 1 ? parts[0]! : parts.join(''), this.elementIndex);
    this.elementIndex += 1;
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

/** A string's raw text (between its quotes) as JSON reads it; escapes are rare in keys. */
function decodeJsonString(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw; // invalid: JSON.parse of the envelope reports it
  }
}

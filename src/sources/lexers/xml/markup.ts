/**
 * What the XML document scanner (document-scanner.ts) and its reference, the plain
 * splitter the tests hold it to, share: the documents they hand on, their limits, and the
 * character-level pieces of their state machine (states, code points, name rules, line
 * counting, message excerpts).
 */

export interface WellFormedDocument {
  wellFormed: true;
  /** 1-based position of the document in the input (defective documents count too). */
  number: number;
  rootName: string;
  /** The root element, from its `<` to the `>` of its end tag; no prolog. */
  rootText: string;
  /** Input line (1-based) on which the root element starts. */
  rootLine: number;
}

export interface DefectiveDocument {
  wellFormed: false;
  number: number;
  /** What was wrong and what was expected instead. */
  problem: string;
  /** Input line (1-based) where the problem was seen. */
  line: number;
}

export type SplitDocument = WellFormedDocument | DefectiveDocument;

/** nvidia-smi documents are well under 1 MiB even with eight GPUs; this bounds memory on hostile input. */
export const MAX_DOCUMENT_CHARS = 64 * 1024 * 1024;
/** nvidia-smi nests about seven levels deep; a deeper stack is not its output. */
export const MAX_ELEMENT_DEPTH = 256;

export interface SplitterLimits {
  maxDocumentChars: number;
  maxElementDepth: number;
}

export type MarkupState =
  | 'text' // character data, or whitespace between prolog markup
  | 'markup-open' // just after '<'
  | 'bang' // after '<!': comment, CDATA or DOCTYPE?
  | 'comment'
  | 'cdata'
  | 'pi-target'
  | 'pi'
  | 'doctype'
  | 'start-tag-name'
  | 'start-tag' // attributes, up to '>' or '/>'
  | 'end-tag-name'
  | 'end-tag' // whitespace, up to '>'
  | 'skip'; // after a fault: looking for the next '<?xml'

export const LT = 0x3c;
export const GT = 0x3e;
export const SLASH = 0x2f;
export const QUESTION = 0x3f;
export const BANG = 0x21;
export const DASH = 0x2d;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACKET = 0x5b;
export const DOUBLE_QUOTE = 0x22;
export const SINGLE_QUOTE = 0x27;
export const BYTE_ORDER_MARK = 0xfeff;

export const BANG_CONSTRUCTS = ['--', '[CDATA[', 'DOCTYPE'] as const;
export const DECLARATION = '<?xml';

export function isXmlWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

export function isNameStart(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || code === 0x3a || code >= 0x80;
}

export function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39) || code === DASH || code === 0x2e;
}

/** A short, quoted excerpt for messages. */
export function excerpt(text: string, from: number): string {
  const line = text.slice(from, from + 24).split('\n')[0] ?? '';
  return JSON.stringify(line);
}

export function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

/** Input line numbers, counted lazily and only forward, so each character is counted once. */
export class LineCounter {
  private line = 1;
  private text = '';
  private cursor = 0;

  startChunk(text: string): void {
    this.line += countNewlines(this.text, this.cursor, this.text.length);
    this.text = text;
    this.cursor = 0;
  }

  /** Line of `index` in the current chunk; calls must not go backwards within a chunk. */
  lineAt(index: number): number {
    if (index > this.cursor) {
      this.line += countNewlines(this.text, this.cursor, index);
      this.cursor = index;
    }
    return this.line;
  }
}

/**
 * Which format an input is, from its head alone: the first parser of the registry that claims
 * it. An empty or binary head, or one no parser claims, is an InputError that says what was
 * expected; a file found by walking a directory is skipped instead.
 */
import { InputError } from '../support/index.js';
import type { InputRef } from './inputs.js';
import { sourceParsers } from './registry.js';
import type { SourceParser } from './types.js';

/** Share of U+FFFD / NUL / other control characters above which a head is binary, not text. */
const BINARY_SHARE = 0.1;

/** Characters of a head looked at for binary data, as git does: the head of a small file is the whole file. */
const BINARY_SNIFF_CHARS = 8192;

function looksBinary(head: string): boolean {
  const length = Math.min(head.length, BINARY_SNIFF_CHARS);
  let odd = 0;
  for (let i = 0; i < length; i += 1) {
    const code = head.charCodeAt(i);
    if (code === 0) return true;
    if (code === 0xfffd || (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d)) odd += 1;
  }
  return length > 0 && odd / length > BINARY_SHARE;
}

/** The parser for an input's head, or undefined when no format claims it. */
export function detectParser(head: string): SourceParser | undefined {
  return sourceParsers.find((parser) => parser.detect(head));
}

/** Like detectParser, but an unreadable head becomes an InputError that says what was expected. */
export function requireParser(head: string, ref: string): SourceParser {
  if (head.trim() === '') throw new InputError('the input is empty', { file: ref });
  if (looksBinary(head)) {
    throw new InputError('binary data, not a text format gpu-audit reads (expected nvidia-smi, DCGM or Prometheus output)', { file: ref });
  }
  const parser = detectParser(head);
  if (parser === undefined) {
    const formats = sourceParsers.map((candidate) => candidate.description).join(', ');
    throw new InputError(`unrecognised format: expected one of ${formats}`, { file: ref, location: 'line 1' });
  }
  return parser;
}

/** The parser for an input, or why a file found by walking a directory (a README, a help text) is skipped. */
export function detectOrSkip(head: string, input: InputRef): { parser: SourceParser; skipped?: undefined } | { skipped: string } {
  try {
    return { parser: requireParser(head, input.ref) };
  } catch (error) {
    if (input.discovered && error instanceof InputError) return { skipped: error.message };
    throw error;
  }
}

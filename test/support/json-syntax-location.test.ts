/**
 * JSON errors say where: line and column from V8's offset, the end for a cut document, and
 * never an input byte that a terminal would read as an escape.
 */
import { describe, expect, it } from 'vitest';
import { jsonSyntaxLocation, pieceSyntaxError } from '../../src/support/index.js';

function syntaxError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (error) {
    return error;
  }
  throw new Error('parsed');
}

describe('jsonSyntaxLocation', () => {
  it('names the end of a cut document', () => {
    const text = '{"a": [1,\n  2,\n';
    expect(jsonSyntaxLocation(syntaxError(text), text)).toBe('line 3, column 1');
  });

  it('names the line and column of the offset V8 gives', () => {
    const text = '{\n  "a": 1\n} x';
    // V8: "Unexpected non-whitespace character after JSON at position 14": line 3, column 3.
    expect(jsonSyntaxLocation(syntaxError(text), text)).toBe('line 3, column 3');
  });

  it('finds the place itself where the message names none (Node 20 gives none for an unexpected token)', () => {
    const text = '{\n  "gpus": [\n    {"id": "GPU-1",}\n  ]\n}';
    // The comma before } is fine; the } after it is where a key was expected: line 3, column 20.
    expect(jsonSyntaxLocation(new SyntaxError('Unexpected token \'}\', ... is not valid JSON'), text)).toBe('line 3, column 20');
    expect(jsonSyntaxLocation(new SyntaxError('something else'), '{}')).toBeUndefined();
  });
});

describe('pieceSyntaxError', () => {
  it('keeps the message on one line, without escapes from the input', () => {
    const message = pieceSyntaxError(syntaxError('{"a": 1,\n "b": \u001b[2J}'));
    expect([...message].filter((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f)).toEqual([]);
    expect(message).not.toContain('\n');
  });
});

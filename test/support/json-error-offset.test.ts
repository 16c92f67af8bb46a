/**
 * Where a JSON text stops being JSON: the offset of the first character the grammar cannot take,
 * the text's length for one cut short, nothing for valid JSON; checked against JSON.parse.
 */
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from '../../src/support/json-error-offset.js';

describe('jsonErrorOffset', () => {
  it.each([
    ['{"a": 1, "b": [true, false, null, -1.5e3, "x\\u00e9\\n"]}'],
    ['  [ ]  '],
    ['"just a string"'],
    ['{"deep": [[[[{"a": {}}]]]]}'],
    ['0'],
  ])('finds nothing wrong in %s, as JSON.parse', (text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(jsonErrorOffset(text)).toBeUndefined();
  });

  it.each([
    ['{"a": }', 6],
    ['{"a": 1,}', 8],
    ['[1, 2,]', 6],
    ['{"a" 1}', 5],
    ['{a: 1}', 1],
    ['[01]', 2],
    ['[1.]', 2],
    ['["tab\there"]', 5],
    ['["bad \\x escape"]', 7],
    ['["\\u12G4"]', 4],
    ['{} {}', 3],
    ['[tru]', 1],
    ['', 0],
  ])('puts the error of %s at offset %i, where JSON.parse refuses it', (text, offset) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(jsonErrorOffset(text)).toBe(offset);
  });

  it('names the end for a text cut short, or the start of the number or word the cut broke', () => {
    const whole = '{"gpus": [{"id": "GPU-1", "util": [1, 2.5, 3], "up": true}], "ok": false}';
    for (let cut = 1; cut < whole.length; cut += 1) {
      const piece = whole.slice(0, cut);
      const offset = jsonErrorOffset(piece)!;
      // "2." and "fals" are not JSON on their own: the place is the broken token's, at most 4 back.
      expect(offset, piece).toBeGreaterThanOrEqual(piece.length - 4);
      expect(offset, piece).toBeLessThanOrEqual(piece.length);
    }
  });

  it('scans a nesting far deeper than the call stack would allow', () => {
    const text = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(jsonErrorOffset(text)).toBeUndefined();
    expect(jsonErrorOffset(`${'['.repeat(200_000)}}`)).toBe(200_000);
  });
});

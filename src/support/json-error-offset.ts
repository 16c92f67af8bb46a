/**
 * Where a JSON text stops being JSON, for the syntax errors whose message names no place (V8
 * of Node 20 says "Unexpected token '}', ... is not valid JSON" without an offset): a scan of
 * RFC 8259's grammar, with an explicit stack (no recursion, so nesting depth costs memory, not
 * the call stack), in one pass. Undefined for valid JSON; the text's length for one cut short.
 */

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const LITERALS = ['true', 'false', 'null'] as const;

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

export function jsonErrorOffset(text: string): number | undefined {
  const end = text.length;
  const open: number[] = [];
  let at = 0;
  const skipBlanks = (): void => {
    while (at < end && isBlank(text.charCodeAt(at))) at += 1;
  };
  /** A string from its opening quote; false where it breaks (at then names where). */
  const string = (): boolean => {
    at += 1;
    while (at < end) {
      const code = text.charCodeAt(at);
      if (code === 0x22) {
        at += 1;
        return true;
      }
      if (code < 0x20) return false;
      if (code === 0x5c) {
        const escape = text[at + 1];
        if (escape === undefined) {
          at = end;
          return false;
        }
        if (escape === 'u') {
          HEX4.lastIndex = at + 2;
          if (HEX4.exec(text) === null) {
            at = Math.min(end, at + 2);
            return false;
          }
          at += 6;
          continue;
        }
        if (!ESCAPES.has(escape)) {
          at += 1;
          return false;
        }
        at += 2;
        continue;
      }
      at += 1;
    }
    return false;
  };
  let expect: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    skipBlanks();
    if (at >= end) return expect === 'after' && open.length === 0 ? undefined : end;
    const char = text[at]!;
    if (expect === 'value') {
      if (char === '{' || char === '[') {
        open.push(char.charCodeAt(0));
        at += 1;
        skipBlanks();
        if (text[at] === (char === '{' ? '}' : ']')) {
          open.pop();
          at += 1;
          expect = 'after';
        } else expect = char === '{' ? 'key' : 'value';
        continue;
      }
      if (char === '"') {
        if (!string()) return at;
        expect = 'after';
        continue;
      }
      const literal = LITERALS.find((word) => text.startsWith(word, at));
      if (literal !== undefined) {
        at += literal.length;
        expect = 'after';
        continue;
      }
      NUMBER.lastIndex = at;
      const number = NUMBER.exec(text);
      if (number === null || number[0].length === 0) return at;
      at += number[0].length;
      expect = 'after';
      continue;
    }
    if (expect === 'key') {
      if (char !== '"' || !string()) return at;
      skipBlanks();
      if (at >= end) return end;
      if (text[at] !== ':') return at;
      at += 1;
      expect = 'value';
      continue;
    }
    // After a value: the end, or the container's comma or close.
    const container = open.at(-1);
    if (container === undefined) return at;
    if (char === ',') {
      at += 1;
      expect = container === 0x7b ? 'key' : 'value';
      continue;
    }
    if (char === (container === 0x7b ? '}' : ']')) {
      open.pop();
      at += 1;
      continue;
    }
    return at;
  }
}

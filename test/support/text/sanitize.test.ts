import { describe, expect, it } from 'vitest';
import { escapeMarkdown, toDisplayBlock, toDisplayText } from '../../../src/support/text/sanitize.js';

describe('toDisplayText', () => {
  it.each<[string, string, string]>([
    ['a colour', '\u001b[31mred\u001b[0m', 'red'],
    ['a screen clear', 'a\u001b[2Jb', 'ab'],
    ['a window title (OSC) with its payload', '\u001b]0;pwned\u0007ok', 'ok'],
    ['a hyperlink (OSC 8)', '\u001b]8;;http://evil\u001b\\click\u001b]8;;\u001b\\', 'click'],
    ['an 8-bit CSI', 'x\u009b31my', 'xy'],
    ['a carriage return that would overwrite the line', 'safe\rEVIL', 'safe EVIL'],
    ['newlines and tabs', 'a\r\n\tb', 'a b'],
    ['a bell, a backspace and a NUL', 'a\u0007\b\u0000b', 'ab'],
    ['a right-to-left override', 'abc\u202etxt.exe', 'abctxt.exe'],
    ['plain Unicode', 'ノード-1 ✓', 'ノード-1 ✓'],
  ])('removes %s', (_name, input, expected) => {
    expect(toDisplayText(input)).toBe(expected);
  });
});

describe('toDisplayBlock', () => {
  it('keeps lines and indentation, normalises CRLF, drops escapes', () => {
    expect(toDisplayBlock('a:\r\n\tb: 1\n\u001b[31mc\u001b[0m: 2\u0007\n')).toBe('a:\n\tb: 1\nc: 2\n');
  });
});

describe('escapeMarkdown', () => {
  it.each<[string, string]>([
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['a|b', 'a\\|b'],
    ['*bold* _it_ `code`', '\\*bold\\* \\_it\\_ \\`code\\`'],
    ['[x](http://e)', '\\[x\\](http://e)'],
    ['~~gone~~ $math$', '\\~\\~gone\\~\\~ \\$math\\$'],
    ['C:\\dir', 'C:\\\\dir'],
    ['&lt; stays literal', '&amp;lt; stays literal'],
    ['two\nlines', 'two lines'],
  ])('makes %j inert', (input, expected) => {
    expect(escapeMarkdown(input)).toBe(expected);
  });
});

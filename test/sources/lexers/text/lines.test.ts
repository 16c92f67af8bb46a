import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { forEachLine, isFirstLine, leadingLines, LineSplitter, MAX_LINE_CHARS } from '../../../../src/sources/lexers/text/lines.js';
import { InputError } from '../../../../src/support/errors.js';
import { chunked } from '../../../helpers/sink.js';

async function linesOf(chunks: AsyncIterable<string>): Promise<[string, number][]> {
  const lines: [string, number][] = [];
  await forEachLine(chunks, 'input.txt', (line, lineNumber) => lines.push([line, lineNumber]));
  return lines;
}

async function* pieces(...parts: string[]): AsyncIterable<string> {
  yield* parts;
}

describe('forEachLine', () => {
  it('yields each line without its line end, numbered from 1', async () => {
    expect(await linesOf(pieces('a, b\nc, d\n'))).toEqual([['a, b', 1], ['c, d', 2]]);
  });

  it('yields a last line that has no newline', async () => {
    expect(await linesOf(pieces('a\nb'))).toEqual([['a', 1], ['b', 2]]);
  });

  it('keeps empty lines so that line numbers match the file', async () => {
    expect(await linesOf(pieces('a\n\nb\n'))).toEqual([['a', 1], ['', 2], ['b', 3]]);
  });

  it('drops the \\r of CRLF line ends, also when \\r and \\n arrive in different chunks', async () => {
    expect(await linesOf(pieces('a\r', '\nb\r\n'))).toEqual([['a', 1], ['b', 2]]);
  });

  it('drops a leading byte-order mark, even when the first chunk is empty', async () => {
    expect(await linesOf(pieces('', '\uFEFFtimestamp\n'))).toEqual([['timestamp', 1]]);
  });

  it('keeps a BOM-like character that is not at the start', async () => {
    expect(await linesOf(pieces('a\n', '\uFEFFb\n'))).toEqual([['a', 1], ['\uFEFFb', 2]]);
  });

  it('gives the same lines wherever the chunks are cut', async () => {
    const text = '\uFEFFtimestamp, name\r\n2026/07/14 09:00:44.579, NVIDIA H100\r\n\r\nlast';
    const whole = await linesOf(pieces(text));
    for (let cut = 0; cut <= text.length; cut += 1) {
      expect(await linesOf(pieces(text.slice(0, cut), text.slice(cut)))).toEqual(whole);
    }
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }), async (sizes) => {
        expect(await linesOf(chunked(text, sizes))).toEqual(whole);
      }),
    );
  });

  it('refuses a line longer than any nvidia-smi output, naming file and line', async () => {
    const splitter = new LineSplitter('big.bin', () => undefined);
    splitter.push('ok\n');
    const block = 'x'.repeat(64 * 1024);
    let error: unknown;
    try {
      for (let sent = 0; sent <= MAX_LINE_CHARS; sent += block.length) splitter.push(block);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ file: 'big.bin', location: 'line 2' });
  });
});

describe('leadingLines', () => {
  it('returns the first non-blank lines of a detection head, without BOM or \\r', () => {
    expect(leadingLines('\uFEFF\r\n\n# gpu pwr\r\n# Idx W\r\n    0  70\r\n', 2)).toEqual(['# gpu pwr', '# Idx W']);
  });

  it('returns what there is when the head is short or empty', () => {
    expect(leadingLines('only', 3)).toEqual(['only']);
    expect(leadingLines('', 1)).toEqual([]);
  });
});

describe('isFirstLine', () => {
  it('compares the first line, without BOM and \\r, with the expected text exactly', () => {
    expect(isFirstLine('a,b\nx,y\n', 'a,b')).toBe(true);
    expect(isFirstLine('\uFEFFa,b\r\nx,y\r\n', 'a,b')).toBe(true);
    expect(isFirstLine('a,b', 'a,b')).toBe(true); // a head with one line and no line end
    expect(isFirstLine('a,b,c\n', 'a,b')).toBe(false);
    expect(isFirstLine('a\n', 'a,b')).toBe(false);
    expect(isFirstLine('A,B\n', 'a,b')).toBe(false);
  });

  it('skips no blank line and strips one \\r only', () => {
    expect(isFirstLine('\na,b\n', 'a,b')).toBe(false);
    expect(isFirstLine('\uFEFF\r\na,b\n', 'a,b')).toBe(false);
    expect(isFirstLine('a,b\r\r\n', 'a,b')).toBe(false);
  });

  it('is the first line cut at the newline, with a leading BOM and a trailing \\r removed', () => {
    const rule = (head: string, expected: string): boolean => {
      const newline = head.indexOf('\n');
      const first = newline < 0 ? head : head.slice(0, newline);
      return first.replace(/^\uFEFF/, '').replace(/\r$/, '') === expected;
    };
    const text = (characters: string[]) => fc.array(fc.constantFrom(...characters), { maxLength: 8 }).map((picked) => picked.join(''));
    fc.assert(fc.property(text(['a', ',', '\r', '\n', '\uFEFF']), text(['a', ',']), (head, expected) => {
      expect(isFirstLine(head, expected)).toBe(rule(head, expected));
      expect(isFirstLine(`${expected}${head}`, expected)).toBe(rule(`${expected}${head}`, expected));
    }));
  });
});

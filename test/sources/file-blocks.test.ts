import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/model/errors.js';
import { blockCountOf, blockText, type FileBlock } from '../../src/sources/file-blocks.js';
import { READ_CHUNK_BYTES } from '../../src/sources/inputs.js';

let directory: string;

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-file-blocks-'));
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Writes `content` to a file of the temporary directory and returns its path. */
function fileWith(name: string, content: string | Buffer): string {
  const file = path.join(directory, name);
  writeFileSync(file, content);
  return file;
}

function blockOf(file: string, index: number, blockBytes: number, last: boolean, pieceBytes?: number): FileBlock {
  return { path: file, ref: 'input.log', index, blockBytes, last, marker: '', pieceBytes };
}

async function textOf(block: FileBlock): Promise<string> {
  let text = '';
  for await (const piece of blockText(block)) text += piece;
  return text;
}

/** Every block of the file as it is now, the last one marked last, read one after another. */
async function blocksOf(file: string, blockBytes: number, pieceBytes?: number): Promise<string[]> {
  const count = blockCountOf(statSync(file).size, blockBytes);
  const texts: string[] = [];
  for (let index = 0; index < count; index++) {
    texts.push(await textOf(blockOf(file, index, blockBytes, index === count - 1, pieceBytes)));
  }
  return texts;
}

describe('blockCountOf', () => {
  it('is ceil(size / blockBytes), and at least one block for an empty file', () => {
    expect(blockCountOf(0, 4)).toBe(1);
    expect(blockCountOf(1, 64)).toBe(1);
    expect(blockCountOf(8, 4)).toBe(2);
    expect(blockCountOf(9, 4)).toBe(3);
  });
});

describe('blockText, worked examples', () => {
  it('gives block i the lines whose first byte lies in [i*B, (i+1)*B)', async () => {
    // "ab\ncd\nef\n" is 9 bytes with newlines at 2, 5, 8, so lines start at 0, 3 and 6.
    // B = 4: 3 blocks. Block 0 = [0,4) holds the lines at 0 and 3: it ends after the first
    // newline at or after byte 3, which is byte 5. Block 1 = [4,8) starts after the first
    // newline at or after byte 3 (byte 5) and ends after the first at or after byte 7 (byte 8):
    // the line at 6. Block 2 = [8,9) starts after the newline at byte 8, at the end: empty.
    const file = fileWith('three-lines.log', 'ab\ncd\nef\n');
    expect(await blocksOf(file, 4)).toEqual(['ab\ncd\n', 'ef\n', '']);
  });

  it('gives a line that starts on a block boundary to the block it starts in', async () => {
    // "abc\ndef\n": newlines at 3 and 7, lines start at 0 and 4. B = 4: block 0 = [0,4) ends
    // after the newline at byte 3; block 1 = [4,8) starts after the newline at or after byte 3.
    const file = fileWith('boundary.log', 'abc\ndef\n');
    expect(await blocksOf(file, 4)).toEqual(['abc\n', 'def\n']);
  });

  it('leaves a block in which no line starts empty', async () => {
    // "abcdefghij\nk" is 12 bytes, newline at 10, lines start at 0 and 11. B = 3: 4 blocks.
    // Block 0 = [0,3) reads on to the newline at 10; blocks 1 = [3,6) and 2 = [6,9) hold no
    // line start (the first newline at or after bytes 2 and 5 is byte 10, so the next line starts
    // at 11, past their ends); block 3 = [9,12) holds the line at 11.
    const file = fileWith('long-line.log', 'abcdefghij\nk');
    expect(await blocksOf(file, 3)).toEqual(['abcdefghij\n', '', '', 'k']);
  });

  it('gives an empty file one empty block', async () => {
    const file = fileWith('empty.log', '');
    expect(await blocksOf(file, 4)).toEqual(['']);
  });

  it('lets the last block read on past the size it was planned for', async () => {
    // Planned at 6 bytes ("ab\ncd\n", lines at 0 and 3) with B = 4: 2 blocks. Block 1 = [4,8)
    // starts after the newline at byte 5; marked last, it also reads what was appended since.
    const file = fileWith('growing.log', 'ab\ncd\n');
    const count = blockCountOf(statSync(file).size, 4);
    expect(count).toBe(2);
    appendFileSync(file, 'ef\ngh\n');
    expect(await textOf(blockOf(file, 1, 4, true))).toBe('ef\ngh\n');
  });

  it('stops a block that is not last at the line holding its last byte, however long the file', async () => {
    // "ab\ncd\nef\ngh\n": lines at 0, 3, 6, 9. Block 1 = [4,8) holds only the line at 6.
    const file = fileWith('not-last.log', 'ab\ncd\nef\ngh\n');
    expect(await textOf(blockOf(file, 1, 4, false))).toBe('ef\n');
  });

  it('drops a byte order mark at the start of the file', async () => {
    // BOM (EF BB BF) then "ab\n": 6 bytes, one line at 0. B = 4: block 0 = [0,4) holds it,
    // block 1 = [4,6) starts after the newline at byte 5, at the end: empty.
    const file = fileWith('bom.log', '\uFEFFab\n');
    expect(await blocksOf(file, 4)).toEqual(['ab\n', '']);
  });

  it('keeps a byte order mark that starts a later block: it is text there', async () => {
    // BOM "ab\n" BOM "cd\n": 12 bytes, newlines at 5 and 11, lines at 0 and 6. B = 6: block 0 =
    // [0,6) is the first line without its BOM; block 1 = [6,12) starts at byte 6, a BOM.
    const file = fileWith('two-boms.log', '\uFEFFab\n\uFEFFcd\n');
    expect(await blocksOf(file, 6)).toEqual(['ab\n', '\uFEFFcd\n']);
  });

  it('decodes characters split across pieces of one byte', async () => {
    const file = fileWith('multibyte.log', 'é€😀\nx\n');
    expect(await blocksOf(file, 100, 1)).toEqual(['é€😀\nx\n']);
  });

  it('finds line starts and ends across reads of READ_CHUNK_BYTES', async () => {
    // A line of 3R x's (R = READ_CHUNK_BYTES), its newline at byte 3R, then "tail\n" from 3R+1:
    // 3R+6 bytes, lines at 0 and 3R+1. B = R: 4 blocks. Block 0 = [0,R) reads four chunks to
    // the newline at 3R; blocks 1 = [R,2R) and 2 = [2R,3R) scan chunks without a newline before
    // finding the next line start at 3R+1, past their ends; block 3 = [3R,3R+6) holds "tail\n".
    const long = 'x'.repeat(3 * READ_CHUNK_BYTES);
    const file = fileWith('huge-line.log', `${long}\ntail\n`);
    const blocks = await blocksOf(file, READ_CHUNK_BYTES);
    expect(blocks.map((text) => text.length)).toEqual([long.length + 1, 0, 0, 5]);
    expect(blocks[0] === `${long}\n`).toBe(true);
    expect(blocks[3]).toBe('tail\n');
  });

  it('ends a block at the first newline after its last byte also when that lies in a later read', async () => {
    // R + 10 x's, newline at byte R+10; R y's from R+11, newline at 2R+11: 2R+12 bytes, lines at
    // 0 and R+11. B = R: 3 blocks. Block 0 = [0,R) ends after the newline at R+10, found in its
    // second read (a search that missed it there would run on into the y's); block 1 = [R,2R)
    // holds the y line; block 2 = [2R,2R+12) starts after the newline at 2R+11, at the end: empty.
    const xs = 'x'.repeat(READ_CHUNK_BYTES + 10);
    const ys = 'y'.repeat(READ_CHUNK_BYTES);
    const file = fileWith('second-read.log', `${xs}\n${ys}\n`);
    const blocks = await blocksOf(file, READ_CHUNK_BYTES);
    expect(blocks.map((text) => text.length)).toEqual([xs.length + 1, ys.length + 1, 0]);
    expect(blocks[0] === `${xs}\n` && blocks[1] === `${ys}\n`).toBe(true);
  });

  it('says that a missing file cannot be read, naming the block\'s ref', async () => {
    const block = blockOf(path.join(directory, 'missing.log'), 0, 4, true);
    const error: unknown = await textOf(block).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).file).toBe('input.log');
    expect((error as InputError).message).toMatch(/^cannot read/);
  });
});

// ---- Properties: random files of lines, random block and piece sizes ----

/** ASCII, 2-, 3- and 4-byte UTF-8, a lone \r and a BOM (text anywhere but the file start). */
const CHARACTERS = ['a', 'Z', '0', ' ', ',', '\r', 'é', '€', '😀', '\uFEFF'];
const character = fc.constantFrom(...CHARACTERS);
const lineEnd = fc.constantFrom('\n', '\r\n');

interface Case {
  bytes: Buffer;
  blockBytes: number;
  pieceBytes: number | undefined;
}

const cases: fc.Arbitrary<Case> = fc.integer({ min: 1, max: 64 }).chain((blockBytes) => {
  // Mostly short (often empty) lines; now and then one of 2B to 4B characters, several blocks long.
  const line = fc.oneof(
    { weight: 9, arbitrary: fc.array(character, { maxLength: 8 }).map((characters) => characters.join('')) },
    { weight: 1, arbitrary: fc.array(character, { minLength: 2 * blockBytes, maxLength: 4 * blockBytes }).map((characters) => characters.join('')) },
  );
  return fc.record({
    bom: fc.boolean(),
    lines: fc.array(fc.tuple(line, lineEnd), { maxLength: 10 }),
    // A last line without a line end (empty: the file ends with a newline, or is empty).
    unterminated: line,
    pieceBytes: fc.option(fc.integer({ min: 1, max: 16 }), { nil: undefined }),
  }).map(({ bom, lines, unterminated, pieceBytes }) => {
    const text = (bom ? '\uFEFF' : '') + lines.map(([body, end]) => body + end).join('') + unterminated;
    return { bytes: Buffer.from(text, 'utf8'), blockBytes, pieceBytes };
  });
});

/** The file's text as openInput gives it: UTF-8, without a BOM at the start. */
function decoded(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/**
 * Byte offsets at which a line starts: after every newline but a final one, and 0 unless the
 * file has no text (a file of a BOM alone has none: the BOM is dropped).
 */
function lineStarts(bytes: Buffer): number[] {
  const starts = decoded(bytes) !== '' ? [0] : [];
  for (let index = 0; index < bytes.length - 1; index++) if (bytes[index] === 0x0a) starts.push(index + 1);
  return starts;
}

async function blocksOfCase({ bytes, blockBytes, pieceBytes }: Case): Promise<string[]> {
  return blocksOf(fileWith('case.log', bytes), blockBytes, pieceBytes);
}

const RUNS = { numRuns: 200 };

describe('blockText, for any file of lines and any block and piece size', () => {
  it('gives back the whole text when the blocks are joined, a BOM dropped at the start only', async () => {
    await fc.assert(fc.asyncProperty(cases, async (testCase) => {
      expect((await blocksOfCase(testCase)).join('')).toBe(decoded(testCase.bytes));
    }), RUNS);
  });

  it('starts every block at a line start, and ends it with a newline or at the end of the file', async () => {
    // Not only the last block may end without a newline: in "😀" with B = 1, block 0 holds the
    // one line, to the end of the file, and blocks 1 to 3 are empty.
    await fc.assert(fc.asyncProperty(cases, async (testCase) => {
      const text = decoded(testCase.bytes);
      const blocks = await blocksOfCase(testCase);
      let offset = 0;
      for (const block of blocks) {
        if (block === '') continue;
        expect(offset === 0 || text[offset - 1] === '\n').toBe(true);
        offset += block.length;
        expect(block.endsWith('\n') || offset === text.length).toBe(true);
      }
    }), RUNS);
  });

  it('leaves a block empty exactly when no line starts in its bytes', async () => {
    await fc.assert(fc.asyncProperty(cases, async (testCase) => {
      const starts = lineStarts(testCase.bytes);
      const { blockBytes } = testCase;
      const blocks = await blocksOfCase(testCase);
      const expected = blocks.map((_, index) =>
        starts.some((start) => start >= index * blockBytes && start < (index + 1) * blockBytes));
      expect(blocks.map((block) => block !== '')).toEqual(expected);
    }), RUNS);
  });

  it('gives each block exactly the bytes from its first line start to the next block\'s', async () => {
    // The model: block i runs from the first line start in [iB, (i+1)B) to the first line start
    // at or after (i+1)B, or the end of the file; decoded as openInput decodes (BOM at byte 0 only).
    await fc.assert(fc.asyncProperty(cases, async (testCase) => {
      const { bytes, blockBytes } = testCase;
      const starts = lineStarts(bytes);
      const blocks = await blocksOfCase(testCase);
      const expected = blocks.map((_, index) => {
        const from = starts.find((start) => start >= index * blockBytes);
        if (from === undefined || from >= (index + 1) * blockBytes) return '';
        const to = starts.find((start) => start >= (index + 1) * blockBytes) ?? bytes.length;
        const text = bytes.subarray(from, to).toString('utf8');
        return from === 0 ? decoded(bytes.subarray(0, to)) : text;
      });
      expect(blocks).toEqual(expected);
    }), RUNS);
  });
});

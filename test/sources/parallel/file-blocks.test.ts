import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/support/errors.js';
import { blockCountOf, blockRange, blockText, holdsFileEnd, type BlockRange, type FileBlock } from '../../../src/sources/parallel/file-blocks.js';
import { READ_CHUNK_BYTES } from '../../../src/sources/inputs.js';

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

// ---- Blocks that start only at a line beginning with a marker (nvidia-smi XML logs) ----

const XML = '<?xml';

function markedBlockOf(file: string, index: number, blockBytes: number, last: boolean): FileBlock {
  return { path: file, ref: 'input.xml', index, blockBytes, last, marker: XML, pieceBytes: undefined };
}

/** Every block of the file cut at `<?xml` lines, with its range and its text read through that range. */
async function markedBlocksOf(file: string, blockBytes: number): Promise<{ ranges: BlockRange[]; texts: string[]; holdsEnd: boolean[] }> {
  const count = blockCountOf(statSync(file).size, blockBytes);
  const ranges: BlockRange[] = [];
  const texts: string[] = [];
  const holdsEnd: boolean[] = [];
  for (let index = 0; index < count; index++) {
    const block = markedBlockOf(file, index, blockBytes, index === count - 1);
    const range = await blockRange(block);
    let text = '';
    for await (const piece of blockText(block, range)) text += piece;
    ranges.push(range);
    texts.push(text);
    holdsEnd.push(holdsFileEnd(block, range));
  }
  return { ranges, texts, holdsEnd };
}

const EMPTY: BlockRange = { start: Infinity, end: Infinity };

describe('blocks cut at lines that begin with a marker, worked examples', () => {
  // "a\n<?xml 1\nb\n<?xml 2\n" is 20 bytes: "a" 0, newline 1, "<?xml 1" 2-8, newline 9, "b" 10,
  // newline 11, "<?xml 2" 12-18, newline 19. Lines begin with <?xml at 2 and 12 only.
  const twoDocuments = 'a\n<?xml 1\nb\n<?xml 2\n';

  it('starts a block only at a marked line, leaving the blocks in which none starts empty (B = 3)', async () => {
    // B = 3: ceil(20 / 3) = 7 blocks. Block 0 starts at 0 (no marker needed) and ends at the first
    // marked line at or after 3: 12. Blocks 1 [3,6), 2 [6,9) and 3 [9,12): the first marked line
    // at or after their start is 12, at or past their end: empty. Block 4 [12,15) starts at 12 and,
    // no marked line starting at or after 15, runs to the end of the file: it holds the end, so
    // blocks 5 [15,18) and 6 [18,20) (the last, which holds the end too) are empty.
    const file = fileWith('two-documents-3.xml', twoDocuments);
    const { ranges, texts, holdsEnd } = await markedBlocksOf(file, 3);
    expect(ranges).toEqual([{ start: 0, end: 12 }, EMPTY, EMPTY, EMPTY, { start: 12, end: Infinity }, EMPTY, EMPTY]);
    expect(texts).toEqual(['a\n<?xml 1\nb\n', '', '', '', '<?xml 2\n', '', '']);
    expect(holdsEnd).toEqual([false, false, false, false, true, false, true]);
  });

  it('gives each marked line to the block its first byte lies in (B = 5)', async () => {
    // B = 5: ceil(20 / 5) = 4 blocks. Block 0 [0,5) ends at the first marked line at or after 5:
    // 12 (the one at 2 is inside it). Block 1 [5,10): first marked line at or after 5 is 12 >= 10,
    // empty. Block 2 [10,15) starts at 12 and runs to the end (none at or after 15). Block 3
    // [15,20), the last: none at or after 15, empty.
    const file = fileWith('two-documents-5.xml', twoDocuments);
    const { ranges, texts, holdsEnd } = await markedBlocksOf(file, 5);
    expect(ranges).toEqual([{ start: 0, end: 12 }, EMPTY, { start: 12, end: Infinity }, EMPTY]);
    expect(texts).toEqual(['a\n<?xml 1\nb\n', '', '<?xml 2\n', '']);
    expect(holdsEnd).toEqual([false, false, true, true]);
  });

  it('ignores <?xml inside a line and lines that begin with only part of it', async () => {
    // "x <?xml\n<?xm\n<?xml a\n": newlines at 7, 12 and 20; lines start at 0, 8 and 13 and only
    // the one at 13 begins with <?xml. B = 4: 6 blocks. Block 0 ends at 13; blocks 1 [4,8),
    // 2 [8,12) hold no marked line start (the first at or after 4 or 8 is 13); block 3 [12,16)
    // starts at 13 and runs to the end; blocks 4 [16,20) and 5 [20,21) are empty.
    const file = fileWith('decoys.xml', 'x <?xml\n<?xm\n<?xml a\n');
    const { ranges, texts } = await markedBlocksOf(file, 4);
    expect(ranges).toEqual([{ start: 0, end: 13 }, EMPTY, EMPTY, { start: 13, end: Infinity }, EMPTY, EMPTY]);
    expect(texts).toEqual(['x <?xml\n<?xm\n', '', '', '<?xml a\n', '', '']);
  });

  it('lets block 0 start at byte 0 whatever its first line, and the last block run to the end', async () => {
    // "abc\n" (4 bytes, no marked line) with B = 2: 2 blocks. Block 0 [0,2) starts at 0 and runs
    // to the end, no marked line following; block 1, the last, finds none at or after 2: empty.
    const file = fileWith('no-marker.xml', 'abc\n');
    const { ranges, texts, holdsEnd } = await markedBlocksOf(file, 2);
    expect(ranges).toEqual([{ start: 0, end: Infinity }, EMPTY]);
    expect(texts).toEqual(['abc\n', '']);
    expect(holdsEnd).toEqual([true, true]);
  });

  // R = READ_CHUNK_BYTES, B = R. The search for block 1 (and for block 0's end) starts at B - 1 =
  // R - 1 and reads [R-1, 2R-1), then from 2R-1 - 5 on (6-byte "\n<?xml", 5 bytes of overlap).
  // The file is "<?xml 0\n" (0-7), a line of a's from 8, its newline at n = 2R-1 - cut, so that
  // only `cut` bytes of "\n<?xml" lie in the first read, then the next line from n + 1.
  describe.each([1, 2, 3, 4, 5])('a "\\n<?xml" of which the first read of the search holds %i bytes', (cut) => {
    const R = READ_CHUNK_BYTES;
    const newline = 2 * R - 1 - cut;
    const head = `<?xml 0\n${'a'.repeat(newline - 8)}`;

    it('starts the block at that marked line', async () => {
      // "<?xml 1\n" from n + 1 = 2R - cut: 2R - cut + 8 bytes, 3 blocks. Block 0 [0,R) ends at
      // 2R - cut; block 1 [R,2R) starts there and runs to the end (no marked line at or after
      // 2R); block 2 [2R, 2R - cut + 8), the last, is empty.
      const file = fileWith(`straddle-${cut}.xml`, `${head}\n<?xml 1\n`);
      const { ranges, texts, holdsEnd } = await markedBlocksOf(file, R);
      expect(ranges).toEqual([{ start: 0, end: 2 * R - cut }, { start: 2 * R - cut, end: Infinity }, EMPTY]);
      expect(texts[1]).toBe('<?xml 1\n');
      expect(holdsEnd).toEqual([false, true, true]);
    });

    it('does not take a line that begins with "<?xm" only for one', async () => {
      // "<?xm!\n" from n + 1 = 2R - cut, then "<?xml 1\n" from 2R - cut + 6 >= 2R: 2R - cut + 14
      // bytes, 3 blocks. Block 0 ends at the marked line at 2R - cut + 6, which block 1 [R,2R)
      // does not hold: empty; block 2, the last, starts there.
      const file = fileWith(`straddle-decoy-${cut}.xml`, `${head}\n<?xm!\n<?xml 1\n`);
      const { ranges, texts } = await markedBlocksOf(file, R);
      expect(ranges).toEqual([{ start: 0, end: 2 * R - cut + 6 }, EMPTY, { start: 2 * R - cut + 6, end: Infinity }]);
      expect(texts[2]).toBe('<?xml 1\n');
    });
  });
});

// Lines that begin with <?xml, with only "<?xm", or with other text; bodies that may hold <?xml
// further in, multi-byte characters and a lone \r; \n or \r\n line ends; now and then a BOM.
const markedLineHead = fc.constantFrom(XML, XML, '<?xm', '', 'a', ' <?xml', '\uFEFF<?xml');
const markedLineBody = fc.array(fc.constantFrom('a', ' ', '<', '?', 'x', XML, 'é', '€', '😀', '\r'), { maxLength: 6 })
  .map((parts) => parts.join(''));
const markedLine = fc.tuple(markedLineHead, markedLineBody).map(([lineHead, body]) => lineHead + body);

interface MarkedCase {
  bytes: Buffer;
  blockBytes: number;
}

const markedCases: fc.Arbitrary<MarkedCase> = fc.record({
  blockBytes: fc.integer({ min: 1, max: 64 }),
  bom: fc.boolean(),
  lines: fc.array(fc.tuple(markedLine, lineEnd), { maxLength: 12 }),
  unterminated: fc.oneof(fc.constant(''), markedLine),
}).map(({ blockBytes, bom, lines, unterminated }) => ({
  bytes: Buffer.from((bom ? '\uFEFF' : '') + lines.map(([line, end]) => line + end).join('') + unterminated, 'utf8'),
  blockBytes,
}));

/**
 * Byte offsets of the lines that begin with <?xml, other than a first line at byte 0: found by
 * cutting the bytes into lines at each newline, not by searching for "\n<?xml" as the source does.
 */
function markedLineStarts(bytes: Buffer): number[] {
  const marker = Buffer.from(XML, 'utf8');
  const starts: number[] = [];
  let lineStart = 0;
  for (let index = 0; index <= bytes.length; index++) {
    if (index < bytes.length && bytes[index] !== 0x0a) continue;
    const line = bytes.subarray(lineStart, index);
    if (lineStart > 0 && line.subarray(0, marker.length).equals(marker)) starts.push(lineStart);
    lineStart = index + 1;
  }
  return starts;
}

/**
 * The rule: block 0 starts at 0; block i > 0 at the first marked line start p >= iB, and is empty
 * when there is none or p >= (i+1)B (unless it is the last block); a non-empty block ends at the
 * first marked line start >= (i+1)B, or runs to the end (Infinity) when there is none or it is last.
 */
function expectedRanges(bytes: Buffer, blockBytes: number): BlockRange[] {
  const marked = markedLineStarts(bytes);
  const count = blockCountOf(bytes.length, blockBytes);
  const firstAtOrAfter = (offset: number): number => marked.find((start) => start >= offset) ?? Infinity;
  return Array.from({ length: count }, (_, index) => {
    const last = index === count - 1;
    const start = index === 0 ? 0 : firstAtOrAfter(index * blockBytes);
    if (start === Infinity || (start >= (index + 1) * blockBytes && !last)) return EMPTY;
    return { start, end: last ? Infinity : firstAtOrAfter((index + 1) * blockBytes) };
  });
}

async function markedBlocksOfCase({ bytes, blockBytes }: MarkedCase): ReturnType<typeof markedBlocksOf> {
  return markedBlocksOf(fileWith('marked-case.xml', bytes), blockBytes);
}

const MARKED_RUNS = { numRuns: 150 };

describe('blocks cut at lines that begin with <?xml, for any such file and any block size', () => {
  it('gives back the whole text when the blocks are joined', async () => {
    await fc.assert(fc.asyncProperty(markedCases, async (testCase) => {
      const { texts } = await markedBlocksOfCase(testCase);
      expect(texts.join('')).toBe(decoded(testCase.bytes));
    }), MARKED_RUNS);
  });

  it('starts every non-empty block but the first at a line of the file that begins with <?xml', async () => {
    await fc.assert(fc.asyncProperty(markedCases, async (testCase) => {
      const { ranges, texts } = await markedBlocksOfCase(testCase);
      const { bytes } = testCase;
      texts.forEach((text, index) => {
        if (index === 0 || text === '') return;
        expect(text.startsWith(XML)).toBe(true);
        const { start } = ranges[index]!;
        expect(bytes[start - 1]).toBe(0x0a);
        expect(bytes.subarray(start, start + XML.length).toString('utf8')).toBe(XML);
      });
    }), MARKED_RUNS);
  });

  it('puts the block boundaries exactly at the marked line starts the rule picks', async () => {
    await fc.assert(fc.asyncProperty(markedCases, async (testCase) => {
      const { ranges, texts } = await markedBlocksOfCase(testCase);
      const expected = expectedRanges(testCase.bytes, testCase.blockBytes);
      expect(ranges).toEqual(expected);
      // And the text read through each range is those bytes (a BOM dropped at byte 0 only).
      expect(texts).toEqual(expected.map(({ start, end }) => {
        if (start === Infinity) return '';
        const bytes = testCase.bytes.subarray(start, end === Infinity ? undefined : end);
        return start === 0 ? decoded(bytes) : bytes.toString('utf8');
      }));
    }), MARKED_RUNS);
  });

  it('says a block holds the file end when it is the last or no marked line follows it, and leaves the blocks after it empty', async () => {
    await fc.assert(fc.asyncProperty(markedCases, async (testCase) => {
      const { bytes, blockBytes } = testCase;
      const { ranges, texts, holdsEnd } = await markedBlocksOfCase(testCase);
      const marked = markedLineStarts(bytes);
      const expected = ranges.map((range, index) =>
        index === ranges.length - 1
        || (range.start !== Infinity && !marked.some((start) => start >= (index + 1) * blockBytes)));
      expect(holdsEnd).toEqual(expected);
      const first = holdsEnd.indexOf(true);
      expect(texts.slice(first + 1).every((text) => text === '')).toBe(true);
      expect(ranges.slice(first + 1, -1).every((range) => range.start === Infinity)).toBe(true);
    }), MARKED_RUNS);
  });
});

/**
 * The in-place (span) readers of long CSV logs must give exactly what the string readers give
 * for the sliced cell: each is checked against its string twin on cells embedded at any offset
 * of a longer text, as they are in a chunk.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineSpanSplitter, LineSplitter, MAX_LINE_CHARS } from '../../../../src/sources/lexers/text/lines.js';
import { LocalTimestampReader } from '../../../../src/sources/lexers/text/local-time.js';
import { RepeatedRun } from '../../../../src/sources/lexers/text/repeated-run.js';
import {
  isMissingCell,
  isMissingSpan,
  normalisePciBusId,
  parseCount,
  parseCountSpan,
  parseQuantity,
  parseQuantitySpan,
  SpanCache,
} from '../../../../src/sources/lexers/text/values.js';
import { InputError } from '../../../../src/support/errors.js';

/** Cells as nvidia-smi prints them, and the near misses that must take the general path. */
const CELLS = [
  '0', '7', '100', '81559', '-3', '007', '433.78', '69.00', '0.5', '.5', '5.', '-.5', '-0', '-0.0', '1.2.3', '-', '.', '',
  '123456789012345', '1234567890123456', '12345678901234567890', '9007199254740993', '0.1234567890123456',
  '97 %', '97', '81559 MiB', '5 GiB', '433.78 W', '97  %', '97 % ', '97 %x', '1e3', '0x1F', ' 5', 'N/A', 'N/', 'N/AB', '[N/A]',
  '[Not Supported]', '[Insufficient Permissions]', 'lots', '５', '12 MiB MiB',
];
const UNITS = [undefined, '%', 'MiB', 'W'];

/** Text around a cell, as in a chunk: the span readers must not look outside [start, end). */
const SURROUNDINGS: [string, string][] = [['', ''], ['2026/07/14, ', ', 5 %\n'], ['x', '9'], ['[', ' MiB'], ['-', '.5']];

const cellText = fc.oneof(
  fc.constantFrom(...CELLS),
  fc.stringMatching(/^-?[0-9]{0,18}(\.[0-9]{0,18})?( ?(%|MiB|W|GiB))?$/),
  fc.string({ maxLength: 12 }),
);

describe('span readers give what the string readers give', () => {
  it('parseQuantitySpan = parseQuantity of the sliced cell (Object.is: -0 and NaN included)', () => {
    for (const [before, after] of SURROUNDINGS) {
      for (const cell of CELLS) {
        for (const unit of UNITS) {
          const text = `${before}${cell}${after}`;
          expect(Object.is(parseQuantitySpan(text, before.length, before.length + cell.length, unit), parseQuantity(cell, unit)), `${JSON.stringify(cell)} [${unit}]`).toBe(true);
        }
      }
    }
    fc.assert(fc.property(cellText, fc.constantFrom(...UNITS), fc.constantFrom(...SURROUNDINGS), (cell, unit, [before, after]) => {
      const text = `${before}${cell}${after}`;
      expect(Object.is(parseQuantitySpan(text, before.length, before.length + cell.length, unit), parseQuantity(cell, unit))).toBe(true);
    }), { numRuns: 3000 });
  });

  it('reads decimals exactly as Number() does: 433.78 is 43378 / 100, the double nearest 433.78', () => {
    expect(parseQuantitySpan('433.78 W', 0, 8, 'W')).toBe(433.78);
    expect(parseQuantitySpan('0.1', 0, 3, undefined)).toBe(0.1);
    // 15 significant digits is the most the quotient path takes; more go to Number().
    expect(parseQuantitySpan('0.123456789012345', 0, 17, undefined)).toBe(0.123456789012345);
    expect(parseQuantitySpan('0.1234567890123456', 0, 18, undefined)).toBe(0.1234567890123456);
  });

  it('parseCountSpan = parseCount, isMissingSpan = isMissingCell', () => {
    fc.assert(fc.property(cellText, fc.constantFrom(...SURROUNDINGS), (cell, [before, after]) => {
      const text = `${before}${cell}${after}`;
      const [start, end] = [before.length, before.length + cell.length];
      expect(Object.is(parseCountSpan(text, start, end), parseCount(cell))).toBe(true);
      expect(isMissingSpan(text, start, end)).toBe(isMissingCell(cell));
    }), { numRuns: 3000 });
    for (const cell of CELLS) expect(isMissingSpan(`, ${cell}, `, 2, 2 + cell.length), cell).toBe(isMissingCell(cell));
  });

  it('LocalTimestampReader.readSpan = read of the sliced cell, row after row, across a DST change', () => {
    // New York falls back on 1 November 2026 at 02:00: 01:xx happens twice; both readers must agree throughout.
    const stamp = fc.record({
      hour: fc.integer({ min: 0, max: 3 }),
      minute: fc.constantFrom(0, 1, 59),
      second: fc.integer({ min: 0, max: 60 }),
      ms: fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
      junk: fc.constantFrom('', '', '', 'x', '.5'),
    }).map(({ hour, minute, second, ms, junk }) => {
      const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
      return `2026/11/01 ${pad(hour)}:${pad(minute)}:${pad(second)}${ms === undefined ? '' : `.${pad(ms, 3)}`}${junk}`;
    });
    fc.assert(fc.property(fc.array(stamp, { minLength: 1, maxLength: 30 }), fc.constantFrom('America/New_York', 'UTC'), (stamps, zone) => {
      const bySpan = new LocalTimestampReader(zone);
      const byText = new LocalTimestampReader(zone);
      for (const text of stamps) {
        const line = `${text}, NVIDIA H100, 0`;
        expect(bySpan.readSpan(line, 0, text.length), text).toBe(byText.read(text));
      }
    }), { numRuns: 300 });
  });

  it('SpanCache gives compute(sliced cell), also after more distinct cells than it holds', () => {
    const cache = new SpanCache(normalisePciBusId, 4);
    const ids = ['00000000:18:00.0', '0000:2a:00.0', '3A:00.0', '00000000:5D:00.0', 'not a bus id', '00000000:9A:00.0', '0000:2a:00.0'];
    for (let round = 0; round < 3; round += 1) {
      for (const id of ids) {
        const text = `GPU-x, ${id}, 0`;
        expect(cache.get(text, 7, 7 + id.length), id).toBe(normalisePciBusId(id));
      }
    }
    // A cell that only starts like a cached one is not taken for it.
    expect(cache.get('0000:2a:00.00', 0, 13)).toBeUndefined();
  });
});

/** Lines from both splitters for the same chunks: [line, number], the span one sliced out. */
function splitBoth(chunks: string[]): { strings: [string, number][]; spans: [string, number][] } {
  const strings: [string, number][] = [];
  const spans: [string, number][] = [];
  const byString = new LineSplitter('input.csv', (line, lineNumber) => strings.push([line, lineNumber]));
  const bySpan = new LineSpanSplitter('input.csv', (text, start, end, lineNumber) => spans.push([text.slice(start, end), lineNumber]));
  for (const chunk of chunks) {
    byString.push(chunk);
    bySpan.push(chunk);
  }
  byString.finish();
  bySpan.finish();
  expect(bySpan.linesRead).toBe(byString.linesRead);
  return { strings, spans };
}

function cut(text: string, sizes: number[]): string[] {
  const chunks: string[] = [];
  for (let offset = 0, turn = 0; offset < text.length; turn += 1) {
    const size = sizes[turn % sizes.length]!;
    chunks.push(text.slice(offset, offset + size));
    offset += size;
  }
  return chunks;
}

describe('LineSpanSplitter', () => {
  it('gives the lines LineSplitter gives: BOM, CRLF, a lone \\r, blank lines, a last line without newline, any chunking', () => {
    const text = '\uFEFFtimestamp, name\r\n2026/07/14 09:00:44.579, NVIDIA™ H100\r\n\r\n\n  \nx\ry\r\r\nlast, 5 %';
    const whole = splitBoth([text]);
    expect(whole.spans).toEqual(whole.strings);
    expect(whole.spans[0]).toEqual(['timestamp, name', 1]);
    // 1 header, 2 row, 3-4 empty, 5 blank, 6 `x\ry` (only the \r before \n is a line end), 7 the last.
    expect(whole.spans.at(-1)).toEqual(['last, 5 %', 7]);
    for (let size = 1; size <= 7; size += 1) {
      const { strings, spans } = splitBoth(cut(text, [size]));
      expect(spans).toEqual(strings);
      expect(spans).toEqual(whole.spans);
    }
    fc.assert(fc.property(
      fc.array(fc.constantFrom('a', ', ', '\n', '\r', '\r\n', '\uFEFF', ' ', '™', '5'), { maxLength: 40 }),
      fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 5 }),
      (parts, sizes) => {
        const { strings, spans } = splitBoth(cut(parts.join(''), sizes));
        expect(spans).toEqual(strings);
      },
    ), { numRuns: 500 });
  });

  it('refuses a line longer than MAX_LINE_CHARS, naming the line', () => {
    const splitter = new LineSpanSplitter('input.csv', () => {});
    splitter.push('header\n');
    let error: unknown;
    try {
      for (let pushed = 0; pushed <= MAX_LINE_CHARS; pushed += 65536) splitter.push('x'.repeat(65536));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).location).toBe('line 2');
  });
});

describe('RepeatedRun.of', () => {
  // Field -> the slot its reader writes: name and gpu_name both write the model's (0).
  const runnable = { name: 0, gpu_name: 0, uuid: 1, 'pci.bus_id': 2, index: 3 };

  it('takes the longest run of side-by-side identity columns', () => {
    const run = RepeatedRun.of(['timestamp', 'name', 'pci.bus_id', 'utilization.gpu', 'uuid', 'index', 'gpu_bus_id'], runnable);
    // name, pci.bus_id (2 columns) vs uuid, index (2): the first of equal length; gpu_bus_id is not runnable here.
    expect([run?.first, run?.count]).toEqual([1, 2]);
    expect([RepeatedRun.of(['timestamp', 'name', 'uuid', 'pci.bus_id', 'index', 'memory.used'], runnable)].map((found) => [found?.first, found?.count])).toEqual([[1, 4]]);
  });

  it('leaves out columns whose property another column writes too, and runs of one column', () => {
    // name and gpu_name both write the model's slot: neither may be replayed, which leaves uuid alone.
    expect(RepeatedRun.of(['name', 'gpu_name', 'uuid', 'memory.used'], runnable)).toBeUndefined();
    expect(RepeatedRun.of(['uuid', 'uuid', 'index'], runnable)).toBeUndefined();
    expect(RepeatedRun.of(['timestamp', 'index', 'memory.used'], runnable)).toBeUndefined();
  });
});

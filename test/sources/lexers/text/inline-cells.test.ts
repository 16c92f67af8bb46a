/**
 * The row loop of `--query-*` logs reads the plain numeric cells itself, value and cell end in
 * one pass (QuantityCells, LocalTimestampReader.scanCell, InlineNumbers), and leaves every
 * other cell to the span readers. These tests hold the fast paths to the general one: where a
 * fast path accepts a cell it must find the same cell end (the first ", " of the line, or its
 * end) and the same value as splitting, trimming and the span reader; and a table read with
 * inline columns must give what the same table gives without them, warnings included.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LocalTimestampReader } from '../../../../src/sources/lexers/text/local-time.js';
import { QueryCsvReader, type QuerySchema, type SpanReader } from '../../../../src/sources/lexers/text/query-csv.js';
import { parseQuantitySpan, QuantityCells, unitCodes } from '../../../../src/sources/lexers/text/values.js';
import { parseLocalTimestamp } from '../../../../src/sources/lexers/timestamps.js';

/** The cell the general path reads at `start`: up to the first ", " inside the line, trimmed of spaces. */
function generalCell(text: string, start: number, lineEnd: number): { end: number; cell: string } {
  const separator = text.indexOf(', ', start);
  const end = separator === -1 || separator >= lineEnd ? lineEnd : separator;
  return { end, cell: text.slice(start, end).replace(/^ +| +$/g, '') };
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** Cells of numeric columns as nvidia-smi prints them, and near misses. */
const QUANTITY_CELLS = [
  '0', '7', '100', '81559', '-3', '-0', '433.78', '69.00', '0.5', '.5', '5.', '-.5', '1.2.3', '-', '.', '',
  '123456789012345', '1234567890123456', '0.1234567890123456',
  '97 %', '81559 MiB', '5 GiB', '433.78 W', '97  %', '97 % ', ' 97 %', '97 %x', '97 %,x', '1e3', '0x1F',
  'N/A', '[N/A]', '[Not Supported]', '12 MiB MiB', '5 W, ', '5,5', '5 ,',
];
const quantityCell = fc.oneof(
  fc.constantFrom(...QUANTITY_CELLS),
  fc.stringMatching(/^ ?-?[0-9]{0,17}(\.[0-9]{0,17})?( {1,2}(%|MiB|W|GiB|M,B))? ?$/),
  fc.string({ maxLength: 10 }),
);
const UNITS = [undefined, '%', 'MiB', 'W', 'M,B'];
/** What follows a line in its chunk: never a space (lines end at \n, \r or the chunk's end). */
const LINE_ENDS = ['', '\n', '\r\n', '\n5 %, 6 %'];

describe('QuantityCells: one-pass reading of a numeric cell', () => {
  it('reads the plain shapes of full and nounits logs, and finds the cell end', () => {
    const cells = new QuantityCells();
    const line = '81559 MiB, 0 %, 433.78 W, 12, -3.5';
    // `81559 MiB` ends at the ", " at 9; `0 %` at 14; `433.78 W` at 24; `12` at 28; `-3.5` at the line end.
    expect([cells.read(line, 0, line.length, unitCodes('MiB')), cells.value]).toEqual([9, 81559]);
    expect([cells.read(line, 11, line.length, unitCodes('%')), cells.value]).toEqual([14, 0]);
    expect([cells.read(line, 16, line.length, unitCodes('W')), cells.value]).toEqual([24, 433.78]);
    expect([cells.read(line, 26, line.length, unitCodes('MiB')), cells.value]).toEqual([28, 12]);
    expect([cells.read(line, 30, line.length, unitCodes(undefined)), cells.value]).toEqual([34, -3.5]);
  });

  it('leaves missing values, other units and odd spacing to the general path', () => {
    const cells = new QuantityCells();
    for (const cell of ['[N/A]', 'N/A', '', '5 GiB', '97  %', ' 97 %', '97 % ', '97 %x', '1234567890123456']) {
      const line = `${cell}, 5 %`;
      expect(cells.read(line, 0, line.length, unitCodes(cell.includes('GiB') ? 'MiB' : '%')), cell).toBe(-1);
    }
    // A unit printed where the header names none: the general path accepts any unit, so it decides.
    expect(cells.read('5 %, 6', 0, 6, unitCodes(undefined))).toBe(-1);
  });

  it('where it accepts a cell, gives the cell end and the value of the general path (Object.is: -0 included)', () => {
    fc.assert(fc.property(
      fc.array(quantityCell, { minLength: 1, maxLength: 4 }), fc.nat(3), fc.constantFrom(...UNITS), fc.constantFrom(...LINE_ENDS), fc.constantFrom('', 'x, ', '2026/07/14, '),
      (cells, pick, unit, after, before) => {
        const line = `${before}${cells.join(', ')}`;
        const text = `${line}${after}`;
        const index = pick % cells.length;
        const start = before.length + cells.slice(0, index).reduce((length, cell) => length + cell.length + 2, 0);
        const reader = new QuantityCells();
        const end = reader.read(text, start, line.length, unitCodes(unit));
        if (end === -1) return;
        const general = generalCell(text, start, line.length);
        expect(end).toBe(general.end);
        expect(Object.is(reader.value, parseQuantitySpan(general.cell, 0, general.cell.length, unit))).toBe(true);
      },
    ), { numRuns: 5000 });
  });
});

describe('LocalTimestampReader.scanCell: the timestamp of a row from the minute read before', () => {
  it('reads the seconds of every row of the minute it knows, and declines a new minute until readSpan has read it', () => {
    const reader = new LocalTimestampReader('UTC');
    const row = (stamp: string): string => `${stamp}, NVIDIA H100, 0 %`;
    // Nothing read yet: no minute to compare with.
    expect(reader.scanCell(row('2026/07/14 09:00:59.900'), 0, 40)).toBe(-1);
    expect(reader.readSpan('2026/07/14 09:00:59.900', 0, 23)).toBe(Date.UTC(2026, 6, 14, 9, 0, 59, 900));
    // The same minute: accepted, the cell ends at 23 (its ", ").
    const same = row('2026/07/14 09:00:59.950');
    expect([reader.scanCell(same, 0, same.length), reader.value]).toEqual([23, Date.UTC(2026, 6, 14, 9, 0, 59, 950)]);
    // Without milliseconds: 19 characters.
    const whole = row('2026/07/14 09:00:30');
    expect([reader.scanCell(whole, 0, whole.length), reader.value]).toEqual([19, Date.UTC(2026, 6, 14, 9, 0, 30)]);
    // The minute changes mid-log (09:00 -> 09:01): declined, readSpan reads it, then it is the known one.
    const next = row('2026/07/14 09:01:00.010');
    expect(reader.scanCell(next, 0, next.length)).toBe(-1);
    expect(reader.readSpan(next, 0, 23)).toBe(Date.UTC(2026, 6, 14, 9, 1, 0, 10));
    expect([reader.scanCell(next, 0, next.length), reader.value]).toEqual([23, Date.UTC(2026, 6, 14, 9, 1, 0, 10)]);
    // A day that differs in one digit only is another minute.
    const otherDay = row('2026/07/15 09:01:00.010');
    expect(reader.scanCell(otherDay, 0, otherDay.length)).toBe(-1);
  });

  it('declines cells the general path reads differently: spaces, second 60, other shapes, text glued on', () => {
    const reader = new LocalTimestampReader('UTC');
    reader.readSpan('2026/07/14 09:00:44.579', 0, 23);
    for (const cell of [' 2026/07/14 09:00:45.000', '2026/07/14 09:00:45.000 ', '2026/07/14 09:00:60.000', '2026/07/14 09:00:45.5', '2026/07/14 09:00:45.000x', '2026/07/14 09:00:4x.000']) {
      const line = `${cell}, 5 %`;
      expect(reader.scanCell(line, 0, line.length), JSON.stringify(cell)).toBe(-1);
    }
  });

  it('where it accepts a cell, gives its end and parseLocalTimestamp of it, row after row, across a DST change', () => {
    // New York falls back on 1 November 2026 at 02:00: 01:xx happens twice; minutes change within the rows.
    const stamp = fc.record({
      hour: fc.integer({ min: 0, max: 3 }),
      minute: fc.constantFrom(0, 1, 59),
      second: fc.integer({ min: 0, max: 60 }),
      ms: fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
      before: fc.constantFrom('', '', ' '),
      junk: fc.constantFrom('', '', '', 'x', '.5', ' ', ','),
    }).map(({ hour, minute, second, ms, before, junk }) =>
      `${before}2026/11/01 ${pad(hour)}:${pad(minute)}:${pad(second)}${ms === undefined ? '' : `.${pad(ms, 3)}`}${junk}`);
    fc.assert(fc.property(fc.array(stamp, { minLength: 1, maxLength: 40 }), fc.constantFrom('America/New_York', 'UTC'), fc.constantFrom('', ', 5 %'), (stamps, zone, rest) => {
      const reader = new LocalTimestampReader(zone);
      for (const stampText of stamps) {
        const line = `${stampText}${rest}`;
        const general = generalCell(line, 0, line.length);
        const expected = parseLocalTimestamp(general.cell, zone);
        const end = reader.scanCell(line, 0, line.length);
        if (end === -1) {
          const start = line.length - line.trimStart().length;
          expect(reader.readSpan(line, start, start + general.cell.length), stampText).toBe(expected);
        } else {
          expect(end, stampText).toBe(general.end);
          expect(reader.value, stampText).toBe(expected);
        }
      }
    }), { numRuns: 500 });
  });
});

/** A small table of the shape of --query-gpu: a timestamp, two quantities, one first-wins quantity, a column nobody reads. */
class TestRow {
  readonly numbers = new Float64Array(4).fill(Number.NaN);
  constructor(readonly timestamps: LocalTimestampReader) {}
  reset(): void {
    this.numbers.fill(Number.NaN);
  }
}

function quantity(slot: number, firstWins: boolean): SpanReader<TestRow> {
  return (row, text, start, end, unit) => {
    const value = parseQuantitySpan(text, start, end, unit);
    if (value === undefined) return true;
    if (Number.isNaN(value)) return false;
    if (!firstWins || Number.isNaN(row.numbers[slot])) row.numbers[slot] = value;
    return true;
  };
}

function testSchema(inline: boolean): QuerySchema<TestRow> {
  return {
    query: '--query-gpu',
    readers: {},
    spanReaders: () => ({
      timestamp: (row, text, start, end) => {
        if (start === end || text.charCodeAt(start) === 0x5b) return true;
        const time = row.timestamps.readSpan(text, start, end);
        if (time === undefined) return false;
        row.numbers[0] = time;
        return true;
      },
      'memory.used': quantity(1, false),
      'utilization.gpu': quantity(2, false),
      'power.draw': quantity(3, true),
    }),
    ...(inline ? {
      inline: {
        columns: {
          timestamp: { slot: 0, kind: 'local-time' },
          'memory.used': { slot: 1, kind: 'quantity' },
          'utilization.gpu': { slot: 2, kind: 'quantity' },
          'power.draw': { slot: 3, kind: 'first-quantity' },
        },
        values: (row: TestRow) => row.numbers,
        timestamps: (row: TestRow) => row.timestamps,
      },
    } : {}),
    exampleHeader: 'timestamp, memory.used [MiB]',
    rowFields: new Set(['timestamp']),
    accepts: () => true,
  };
}

/** Every row the reader emits (its numbers, NaN as null) and every warning, in order. */
function readTable(lines: readonly string[], inline: boolean): unknown[] {
  const events: unknown[] = [];
  const reader = new QueryCsvReader('t.csv', testSchema(inline), new TestRow(new LocalTimestampReader('Europe/Berlin')), {
    reset: (row) => row.reset(),
    emit: (row, lineNumber) => {
      events.push([lineNumber, ...Array.from(row.numbers, (value) => (Number.isNaN(value) ? null : value))]);
    },
  }, (location, message) => events.push([location, message]));
  // All lines in one chunk, read in place as spans, the way the parser reads them.
  const text = `${lines.join('\n')}\n`;
  let start = 0;
  lines.forEach((line, index) => {
    reader.lineSpan(text, start, start + line.length, index + 1);
    start += line.length + 1;
  });
  return events;
}

describe('QueryCsvReader with inline numeric columns', () => {
  const timestampCell = fc.oneof(
    fc.record({ minute: fc.constantFrom(58, 59), second: fc.integer({ min: 0, max: 60 }), ms: fc.integer({ min: 0, max: 999 }) })
      .map(({ minute, second, ms }) => `2026/03/29 01:${pad(minute)}:${pad(second)}.${pad(ms, 3)}`),
    fc.constantFrom('2026/03/29 02:00:00.000', '2026/03/29 03:00:00', '[N/A]', '', ' 2026/03/29 01:59:00.000', '2026/03/29 01:59:00.000 ', '2026/03/29 01:59:00.000x', '2026/03/29 01:59:00.0001', 'yesterday'),
  );
  const row = fc.tuple(timestampCell, fc.constantFrom('P0', 'P8', ''), quantityCell, quantityCell, quantityCell, quantityCell, fc.constantFrom(0, 0, 0, 1, -1))
    .map(([time, pstate, used, utilization, power, power2, extra]) => {
      const cells = [time, pstate, used, utilization, power, power2];
      if (extra === 1) cells.push('5 %');
      if (extra === -1) cells.pop();
      return cells.join(', ');
    });

  it('gives the rows and warnings the span readers give, whatever the cells hold', () => {
    // power.draw twice: the first readable one counts. Berlin springs forward at 02:00 on 29 March 2026.
    const header = 'timestamp, pstate, memory.used [MiB], utilization.gpu [%], power.draw [W], power.draw [W]';
    fc.assert(fc.property(fc.array(row, { minLength: 1, maxLength: 30 }), (rows) => {
      const lines = [header, ...rows];
      expect(readTable(lines, true)).toEqual(readTable(lines, false));
    }), { numRuns: 1000 });
  });

  it('reads the same under a header without units and with one whose unit QuantityCells cannot match', () => {
    for (const header of ['timestamp, pstate, memory.used, utilization.gpu, power.draw, power.draw', 'timestamp, pstate, memory.used [ MiB], utilization.gpu [%,], power.draw [W], power.draw']) {
      fc.assert(fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), (rows) => {
        const lines = [header, ...rows];
        expect(readTable(lines, true)).toEqual(readTable(lines, false));
      }), { numRuns: 300 });
    }
  });
});

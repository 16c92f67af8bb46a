import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderBlock, renderTerminalTable, type TerminalColumn } from '../../src/render/terminal-table.js';

const COLUMNS: TerminalColumn[] = [
  { header: 'gpu', align: 'left', width: 8 },
  { header: 'util\nmean %', align: 'right', width: 7 },
  { header: 'note', align: 'left', width: 12 },
];

function row(index: number): string[] {
  return [`gpu-${index}`, (index % 100).toFixed(1), index % 7 === 0 ? 'a longer note that wraps' : '-'];
}

describe('renderTerminalTable', () => {
  it('draws the header, a rule under it, then the rows, with no trailing spaces', () => {
    const text = renderTerminalTable(COLUMNS, [row(1), row(2)]);
    expect(text.split('\n')).toEqual([
      'gpu         util note',
      '          mean %',
      '──────── ─────── ────────────',
      'gpu-1        1.0 -',
      'gpu-2        2.0 -',
    ]);
  });

  it.each([false, true])('draws a long table (wrap: %s) as the header once, then every row as it draws alone', (wrap) => {
    // 1,234 rows: more than cli-table3 lays out in reasonable time in one table (quadratic in rows).
    const rows = Array.from({ length: 1_234 }, (_, index) => row(index));
    const alone = (cells: string[]): string[] => renderTerminalTable(COLUMNS, [cells], wrap).split('\n').slice(3);
    const expected = [...renderTerminalTable(COLUMNS, [rows[0]!], wrap).split('\n'), ...rows.slice(1).flatMap(alone)];
    expect(renderTerminalTable(COLUMNS, rows, wrap).split('\n')).toEqual(expected);
  });
});

describe('renderTerminalTable drawn directly', () => {
  // Cells of one line whose every character takes one column, coloured or not, that fit.
  const text = (maxLength: number) => fc.string({ unit: fc.constantFrom(...'ab Z09.-/%$', '—', '…', '→', '·', '×'), maxLength });
  const coloured = (maxLength: number) => fc.tuple(text(maxLength), fc.boolean()).map(([plain, dim]) => (dim ? `\u001b[2m${plain}\u001b[22m` : plain));
  const table = fc.array(fc.record({ width: fc.integer({ min: 1, max: 12 }), align: fc.constantFrom('left' as const, 'right' as const), lines: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 6 })
    .chain((shape) => fc.record({
      // Headers name their column (a first line of at least one letter), as the report's do.
      columns: fc.tuple(...shape.map(({ width, align, lines }) => fc.tuple(fc.string({ unit: fc.constantFrom(...'abcxyz'), minLength: 1, maxLength: width }), fc.array(text(width), { minLength: lines - 1, maxLength: lines - 1 }))
        .map(([first, rest]) => ({ header: [first, ...rest].join('\n'), align, width })))),
      rows: fc.array(fc.tuple(...shape.map(({ width }) => coloured(width))), { minLength: 1, maxLength: 12 }),
    }));

  it('is the text cli-table3 draws, wherever every cell fits as it is', () => {
    fc.assert(fc.property(table, ({ columns, rows }) => {
      expect(renderTerminalTable(columns, rows)).toBe(renderBlock(columns, rows, false));
    }), { numRuns: 500 });
  });

  it('leaves to cli-table3 a cell too wide, of several lines, or of characters it measures otherwise', () => {
    const columns: TerminalColumn[] = [{ header: 'name', align: 'left', width: 6 }, { header: 'n', align: 'right', width: 3 }];
    for (const cell of ['far too long', 'two\nlines', '漢字', 'e\u0301']) {
      expect(renderTerminalTable(columns, [[cell, '1']])).toBe(renderBlock(columns, [[cell, '1']], false));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { renderTerminalTable, type TerminalColumn } from '../../src/report/terminal-table.js';

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

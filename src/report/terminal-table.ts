/** A borderless cli-table3 table: a rule under the header, one space between columns. */
import Table from 'cli-table3';

export interface TerminalColumn {
  header: string;
  align: 'left' | 'right';
  width: number;
}

const COLUMN_GAP = ' ';

const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', right: '', 'right-mid': '',
  mid: '─', 'mid-mid': COLUMN_GAP, middle: COLUMN_GAP,
};

/** Total width of a table with these column widths. */
export function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, width) => sum + width, 0) + Math.max(0, widths.length - 1) * COLUMN_GAP.length;
}

/**
 * Cells are plain text (already sanitised, possibly coloured). With `wrap`, long
 * cells wrap inside their column; without it cli-table3 truncates them with `…`.
 */
export function renderTerminalTable(columns: readonly TerminalColumn[], rows: readonly string[][], wrap = false): string {
  if (rows.length <= ROWS_PER_BLOCK) return renderBlock(columns, rows, wrap);
  // cli-table3 lays a table out in time quadratic in its rows (a 1,000-GPU table took seconds,
  // 10,000 would take hours). The widths are fixed, so blocks of rows line up: each block is
  // its own table, and all but the first lose their header and its rule.
  const blocks: string[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_BLOCK) {
    const block = renderBlock(columns, rows.slice(start, start + ROWS_PER_BLOCK), wrap);
    blocks.push(start === 0 ? block : withoutHeader(block));
  }
  return blocks.join('\n');
}

const ROWS_PER_BLOCK = 50;
const HEADER_RULE = /^[─ ]+$/u;

function withoutHeader(block: string): string {
  const lines = block.split('\n');
  return lines.slice(lines.findIndex((line) => HEADER_RULE.test(line)) + 1).join('\n');
}

function renderBlock(columns: readonly TerminalColumn[], rows: readonly string[][], wrap: boolean): string {
  const table = new Table({
    head: columns.map((column) => column.header),
    colWidths: columns.map((column) => column.width),
    colAligns: columns.map((column) => column.align),
    chars: BORDERLESS,
    // Colours are the caller's (chalk, or none): cli-table3 must add no escapes of its own.
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    wordWrap: wrap,
    wrapOnWordBoundary: true,
  });
  table.push(...rows.map((row) => [...row]));
  // cli-table3 pads the last column; trailing spaces are noise in logs and golden files.
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

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
  if (!wrap && rows.length > 0 && fitsAsIs(columns, rows)) return renderFitting(columns, rows);
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

/** One table drawn by cli-table3 (exported for the tests that hold the direct drawing to it). */
export function renderBlock(columns: readonly TerminalColumn[], rows: readonly string[][], wrap: boolean): string {
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

/** cli-table3's own pattern for the colour codes it measures around (utils.js). */
// eslint-disable-next-line no-control-regex -- a colour code starts with ESC
const COLOUR_CODE = /\u001b\[(?:\d*;){0,5}\d*m/gu;
/**
 * Text every character of which takes one column, as string-width (cli-table3's measure) has
 * it: printable ASCII and the few narrow symbols the report prints (— … → ─ · ×).
 */
const ONE_COLUMN_TEXT = /^[\u0020-\u007e\u2014\u2026\u2192\u2500\u00b7\u00d7]*$/u;

/** Columns a cell takes when every character takes one, or -1 when that is not known here. */
function simpleWidth(cell: string): number {
  const text = cell.includes('\u001b') ? cell.replace(COLOUR_CODE, '') : cell;
  return ONE_COLUMN_TEXT.test(text) ? text.length : -1;
}

/** Whether every header line and every cell (of one line) is of one-column characters and fits its column. */
function fitsAsIs(columns: readonly TerminalColumn[], rows: readonly string[][]): boolean {
  const fits = (cell: string, column: TerminalColumn | undefined): boolean => {
    if (column === undefined) return false;
    const width = simpleWidth(cell);
    return width !== -1 && width <= column.width;
  };
  return columns.every((column) => column.header.split('\n').every((line) => fits(line, column)))
    && rows.every((row) => row.length === columns.length && row.every((cell, index) => fits(cell, columns[index])));
}

/**
 * The table cli-table3 draws, written directly: with every cell fitting as it is there is
 * nothing to truncate, wrap or measure but lengths. cli-table3's layout per row dominated a
 * large fleet's terminal report (bench/MEASUREMENTS.md). The tests hold the two to the same text.
 */
function renderFitting(columns: readonly TerminalColumn[], rows: readonly string[][]): string {
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, index) => {
        const { width, align } = columns[index]!;
        const padding = ' '.repeat(width - simpleWidth(cell));
        return align === 'right' ? `${padding}${cell}` : `${cell}${padding}`;
      })
      .join(COLUMN_GAP)
      .trimEnd();
  // A header of several lines stands at the top of its cell.
  const headers = columns.map((column) => column.header.split('\n'));
  const headerLines = Array.from({ length: Math.max(...headers.map((header) => header.length)) }, (_, at) => line(headers.map((header) => header[at] ?? '')));
  const rule = columns.map((column) => BORDERLESS.mid.repeat(column.width)).join(BORDERLESS['mid-mid']);
  return [...headerLines, rule, ...rows.map(line)].join('\n');
}

/**
 * A terminal table that fits a width: columns marked droppable leave, lowest priority first,
 * until the rest fit at their smallest; a shrinkable column (a name) then gives way, truncated
 * with `…`. Missing figures are dimmed. The workloads and serving sections use it.
 */
import { MISSING } from './format.js';
import { cellWidth, fitColumnWidths, truncateEnd } from './terminal-layout.js';
import { renderTerminalTable, type TerminalColumn } from './terminal-table.js';

export interface FittedColumn<Row> {
  header: string;
  align: 'left' | 'right';
  cell: (row: Row) => string;
  /** The name column gives way first when the terminal is narrow. */
  shrink?: { minimum: number };
  /** Left out on a terminal too narrow for every column, lowest first; columns without one always stay. */
  dropPriority?: number;
}

const naturalWidth = <Row>(column: FittedColumn<Row>, rows: readonly Row[]): number =>
  Math.max(...column.header.split('\n').map(cellWidth), ...rows.map((row) => cellWidth(column.cell(row))));

function columnsThatFit<Row>(all: readonly FittedColumn<Row>[], rows: readonly Row[], width: number): FittedColumn<Row>[] {
  const columns = [...all];
  const smallest = (column: FittedColumn<Row>): number => Math.min(naturalWidth(column, rows), column.shrink?.minimum ?? Infinity);
  const needed = (): number => columns.reduce((total, column) => total + smallest(column), columns.length - 1);
  const droppable = all.filter((column) => column.dropPriority !== undefined).sort((a, b) => a.dropPriority! - b.dropPriority!);
  for (const column of droppable) {
    if (needed() <= width) break;
    columns.splice(columns.indexOf(column), 1);
  }
  return columns;
}

/** The table, and the headers of the columns left out at this width. */
export function renderFittedTable<Row>(all: readonly FittedColumn<Row>[], rows: readonly Row[], width: number, paint: { dim: (text: string) => string }): { table: string; omitted: string[] } {
  const shown = columnsThatFit(all, rows, width);
  const widths = fitColumnWidths(
    shown.map((column) => ({ natural: naturalWidth(column, rows), minimum: column.shrink?.minimum ?? 0, flexible: column.shrink !== undefined })),
    width - (shown.length - 1),
  );
  const cells = rows.map((row) => shown.map((column, index) => {
    const text = column.cell(row);
    const cell = column.shrink === undefined ? text : truncateEnd(text, widths[index]!);
    return cell === MISSING ? paint.dim(cell) : cell;
  }));
  const columns: TerminalColumn[] = shown.map((column, index) => ({ header: column.header, align: column.align, width: widths[index]! }));
  return { table: renderTerminalTable(columns, cells), omitted: all.filter((column) => !shown.includes(column)).map((column) => column.header.replace('\n', ' ')) };
}

/**
 * The table shape shared by `nvidia-smi --query-gpu=... --format=csv` and
 * `--query-compute-apps=... --format=csv`: one header line of `field [unit]` names, then
 * data rows, both separated by `", "` (comma and space; cells such as
 * `C:\Program Files\...` contain spaces, so only the pair separates). A `-l` loop prints
 * the header once; concatenated logs repeat it, possibly with other fields.
 *
 * What each field means lives with each format (a table of cell readers); this file only
 * finds the header, maps columns to readers once per header, and walks rows.
 */
import { InputError } from '../../model/errors.js';
import type { Warn } from './warnings.js';

export const CELL_SEPARATOR = ', ';

export interface QueryColumn {
  /** Field name as printed, e.g. `memory.used`. */
  field: string;
  /** Unit from the header's brackets (`MiB`), if any. */
  unit: string | undefined;
}

/**
 * Reads one cell into the row being built. Returns false when the cell holds something
 * that cannot be read as that field (the caller warns and leaves the value out).
 */
export type CellReader<Row> = (row: Row, cell: string, unit: string | undefined) => boolean;

export interface QuerySchema<Row> {
  /** The nvidia-smi switch, for messages: `--query-gpu`. */
  query: string;
  /** Field name -> what to do with its cells; every other field is skipped. */
  readers: Readonly<Record<string, CellReader<Row>>>;
  /** A header this schema can read, shown when an input has none. */
  exampleHeader: string;
  /**
   * Fields without which a row means nothing (its time, a process's pid): an unreadable
   * cell there skips the whole row instead of one value.
   */
  rowFields: ReadonlySet<string>;
  /**
   * Whether a header is this table's. Detection and parsing share the rule, so a file
   * is read only by the parser that claimed it.
   */
  accepts(columns: readonly QueryColumn[]): boolean;
}

const HEADER_CELL = /^([a-z][A-Za-z0-9_.]*)(?: \[([^\]]+)\])?$/;
const LOWER_A = 0x61;
const LOWER_Z = 0x7a;
const SPACE = 0x20;

/**
 * Columns of a header line, or undefined when the line is not one (a data row, a help
 * text, another CSV): every cell must look like a field name, lower-case first. A data
 * row could pass that only if all its cells were lower-case words, and would still have
 * to name the fields a schema accepts (`pid`, `utilization.gpu` ...), which values do not.
 */
export function parseQueryHeader(line: string): QueryColumn[] | undefined {
  const first = line.charCodeAt(0);
  if (!(first >= LOWER_A && first <= LOWER_Z)) return undefined;
  const columns: QueryColumn[] = [];
  for (const cell of line.split(CELL_SEPARATOR)) {
    const match = HEADER_CELL.exec(cell.trim());
    if (match === null) return undefined;
    columns.push({ field: match[1]!, unit: match[2] });
  }
  return columns;
}

/** True when `line` (a detection head's first line) is a header that `schema` accepts. */
export function isAcceptedHeader<Row>(line: string | undefined, schema: QuerySchema<Row>): boolean {
  const columns = line === undefined ? undefined : parseQueryHeader(line);
  return columns !== undefined && schema.accepts(columns);
}

export interface QueryRowHandlers<Row> {
  /** Clears the reused row before each data line. */
  reset(row: Row): void;
  /** A complete, well-formed row: send what it holds to the sink. False when it had to be skipped after all. */
  emit(row: Row, lineNumber: number): boolean | void;
  /** A new header was read (the first, or a different one later in a concatenated log). */
  header?(columns: readonly QueryColumn[], lineNumber: number): void;
}

/**
 * Walks the lines of one CSV table. The first non-blank line must be a header the schema
 * can read, else InputError; later rows with the wrong number of cells, or cells that
 * cannot be read, become warnings. One row object is reused for every line.
 */
export class QueryCsvReader<Row> {
  private headerLine: string | undefined;
  private readers: (CellReader<Row> | undefined)[] = [];
  private units: (string | undefined)[] = [];
  private fields: string[] = [];
  private dataRows = 0;
  /** Cells that could not be read on the current line, reported once the row is known to be whole. */
  private readonly badCells: number[] = [];
  private readonly badTexts: string[] = [];

  constructor(
    private readonly file: string,
    private readonly schema: QuerySchema<Row>,
    private readonly row: Row,
    private readonly handlers: QueryRowHandlers<Row>,
    private readonly warn: Warn,
  ) {}

  /** Data rows read (records). */
  get rows(): number {
    return this.dataRows;
  }

  line(text: string, lineNumber: number): void {
    if (text === this.headerLine) return; // the same header printed again
    const first = text.charCodeAt(0);
    if (Number.isNaN(first) || (first === SPACE && text.trim() === '')) return; // blank
    if (this.headerLine === undefined) {
      this.readHeader(text, lineNumber, true);
      return;
    }
    // Only a line starting with a lower-case letter can be a header: test that before parsing one.
    if (first >= LOWER_A && first <= LOWER_Z && this.readHeader(text, lineNumber, false)) return;
    this.readRow(text, lineNumber);
  }

  /** Call at the end of the table: an empty table has no header to name its columns. */
  finish(lineNumber: number): void {
    if (this.headerLine !== undefined) return;
    throw new InputError(`no ${this.schema.query} CSV header: the input is empty; expected a header such as "${this.schema.exampleHeader}"`, {
      file: this.file,
      location: `line ${Math.max(1, lineNumber)}`,
    });
  }

  /** Returns false when `text` is not a header (only possible after the first one). */
  private readHeader(text: string, lineNumber: number, required: boolean): boolean {
    const columns = parseQueryHeader(text);
    if (columns === undefined) {
      if (!required) return false;
      throw new InputError(
        `expected a ${this.schema.query} CSV header (such as "${this.schema.exampleHeader}"), found a line that is not one. ` +
          `Output of --format=csv,noheader cannot be read because its columns have no names: ` +
          `re-run nvidia-smi with --format=csv or --format=csv,nounits, which print the header`,
        { file: this.file, location: `line ${lineNumber}` },
      );
    }
    if (!this.schema.accepts(columns)) {
      if (!required) return false;
      throw new InputError(
        `the header is not that of a ${this.schema.query} table gpu-audit reads; expected fields such as "${this.schema.exampleHeader}"`,
        { file: this.file, location: `line ${lineNumber}` },
      );
    }
    this.headerLine = text;
    this.fields = columns.map((column) => column.field);
    this.units = columns.map((column) => column.unit);
    this.readers = columns.map((column) => (Object.hasOwn(this.schema.readers, column.field) ? this.schema.readers[column.field] : undefined));
    this.handlers.header?.(columns, lineNumber);
    return true;
  }

  private readRow(text: string, lineNumber: number): void {
    const { row, readers, units, badCells, badTexts } = this;
    const columnCount = readers.length;
    this.handlers.reset(row);
    badCells.length = 0;
    badTexts.length = 0;
    let cellIndex = 0;
    let start = 0;
    for (;;) {
      const separator = text.indexOf(CELL_SEPARATOR, start);
      const end = separator === -1 ? text.length : separator;
      const reader = cellIndex < columnCount ? readers[cellIndex] : undefined;
      if (reader !== undefined) {
        // Trim by index: one slice per read cell, none for the cells no reader wants.
        let cellStart = start;
        let cellEnd = end;
        while (cellStart < cellEnd && text.charCodeAt(cellStart) === SPACE) cellStart += 1;
        while (cellEnd > cellStart && text.charCodeAt(cellEnd - 1) === SPACE) cellEnd -= 1;
        const cell = text.slice(cellStart, cellEnd);
        if (!reader(row, cell, units[cellIndex])) {
          badCells.push(cellIndex);
          badTexts.push(cell);
        }
      }
      cellIndex += 1;
      if (separator === -1) break;
      start = separator + CELL_SEPARATOR.length;
    }
    if (cellIndex !== columnCount) {
      this.warn(`line ${lineNumber}`, `${cellIndex} cells where the header has ${columnCount}; row skipped`);
      return;
    }
    if (badCells.length > 0 && !this.reportBadCells(lineNumber)) return;
    if (this.handlers.emit(row, lineNumber) !== false) this.dataRows += 1;
  }

  /** Warns about the unreadable cells of a line; false when one of them costs the whole row. */
  private reportBadCells(lineNumber: number): boolean {
    const { badCells, badTexts, fields, units } = this;
    const describe = (bad: number): string => {
      const column = badCells[bad]!;
      const unit = units[column];
      const named = unit === undefined ? fields[column]! : `${fields[column]!} [${unit}]`;
      return `${named}: cannot read "${badTexts[bad]!}"`;
    };
    for (let bad = 0; bad < badCells.length; bad += 1) {
      if (this.schema.rowFields.has(fields[badCells[bad]!]!)) {
        this.warn(`line ${lineNumber}`, `${describe(bad)}; row skipped`);
        return false;
      }
    }
    for (let bad = 0; bad < badCells.length; bad += 1) this.warn(`line ${lineNumber}`, `${describe(bad)}; value skipped`);
    return true;
  }
}

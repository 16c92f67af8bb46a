/**
 * The table shape shared by `nvidia-smi --query-gpu=... --format=csv` and
 * `--query-compute-apps=... --format=csv`: one header line of `field [unit]` names, then
 * data rows, both separated by `", "` (comma and space; cells such as
 * `C:\Program Files\...` contain spaces, so only the pair separates). A `-l` loop prints
 * the header once; concatenated logs repeat it, possibly with other fields.
 *
 * What each field means lives with each format (a table of cell readers); this file only
 * finds the header, maps columns to readers once per header, and walks rows (reading the
 * plain cells of the numeric columns a format marks inline itself, see InlineNumbers).
 */
import { InputError } from '../../../support/index.js';
import type { LocalTimestampReader } from './local-time.js';
import { RepeatedRun, type RunnableColumns } from './repeated-run.js';
import { isPlainUnit, QuantityCells, unitCodes } from './values.js';
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

/**
 * A CellReader that reads the cell text[start, end) in place (trimmed, possibly empty), for
 * the columns of long logs: no string is cut out per cell.
 */
export type SpanReader<Row> = (row: Row, text: string, start: number, end: number, unit: string | undefined) => boolean;

/**
 * How the row loop reads a numeric column itself: `quantity` as parseQuantitySpan, the last
 * value of the row wins; `first-quantity` the same where the first one wins; `local-time` as
 * LocalTimestampReader.readSpan.
 */
export type InlineNumberKind = 'quantity' | 'first-quantity' | 'local-time';

/**
 * The numeric hot columns of long logs, read in the row loop in one pass per cell (value and
 * cell end together, see QuantityCells and LocalTimestampReader.scanCell) into a row's number
 * slots instead of through a reader per cell. Only the plain shapes are read so; any other
 * cell of such a column ([N/A], odd spacing) goes to its span reader, which must write the same
 * slot: the span readers stay the reference.
 */
export interface InlineNumbers<Row> {
  /** Field -> its slot in `values(row)` and how it reads. */
  columns: Readonly<Record<string, { slot: number; kind: InlineNumberKind }>>;
  /** The row's number slots, NaN where the row has no value (cleared by the row's reset). */
  values(row: Row): Float64Array;
  /** The reader of `local-time` columns. */
  timestamps?(row: Row): LocalTimestampReader;
}

export interface QuerySchema<Row> {
  /** The nvidia-smi switch, for messages: `--query-gpu`. */
  query: string;
  /** Field name -> what to do with its cells; a field in neither table is skipped. */
  readers: Readonly<Record<string, CellReader<Row>>>;
  /**
   * Fields read in place instead (hot columns of long logs); one here wins over `readers`.
   * Made once per table reader, since they may keep caches.
   */
  spanReaders?: () => Readonly<Record<string, SpanReader<Row>>>;
  /**
   * Columns whose reader writes one slot of the row's run values from the cell text alone
   * (names, ids): side by side, they are read once per distinct text and replayed (see
   * RepeatedRun).
   */
  runnable?: {
    columns: RunnableColumns;
    /** The row's run values, cleared by the row's reset. */
    values(row: Row): unknown[];
  };
  /** Numeric columns read in the row loop itself (each also needs a span reader). */
  inline?: InlineNumbers<Row>;
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

/** What the row loop does with a column (see readRow). */
const SKIP = 0;
const READ = 1;
const QUANTITY = 2;
const FIRST_QUANTITY = 3;
const LOCAL_TIME = 4;
const INLINE_KINDS: Readonly<Record<InlineNumberKind, number>> = { quantity: QUANTITY, 'first-quantity': FIRST_QUANTITY, 'local-time': LOCAL_TIME };

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
  private readers: (SpanReader<Row> | undefined)[] = [];
  private readonly spanReaders: Readonly<Record<string, SpanReader<Row>>>;
  /** The identity columns of the current header, read once per distinct text. */
  private run: RepeatedRun | undefined;
  private readonly runValues: unknown[];
  private units: (string | undefined)[] = [];
  private fields: string[] = [];
  /** Per column of the current header: SKIP, READ or an inline kind, and its number slot. */
  private kinds: number[] = [];
  private slots: number[] = [];
  /** Per column: its unit as QuantityCells reads it. */
  private columnUnits: Uint16Array[] = [];
  private readonly numbers: Float64Array;
  private readonly timestamps: LocalTimestampReader | undefined;
  private readonly quantities = new QuantityCells();
  private dataRows = 0;
  /** Cells that could not be read on the current line, reported once the row is known to be whole. */
  private readonly badCells: number[] = [];
  private readonly badTexts: string[] = [];
  /** The last separator search (see nextSeparator). */
  private searchedText = '';
  private searchedFrom = 0;
  private foundAt = -1;

  constructor(
    private readonly file: string,
    private readonly schema: QuerySchema<Row>,
    private readonly row: Row,
    private readonly handlers: QueryRowHandlers<Row>,
    private readonly warn: Warn,
  ) {
    this.spanReaders = schema.spanReaders?.() ?? {};
    this.numbers = schema.inline?.values(row) ?? new Float64Array(0);
    this.runValues = schema.runnable?.values(row) ?? [];
    this.timestamps = schema.inline?.timestamps?.(row);
  }

  /** Data rows read (records). */
  get rows(): number {
    return this.dataRows;
  }

  /** The header line in effect (the last one read), undefined before the first. */
  get header(): string | undefined {
    return this.headerLine;
  }

  line(text: string, lineNumber: number): void {
    this.lineSpan(text, 0, text.length, lineNumber);
  }

  /** `line(text.slice(start, end), lineNumber)`, reading data rows in place. */
  lineSpan(text: string, start: number, end: number, lineNumber: number): void {
    const headerLine = this.headerLine;
    if (headerLine !== undefined && end - start === headerLine.length && text.startsWith(headerLine, start)) return; // the same header printed again
    if (start === end) return; // blank
    const first = text.charCodeAt(start);
    if (first === SPACE && text.slice(start, end).trim() === '') return; // blank
    if (headerLine === undefined) {
      this.readHeader(text.slice(start, end), lineNumber, true);
      return;
    }
    // Only a line starting with a lower-case letter can be a header: test that before parsing one.
    if (first >= LOWER_A && first <= LOWER_Z && this.readHeader(text.slice(start, end), lineNumber, false)) return;
    this.readRow(text, start, end, lineNumber);
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
    this.readers = columns.map((column) => this.readerOf(column.field));
    this.run = this.schema.runnable === undefined ? undefined : RepeatedRun.of(this.fields, this.schema.runnable.columns);
    this.kinds = columns.map((column, index) => this.kindOf(column, index));
    this.slots = columns.map((column) => this.inlineColumn(column.field)?.slot ?? -1);
    this.columnUnits = columns.map((column) => unitCodes(column.unit));
    this.handlers.header?.(columns, lineNumber);
    return true;
  }

  private inlineColumn(field: string): { slot: number; kind: InlineNumberKind } | undefined {
    const columns = this.schema.inline?.columns;
    return columns !== undefined && Object.hasOwn(columns, field) ? columns[field] : undefined;
  }

  /**
   * Inline where the schema says so, the column has its reference reader, lies outside the
   * identity run (replayed as a whole) and its unit is one QuantityCells can match.
   */
  private kindOf(column: QueryColumn, index: number): number {
    const reader = this.readers[index];
    if (reader === undefined) return SKIP;
    const inline = this.inlineColumn(column.field);
    const run = this.run;
    const inRun = run !== undefined && index >= run.first && index < run.first + run.count;
    if (inline === undefined || inRun) return READ;
    if (inline.kind === 'local-time') return this.timestamps === undefined ? READ : LOCAL_TIME;
    return isPlainUnit(column.unit) ? INLINE_KINDS[inline.kind] : READ;
  }

  private readerOf(field: string): SpanReader<Row> | undefined {
    if (Object.hasOwn(this.spanReaders, field)) return this.spanReaders[field];
    if (!Object.hasOwn(this.schema.readers, field)) return undefined;
    const reader = this.schema.readers[field]!;
    return (row, text, start, end, unit) => reader(row, text.slice(start, end), unit);
  }

  /**
   * The first ", " at or after `from` in `text` (-1: none). The search for a line's last cell
   * runs on into the next line; what it found is kept, so that the next line's search starts
   * there instead of scanning the same characters again (a chunk of lines without any
   * separator would otherwise be scanned once per line).
   */
  private nextSeparator(text: string, from: number): number {
    if (text === this.searchedText && from >= this.searchedFrom && (this.foundAt === -1 || from <= this.foundAt)) return this.foundAt;
    // A search for the comma alone is several times cheaper than one for the pair.
    let at = text.indexOf(',', from);
    while (at !== -1 && text.charCodeAt(at + 1) !== SPACE) at = text.indexOf(',', at + 1);
    this.searchedText = text;
    this.searchedFrom = from;
    this.foundAt = at;
    return at;
  }

  /** Reads the data row text[lineStart, lineEnd). */
  private readRow(text: string, lineStart: number, lineEnd: number, lineNumber: number): void {
    const { row, badCells, badTexts, kinds, slots, numbers, quantities, columnUnits } = this;
    const columnCount = kinds.length;
    this.handlers.reset(row);
    if (badCells.length > 0) {
      badCells.length = 0;
      badTexts.length = 0;
    }
    let cellIndex = 0;
    let start = lineStart;
    const run = this.run;
    const runFirst = run === undefined ? -1 : run.first;
    const runLast = run === undefined ? -1 : run.first + run.count - 1;
    let runStart = -1;
    let runBadCells = 0;
    for (;;) {
      if (cellIndex === runFirst) {
        const next = run!.replay(this.runValues, text, start, lineEnd);
        if (next !== -1) {
          cellIndex += run!.count;
          start = next;
          continue;
        }
        runStart = start;
        runBadCells = badCells.length;
      }
      const kind = cellIndex < columnCount ? kinds[cellIndex]! : SKIP;
      if (kind > READ) {
        // A plain number or timestamp: value and cell end in one pass, no reader call.
        let value = 0;
        let cellEnd = -1;
        if (kind === LOCAL_TIME) {
          cellEnd = this.timestamps!.scanCell(text, start, lineEnd);
          value = this.timestamps!.value;
        } else {
          cellEnd = quantities.read(text, start, lineEnd, columnUnits[cellIndex]!);
          value = quantities.value;
        }
        if (cellEnd !== -1) {
          const slot = slots[cellIndex]!;
          if (kind !== FIRST_QUANTITY || Number.isNaN(numbers[slot])) numbers[slot] = value;
          cellIndex += 1;
          if (cellEnd === lineEnd) break;
          start = cellEnd + CELL_SEPARATOR.length;
          continue;
        }
      }
      let separator = this.nextSeparator(text, start);
      if (separator >= lineEnd) separator = -1; // the next line's
      if (kind !== SKIP) this.readCell(text, start, separator === -1 ? lineEnd : separator, cellIndex); // READ, or an inline cell of another shape
      if (cellIndex === runLast && runStart !== -1) {
        if (separator !== -1 && badCells.length === runBadCells) run!.remember(this.runValues, text, runStart, separator);
        runStart = -1;
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

  /** Reads the cell text[start, end) of column `cellIndex` with its reader, noting it when unreadable. */
  private readCell(text: string, start: number, end: number, cellIndex: number): void {
    // Trim by index: span readers read in place, the others slice the cell they want.
    let cellStart = start;
    let cellEnd = end;
    while (cellStart < cellEnd && text.charCodeAt(cellStart) === SPACE) cellStart += 1;
    while (cellEnd > cellStart && text.charCodeAt(cellEnd - 1) === SPACE) cellEnd -= 1;
    if (!this.readers[cellIndex]!(this.row, text, cellStart, cellEnd, this.units[cellIndex])) {
      this.badCells.push(cellIndex);
      this.badTexts.push(text.slice(cellStart, cellEnd));
    }
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

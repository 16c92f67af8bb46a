/**
 * The table shape shared by `nvidia-smi dmon` and `nvidia-smi pmon`: two `#` lines (column
 * names, then units) and whitespace-aligned rows, `-` where a value is unavailable.
 *
 *   #Date       Time        gpu    pwr  gtemp  mtemp     sm    mem ...
 *   #YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      % ...
 *    20240104   13:54:35      0     72     45      -     98     43 ...
 *
 * The columns depend on the driver (`jpg`, `ofa` from 590), on `-s` (which groups) and on
 * `-o D|T|DT` (leading Date/Time columns). Long runs print the header again; pmon of some
 * drivers prints two header pairs in a row. Every names line starts a new layout.
 */
import { InputError } from '../../../support/index.js';
import { parseLocalTimestamp } from '../timestamps.js';
import { readTableLines } from './line-table.js';
import { leadingLines } from './lines.js';
import { isMonitorDash, parseCount, parseDecimal } from './values.js';
import type { Warn, WarningLimiter } from './warnings.js';

const HASH = 0x23;
const SPACE = 0x20;
const TAB = 0x09;

function isBlank(code: number): boolean {
  return code === SPACE || code === TAB;
}

/**
 * Splits on runs of spaces/tabs into `out` (reused), returning the count. With `limit`,
 * the last field takes the rest of the line, inner spaces kept (pmon's `command` column:
 * `NVIDIA Overlay.`).
 */
export function splitFields(line: string, out: string[], limit = Number.POSITIVE_INFINITY): number {
  let count = 0;
  let position = 0;
  const length = line.length;
  for (;;) {
    while (position < length && isBlank(line.charCodeAt(position))) position += 1;
    if (position >= length) break;
    if (count === limit - 1) {
      let end = length;
      while (isBlank(line.charCodeAt(end - 1))) end -= 1;
      out[count] = line.slice(position, end);
      count += 1;
      break;
    }
    const start = position;
    while (position < length && !isBlank(line.charCodeAt(position))) position += 1;
    out[count] = line.slice(start, position);
    count += 1;
  }
  return count;
}

export interface MonitorLayout {
  /** Column names as printed (`gpu`, `pwr`, `sm` ...), Date/Time included. */
  names: readonly string[];
  /** Units from the second header line, once read. */
  units: readonly string[] | undefined;
  /** Positions of the gpu, Date and Time columns; -1 where absent. */
  gpu: number;
  date: number;
  time: number;
  /** Line of the names header, for messages. */
  lineNumber: number;
}

const DATE_TIME_COLUMNS = new Set(['Date', 'Time']);

/**
 * Column names of a dmon/pmon names line (`# gpu  pwr ...`, `#Date Time gpu ...`), or
 * undefined when the line is not one of `kind`: pmon's `gpu` is followed by `pid`,
 * dmon's never is.
 */
export function parseMonitorHeader(line: string, kind: 'dmon' | 'pmon'): string[] | undefined {
  if (line.charCodeAt(0) !== HASH) return undefined;
  const names: string[] = [];
  const count = splitFields(line.slice(1), names);
  let gpu = 0;
  while (gpu < count && DATE_TIME_COLUMNS.has(names[gpu]!)) gpu += 1;
  if (names[gpu] !== 'gpu' || count < gpu + 2) return undefined;
  const isPmon = names[gpu + 1] === 'pid';
  return isPmon === (kind === 'pmon') ? names : undefined;
}

export type MonitorLineKind = 'skip' | 'header' | 'units' | 'data';

/**
 * Walks the lines of a dmon or pmon table. After `read` returns `data`, the row's fields
 * are in `fields[0 .. fieldCount)` under `layout`.
 */
export class MonitorTable {
  layout: MonitorLayout | undefined;
  readonly fields: string[] = [];
  fieldCount = 0;
  private readonly scratch: string[] = [];
  /** The last Date and Time read, in which zone, and their time: the GPUs of one tick share them. */
  private lastDate = '';
  private lastTime = '';
  private lastZone = '';
  private lastTimeMs = Number.NaN;
  private namesLine: string | undefined;
  private unitsLine: string | undefined;

  constructor(
    private readonly file: string,
    private readonly kind: 'dmon' | 'pmon',
  ) {}

  read(line: string, lineNumber: number): MonitorLineKind {
    if (line.charCodeAt(0) === HASH) return this.readHashLine(line, lineNumber);
    const layout = this.layout;
    if (layout === undefined) {
      if (line.trim() === '') return 'skip';
      throw new InputError(
        `a data row before the "# gpu ..." header: nvidia-smi ${this.kind} output starts with two "#" header lines naming its columns`,
        { file: this.file, location: `line ${lineNumber}` },
      );
    }
    // The last pmon column (`command`) may contain spaces; every other field is one word.
    const last = layout.names.length - 1;
    this.fieldCount = splitFields(line, this.fields, layout.names[last] === 'command' ? layout.names.length : Number.POSITIVE_INFINITY);
    return this.fieldCount === 0 ? 'skip' : 'data';
  }

  /**
   * Epoch ms of the current row from its Date and Time columns (`20240104` `13:54:35`,
   * local time in `timeZone`); undefined where the layout has no Date and Time; NaN where
   * they cannot be read.
   */
  rowTime(timeZone: string): number | undefined {
    const layout = this.layout;
    if (layout === undefined || layout.date < 0 || layout.time < 0) return undefined;
    const date = this.fields[layout.date] ?? '';
    const time = this.fields[layout.time] ?? '';
    if (time === this.lastTime && date === this.lastDate && timeZone === this.lastZone && date !== '') return this.lastTimeMs;
    const printed = date.length === 8 ? `${date.slice(0, 4)}/${date.slice(4, 6)}/${date.slice(6, 8)} ${time}` : `${date} ${time}`;
    this.lastDate = date;
    this.lastTime = time;
    this.lastZone = timeZone;
    this.lastTimeMs = parseLocalTimestamp(printed, timeZone) ?? Number.NaN;
    return this.lastTimeMs;
  }

  /**
   * The header lines in effect (names, then units once read), one per line: what a block of a
   * long log needs from the text before it (SourceParser.blocks); undefined before the first.
   */
  get headerText(): string | undefined {
    return this.unitsLine === undefined ? this.namesLine : `${this.namesLine}\n${this.unitsLine}`;
  }

  private readHashLine(line: string, lineNumber: number): MonitorLineKind {
    const names = parseMonitorHeader(line, this.kind);
    if (names !== undefined) {
      this.namesLine = line;
      this.unitsLine = undefined;
      this.layout = {
        names,
        units: undefined,
        gpu: names.indexOf('gpu'),
        date: names.indexOf('Date'),
        time: names.indexOf('Time'),
        lineNumber,
      };
      return 'header';
    }
    const layout = this.layout;
    if (layout !== undefined && layout.units === undefined) {
      const count = splitFields(line.slice(1), this.scratch);
      if (count === layout.names.length && this.scratch[layout.gpu] === 'Idx') {
        layout.units = this.scratch.slice(0, count);
        this.unitsLine = line;
        return 'units';
      }
    }
    return 'skip';
  }
}
/** What a dmon or pmon parser does with the lines MonitorTable reads (see readMonitorLines). */
export interface MonitorRows {
  /** A names or units line set `layout` (a names line's Time-without-Date warning follows). */
  layout(layout: MonitorLayout, warn: Warn): void;
  /** A data row: its fields are `table.fields`. */
  row(table: MonitorTable, lineNumber: number, warn: Warn): void;
}

const MISSING_HEADER: Readonly<Record<'dmon' | 'pmon', string>> = {
  dmon: 'no "# gpu ..." header line: expected nvidia-smi dmon output',
  pmon: 'no "# gpu pid type ..." header line: expected nvidia-smi pmon output',
};

/**
 * Reads a dmon or pmon table from `chunks` into `rows`, warning through `warnings`; `header` as
 * readTableLines takes it.
 * No header at all is an InputError.
 */
export async function readMonitorLines(
  kind: 'dmon' | 'pmon',
  chunks: AsyncIterable<string>,
  file: string,
  warnings: WarningLimiter,
  header: string | undefined,
  rows: MonitorRows,
): Promise<{ lines: number; header: string | undefined }> {
  const table = new MonitorTable(file, kind);
  const lines = await readTableLines(chunks, file, warnings, header, (line, lineNumber, warn) => {
    const read = table.read(line, lineNumber);
    const layout = table.layout;
    if (read === 'skip' || layout === undefined) return;
    if (read === 'data') {
      rows.row(table, lineNumber, warn);
      return;
    }
    rows.layout(layout, warn);
    if (read === 'header') warnTimeWithoutDate(layout, warn);
  });
  if (table.layout === undefined) throw new InputError(MISSING_HEADER[kind], { file, location: `line ${Math.max(1, lines)}` });
  return { lines, header: table.headerText };
}

/** MonitorTable.headerText after the header lines a detection head starts with: the state a long log's blocks start in. */
export function monitorHeaderOf(head: string, kind: 'dmon' | 'pmon'): string | undefined {
  const table = new MonitorTable('', kind);
  for (const line of leadingLines(head, 2)) if (line.charCodeAt(0) === HASH) table.read(line, 0);
  return table.headerText;
}

/** `-o T` prints the time of day without a date, which cannot place a sample in time. */
function warnTimeWithoutDate(layout: MonitorLayout, warn: Warn): void {
  if (layout.time >= 0 && layout.date < 0) {
    warn(`line ${layout.lineNumber}`, 'Time column without Date (-o T): rows are read without timestamps; use -o DT');
  }
}


/** A column gpu-audit reads, with the unit its second header line must show. */
export interface MonitorMetric<Target> {
  unit: string;
  set(target: Target, value: number): void;
}

/**
 * The metric of each column of `layout`, from a table of known names. A column whose
 * printed unit differs from the expected one is dropped with a warning rather than
 * misread (a driver that switched `fb` to GiB would otherwise shrink every figure).
 */
export function metricColumns<Target>(
  layout: MonitorLayout,
  metrics: Readonly<Record<string, MonitorMetric<Target>>>,
  warn: Warn,
): (MonitorMetric<Target> | undefined)[] {
  return layout.names.map((name, column) => {
    const metric = Object.hasOwn(metrics, name) ? metrics[name] : undefined;
    const unit = layout.units?.[column];
    if (metric === undefined || unit === undefined || unit === metric.unit) return metric;
    warn(`line ${layout.lineNumber + 1}`, `column ${name} is in ${unit}, expected ${metric.unit}; column ignored`);
    return undefined;
  });
}

/** The GPU index and time of a data row that passed `checkRow`. */
export interface MonitorRowKey {
  index: number;
  time: number | undefined;
}

/**
 * Checks the data row `table` just read: as many fields as the header, a GPU index, a
 * readable Date/Time where the layout has them. Warns and returns undefined for a row
 * that must be skipped.
 */
export function checkRow(table: MonitorTable, lineNumber: number, timeZone: string, warn: Warn): MonitorRowKey | undefined {
  const layout = table.layout!;
  const { fields, fieldCount } = table;
  const location = `line ${lineNumber}`;
  if (fieldCount !== layout.names.length) {
    warn(location, `${fieldCount} fields where the header has ${layout.names.length}; row skipped`);
    return undefined;
  }
  const index = parseCountField(fields[layout.gpu]!);
  if (index === undefined) {
    warn(location, `gpu: cannot read "${fields[layout.gpu]!}" as a GPU index; row skipped`);
    return undefined;
  }
  const time = table.rowTime(timeZone);
  if (Number.isNaN(time)) {
    warn(location, `cannot read the date and time "${fields[layout.date]!} ${fields[layout.time]!}"; row skipped`);
    return undefined;
  }
  return { index, time };
}

/** Sets each metric column of the current row on `target`; `-` is no value, anything unreadable a warning. */
export function applyMetrics<Target>(
  table: MonitorTable,
  metrics: readonly (MonitorMetric<Target> | undefined)[],
  target: Target,
  lineNumber: number,
  warn: Warn,
): void {
  const { fields, fieldCount } = table;
  for (let column = 0; column < fieldCount; column += 1) {
    const metric = metrics[column];
    const field = fields[column]!;
    if (metric === undefined || isMonitorDash(field)) continue;
    const value = parseDecimal(field);
    if (Number.isNaN(value)) warn(`line ${lineNumber}`, `${table.layout!.names[column]!}: cannot read "${field}"; value skipped`);
    else metric.set(target, value);
  }
}

function parseCountField(field: string): number | undefined {
  const value = parseCount(field);
  return Number.isNaN(value) ? undefined : value;
}

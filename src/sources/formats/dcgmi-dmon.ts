/**
 * `dcgmi dmon -e <field ids> [-i <gpus> | -g <group>] [-c N] [-d ms]`: DCGM's own monitor,
 * one row per entity per tick, columns named by DCGM short names:
 *
 *   #Entity   GPUTL    FBUSD    SMACT    PCITX          PCIRX
 *   ID
 *   GPU 3     97       40511    0.812    498948         1555
 *   GPU 2     N/A      N/A      N/A      N/A            N/A
 *
 * Columns map through the DCGM field table (dcgm/fields.ts), the same as the exporter's
 * metric names. Blank values print as `N/A`; a field an entity lacks leaves its cell
 * empty, so cells are cut at the header's column positions whenever splitting on blanks
 * does not give one value per column. GPUs within a tick come in no particular order and
 * rows carry no time: each GPU row is one point-value sample. The header and its `ID`
 * units line repeat every 14 ticks (DeviceMonitor.cpp, MAX_PRINT_HEADER_COUNT).
 */
import type { DeviceRef, GpuSample } from '../../model/index.js';
import type { SourceParser } from '../types.js';
import { DCGM_FIELDS, fieldByShortName } from '../dcgm/fields.js';
import type { DcgmField } from '../dcgm/fields.js';
import { fillSample } from '../dcgm/readings.js';
import type { Readings } from '../dcgm/readings.js';
import { dcgmValueProblem, readDcgmValue } from '../dcgm/values.js';
import { leadingLines } from '../lexers/text/lines.js';
import { splitFields } from '../lexers/text/monitor-table.js';
import { parseTable, readTableLines, tableBlocks, type ReadTable } from '../lexers/text/line-table.js';
import type { Warn } from '../lexers/text/warnings.js';

const HEADER = /^#Entity(?:[ \t]+\S+)+[ \t]*$/;
const UNITS_LINE = /^ID(?:[ \t]|$)/;
/**
 * The entity a row is about, as DeviceMonitor.cpp prints it: the entity group's name and
 * id (`GPU 3`, `GPU-I 7`, `CPU Core 12`), or `GPU 0 LINK 5` / `SW 1 LINK 5` for links
 * (tried first: a link row starts like a GPU row).
 */
const ENTITY = /^((?:GPU|SW) \d+ LINK|GPU-CI|GPU-I|GPU|vGPU|Switch|CPU Core|CPU|CX|LINK|UNKNOWN)[ \t]+(\d+)(?=[ \t]|$)/;
const COLUMN_NAME = /\S+/g;
/** What dmon prints when stopped by Ctrl-C: the end of a run, not a bad line. */
const STOPPED = /^dmon was stopped/;
const QUOTE_CHARS = 80;
const HASH = 0x23;
const UPPER_G = 0x47;

interface Column {
  name: string;
  /** Where the column starts in the header, and so in every row. */
  start: number;
  field: DcgmField | undefined;
}

interface Layout {
  columns: Column[];
}

function readHeader(line: string): Layout {
  const columns: Column[] = [];
  for (const match of line.matchAll(COLUMN_NAME)) {
    if (match.index === 0) continue; // `#Entity`
    columns.push({ name: match[0], start: match.index, field: fieldByShortName(match[0]) });
  }
  return { columns };
}

/**
 * The row's cells after its entity, one per column: split on blanks when that gives one
 * value per column (also where a copy lost the alignment), else cut at the header's
 * column positions (an entity lacking a field leaves its cell empty).
 */
function cellsOf(line: string, entityEnd: number, layout: Layout, tokens: string[]): string[] {
  const count = splitFields(line.slice(entityEnd), tokens);
  if (count === layout.columns.length) {
    tokens.length = count;
    return tokens;
  }
  return layout.columns.map((column, position) => {
    const end = layout.columns[position + 1]?.start ?? line.length;
    return line.slice(column.start, end).trim();
  });
}

function quote(line: string): string {
  const trimmed = line.trim();
  return JSON.stringify(trimmed.length > QUOTE_CHARS ? `${trimmed.slice(0, QUOTE_CHARS)}...` : trimmed);
}

const READ_SHORT_NAMES = DCGM_FIELDS.map((field) => field.shortName).join(', ');

/** The message of skipEntity, given once per kind of entity in a file. */
const SKIPPED_ENTITIES = / entities skipped: only GPU rows map to devices$/;

/** Reads a dcgmi dmon table; a block's `header` (ReadTable) is the `#Entity` line in effect before it. */
const readTable: ReadTable = async (chunks, context, sink, warnings, header) => {
  const refs = new Map<number, DeviceRef>();
  const skippedEntityKinds = new Set<string>();
  let layout: Layout | undefined;
  let headerLine: string | undefined;
  let rows = 0;

  const refOf = (index: number): DeviceRef => {
    let ref = refs.get(index);
    if (ref === undefined) {
      ref = Object.freeze({ host: context.host, index });
      refs.set(index, ref);
      sink.device({ ref });
    }
    return ref;
  };

  const tokens: string[] = [];
  const lines = await readTableLines(chunks, context.ref, warnings, header, (line, lineNumber, warn) => {
    // Nearly every line is a GPU row: only a line that is none looks for what else it is.
    if (line.charCodeAt(0) !== UPPER_G && (line.trim() === '' || STOPPED.test(line))) return;
    if (line.charCodeAt(0) === HASH && HEADER.test(line.trimEnd())) {
      layout = readHeader(line);
      headerLine = line;
      if (layout.columns.every((column) => column.field === undefined)) {
        const names = layout.columns.map((column) => column.name).join(', ');
        warn(`line ${lineNumber}`, `no column here is a figure gpu-audit reads (columns ${names}; it reads ${READ_SHORT_NAMES}): rows give no samples`);
      }
      return;
    }
    if (line.charCodeAt(0) !== UPPER_G && UNITS_LINE.test(line)) return;
    if (layout === undefined) {
      warn(`line ${lineNumber}`, `skipped ${quote(line)}: no #Entity header before it`);
      return;
    }
    const entity = ENTITY.exec(line);
    if (entity === null) {
      warn(`line ${lineNumber}`, `skipped ${quote(line)}: not a dcgmi dmon row`);
      return;
    }
    const kind = entity[1]!;
    if (kind !== 'GPU') {
      skipEntity(kind, lineNumber, skippedEntityKinds, warn);
      return;
    }
    const index = Number(entity[2]);
    // A damaged id (`GPU 18446744073709551616`) is no device index (fuzz regression fixture).
    if (!Number.isSafeInteger(index)) {
      warn(`line ${lineNumber}`, `skipped ${quote(line)}: GPU id ${entity[2]!} is not a device index`);
      return;
    }
    rows += 1;
    const ref = refOf(index);
    const readings = readRow(cellsOf(line, entity[0].length, layout, tokens), layout, lineNumber, warn);
    const sample: GpuSample = { ref };
    if (fillSample(sample, readings)) sink.sample(sample);
  });
  return { records: rows, lines, header: headerLine };
};

export const dcgmiDmon: SourceParser = {
  format: 'dcgmi-dmon',
  description: 'dcgmi dmon text (DCGM field short names)',
  detect(head) {
    const [first] = leadingLines(head, 1);
    return first !== undefined && HEADER.test(first.trimEnd());
  },
  parse: parseTable(readTable),
  // A long log in blocks of lines: a block needs the `#Entity` line in effect before it, which
  // detection found on the head's first line.
  blocks: tableBlocks(readTable, (head) => leadingLines(head, 1)[0], (warning) => SKIPPED_ENTITIES.test(warning.message)),
};

function readRow(cells: string[], layout: Layout, lineNumber: number, warn: Warn): Readings {
  const readings: Readings = {};
  layout.columns.forEach((column, position) => {
    if (column.field === undefined) return;
    const cell = cells[position] ?? '';
    const value = readDcgmValue(cell, column.field);
    if (Number.isNaN(value)) {
      warn(`line ${lineNumber}`, `${column.name} value ${JSON.stringify(cell)} ${dcgmValueProblem(cell, column.field)}`);
    } else if (value !== undefined) {
      readings[column.field.reading] = value;
    }
  });
  return readings;
}

/**
 * Rows of other entities: MIG instances (`GPU-I 7`, `GPU-CI 9`) are numbered by DCGM entity
 * id, which does not say which GPU they are part of; switches, links and CPUs are not GPUs.
 * Said once per kind of entity.
 */
function skipEntity(kind: string, lineNumber: number, warned: Set<string>, warn: Warn): void {
  const name = kind.replace(/\d+/g, 'N');
  if (warned.has(name)) return;
  warned.add(name);
  warn(`line ${lineNumber}`, `rows of ${name} entities skipped: only GPU rows map to devices`);
}

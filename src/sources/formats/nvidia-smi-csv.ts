/**
 * `nvidia-smi --query-gpu=... --format=csv[,nounits] [-l N]`: one row per GPU per
 * sample, GPUs interleaved, header once (or again where logs were concatenated).
 *
 *   timestamp, name, uuid, pci.bus_id, index, memory.total [MiB], memory.used [MiB], utilization.gpu [%]
 *   2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, GPU-..., 00000000:00:09.0, 0, 81559 MiB, 11125 MiB, [N/A]
 */
import { allInDomain, clearOutOfDomain, type GpuSample, type MigMode, type ObservationSink } from '../../model/index.js';
import type { SourceContext, SourceParser } from '../types.js';
import { DeviceInventory, DeviceRefs } from '../lexers/text/devices.js';
import { LocalTimestampReader } from '../lexers/text/local-time.js';
import { QueryCsvReader } from '../lexers/text/query-csv.js';
import type { InlineNumberKind, InlineNumbers, QueryColumn, QuerySchema, SpanReader } from '../lexers/text/query-csv.js';
import type { RunnableColumns } from '../lexers/text/repeated-run.js';
import {
  isMissingSpan,
  normalisePciBusId,
  normalisePciDeviceId,
  parseCountSpan,
  parseQuantitySpan,
  SpanCache,
} from '../lexers/text/values.js';
import { queryCsvParser } from '../lexers/text/query-csv-parser.js';
import type { Warn } from '../lexers/text/warnings.js';

/**
 * The slots of GpuRow.numbers: the readings of every row, which the row loop reads inline
 * (see InlineNumbers). One slot per power field: the sample takes the preferred one present.
 */
const TIME = 0;
const MEMORY_TOTAL = 1;
const MEMORY_USED = 2;
const UTILIZATION = 3;
const MEMORY_UTILIZATION = 4;
/** power.draw, power.draw.average, power.draw.instant, in order of preference (see INLINE_COLUMNS). */
const POWER = 5;
const POWER_AVERAGE = 6;
const POWER_INSTANT = 7;
const NUMBER_SLOTS = 8;

/** What a slot holds where the row has no value. */
const NONE = Number.NaN;

function reading(value: number): number | undefined {
  return Number.isNaN(value) ? undefined : value;
}

/**
 * The slots of GpuRow.facts: what names a GPU and its inventory, read from text cells and
 * written by no two columns of a header alike, so that side by side they form a RepeatedRun.
 */
const MODEL = 0;
const UUID = 1;
const BUS_ID = 2;
const INDEX = 3;
const DRIVER = 4;
const MIG_MODE = 5;
const DEVICE_ID = 6;
const LINK_GENERATION = 7;
const LINK_WIDTH = 8;
const FACT_SLOTS = 9;

type Fact = string | number | undefined;

/**
 * One data row being read; reused for every row of a table. Its values live in two arrays
 * of slots (the row loop and RepeatedRun write them by slot number); the getters name them
 * for the sample and the inventory (InventoryFacts).
 */
class GpuRow {
  /** The readings, by the slots above; NaN: none in this row. */
  readonly numbers = new Float64Array(NUMBER_SLOTS).fill(NONE);
  readonly facts = new Array<Fact>(FACT_SLOTS).fill(undefined);

  constructor(readonly timestamps: LocalTimestampReader) {}

  get model(): string | undefined {
    return this.facts[MODEL] as string | undefined;
  }

  get uuid(): string | undefined {
    return this.facts[UUID] as string | undefined;
  }

  get pciBusId(): string | undefined {
    return this.facts[BUS_ID] as string | undefined;
  }

  get index(): number | undefined {
    return this.facts[INDEX] as number | undefined;
  }

  get driverVersion(): string | undefined {
    return this.facts[DRIVER] as string | undefined;
  }

  get migMode(): MigMode | undefined {
    return this.facts[MIG_MODE] as MigMode | undefined;
  }

  get pciDeviceId(): string | undefined {
    return this.facts[DEVICE_ID] as string | undefined;
  }

  get pcieLinkMaxGeneration(): number | undefined {
    return this.facts[LINK_GENERATION] as number | undefined;
  }

  get pcieLinkMaxWidth(): number | undefined {
    return this.facts[LINK_WIDTH] as number | undefined;
  }

  /** An inventory fact as well as a reading. */
  get memoryTotalMiB(): number | undefined {
    return reading(this.numbers[MEMORY_TOTAL]!);
  }

  /** Loops, not fill(): for a few slots per row the builtin call costs more than the stores. */
  reset(): void {
    const { numbers, facts } = this;
    for (let slot = 0; slot < NUMBER_SLOTS; slot += 1) numbers[slot] = NONE;
    for (let slot = 0; slot < FACT_SLOTS; slot += 1) facts[slot] = undefined;
  }
}

/*
 * The cell readers, each made for the slot it writes (see INLINE_COLUMNS and FACT_COLUMNS
 * below) and reading the cell in place (see SpanReader): numbers and timestamps from the
 * characters (the row loop reads their plain shapes itself and leaves the rest to these),
 * names, UUIDs and bus ids compared with the few a log repeats. The PCIe link columns
 * (`.max`: the fastest link the GPU and its slot support, as the XML's max_link_gen /
 * max_link_width; the `.current` ones drop while the GPU idles) are counts.
 */

function timestampSpan(slot: number): SpanReader<GpuRow> {
  return (row, text, start, end) => {
    if (isMissingSpan(text, start, end)) return true;
    const time = row.timestamps.readSpan(text, start, end);
    if (time === undefined) return false;
    row.numbers[slot] = time;
    return true;
  };
}

function quantitySpan(slot: number): SpanReader<GpuRow> {
  return (row, text, start, end, unit) => {
    const value = parseQuantitySpan(text, start, end, unit);
    if (value === undefined) return true;
    if (Number.isNaN(value)) return false;
    row.numbers[slot] = value;
    return true;
  };
}

/** quantitySpan where a slot written by two columns keeps the first readable value. */
function firstQuantitySpan(slot: number): SpanReader<GpuRow> {
  return (row, text, start, end, unit) => {
    const value = parseQuantitySpan(text, start, end, unit);
    if (value === undefined) return true;
    if (Number.isNaN(value)) return false;
    if (Number.isNaN(row.numbers[slot])) row.numbers[slot] = value;
    return true;
  };
}

function textSpan(slot: number): SpanReader<GpuRow> {
  const seen = new SpanCache<string>((cell) => cell);
  return (row, text, start, end) => {
    if (!isMissingSpan(text, start, end)) row.facts[slot] = seen.get(text, start, end);
    return true;
  };
}

function countSpan(slot: number): SpanReader<GpuRow> {
  return (row, text, start, end) => {
    if (isMissingSpan(text, start, end)) return true;
    const value = parseCountSpan(text, start, end);
    if (Number.isNaN(value)) return false;
    row.facts[slot] = value;
    return true;
  };
}

function busIdSpan(slot: number): SpanReader<GpuRow> {
  const seen = new SpanCache(normalisePciBusId);
  return (row, text, start, end) => {
    if (isMissingSpan(text, start, end)) return true;
    const busId = seen.get(text, start, end);
    row.facts[slot] = busId;
    return busId !== undefined;
  };
}

/** A Map, not an object: a cell reading `constructor` must not find Object's. */
const MIG_MODES: ReadonlyMap<string, MigMode> = new Map([
  ['Enabled', 'enabled'],
  ['Disabled', 'disabled'],
]);

/** The two rare fact columns: a string cut out per cell (no cache), as plain readers of the cell text. */
function migModeSpan(slot: number): SpanReader<GpuRow> {
  return (row, text, start, end) => {
    if (isMissingSpan(text, start, end)) return true;
    const mode = MIG_MODES.get(text.slice(start, end));
    row.facts[slot] = mode;
    return mode !== undefined;
  };
}

function pciDeviceIdSpan(slot: number): SpanReader<GpuRow> {
  return (row, text, start, end) => {
    if (isMissingSpan(text, start, end)) return true;
    const id = normalisePciDeviceId(text.slice(start, end));
    row.facts[slot] = id;
    return id !== undefined;
  };
}

/**
 * The numeric columns: their slot of GpuRow.numbers and how they read. The row loop reads
 * their plain cells itself (InlineNumbers); the span readers made from this table by kind
 * (NUMBER_READERS) read the rest and stay the reference. Since driver 530 `power.draw` is the
 * one-second average and `.instant` a single reading; older drivers and some boards fill only
 * one of them: the sample prefers the plain field, then the average, then the instant reading
 * (see emit); a field given twice counts where first readable.
 */
const INLINE_COLUMNS: InlineNumbers<GpuRow>['columns'] = {
  timestamp: { slot: TIME, kind: 'local-time' },
  'memory.total': { slot: MEMORY_TOTAL, kind: 'quantity' },
  'memory.used': { slot: MEMORY_USED, kind: 'quantity' },
  'utilization.gpu': { slot: UTILIZATION, kind: 'quantity' },
  'utilization.memory': { slot: MEMORY_UTILIZATION, kind: 'quantity' },
  'power.draw': { slot: POWER, kind: 'first-quantity' },
  'power.draw.average': { slot: POWER_AVERAGE, kind: 'first-quantity' },
  'power.draw.instant': { slot: POWER_INSTANT, kind: 'first-quantity' },
};

const NUMBER_READERS: Readonly<Record<InlineNumberKind, (slot: number) => SpanReader<GpuRow>>> = {
  'local-time': timestampSpan,
  quantity: quantitySpan,
  'first-quantity': firstQuantitySpan,
};

/**
 * The fact columns (what names a GPU and its inventory; `--help-query-gpu` names the aliases):
 * their slot of GpuRow.facts and the reader made for it. Each reader writes its slot from the
 * cell text alone, so these are also the schema's runnable columns (RepeatedRun).
 */
const FACT_COLUMNS: Readonly<Record<string, { slot: number; reader: (slot: number) => SpanReader<GpuRow> }>> = {
  name: { slot: MODEL, reader: textSpan },
  gpu_name: { slot: MODEL, reader: textSpan },
  uuid: { slot: UUID, reader: textSpan },
  gpu_uuid: { slot: UUID, reader: textSpan },
  'pci.bus_id': { slot: BUS_ID, reader: busIdSpan },
  gpu_bus_id: { slot: BUS_ID, reader: busIdSpan },
  index: { slot: INDEX, reader: countSpan },
  driver_version: { slot: DRIVER, reader: textSpan },
  'mig.mode.current': { slot: MIG_MODE, reader: migModeSpan },
  'pci.device_id': { slot: DEVICE_ID, reader: pciDeviceIdSpan },
  'pcie.link.gen.max': { slot: LINK_GENERATION, reader: countSpan },
  'pcie.link.width.max': { slot: LINK_WIDTH, reader: countSpan },
};

const RUNNABLE_COLUMNS: RunnableColumns = Object.fromEntries(Object.entries(FACT_COLUMNS).map(([field, { slot }]) => [field, slot]));

/** Made once per table reader: the text readers keep caches of what the table repeats. */
function gpuSpanReaders(): Readonly<Record<string, SpanReader<GpuRow>>> {
  const readers: Record<string, SpanReader<GpuRow>> = {};
  for (const [field, { slot, kind }] of Object.entries(INLINE_COLUMNS)) readers[field] = NUMBER_READERS[kind](slot);
  for (const [field, { slot, reader }] of Object.entries(FACT_COLUMNS)) readers[field] = reader(slot);
  return readers;
}

/** Columns that carry a reading (the rest are inventory): a header without one gives devices only. */
const SAMPLE_FIELDS = new Set(['memory.used', 'utilization.gpu', 'utilization.memory', 'power.draw', 'power.draw.average', 'power.draw.instant']);
const IDENTITY_FIELDS = new Set(['uuid', 'gpu_uuid', 'pci.bus_id', 'gpu_bus_id', 'index']);

/**
 * Fields that appear only in the other `--query-*` tables (compute-apps, accounted-apps,
 * retired-pages, supported-clocks). Those tables also carry `gpu_name`/`gpu_uuid`, so a
 * header with any of these is not a `--query-gpu` table.
 */
const OTHER_QUERY_FIELDS = ['pid', 'retired_pages.address', 'retired_pages.timestamp', 'retired_pages.cause', 'memory', 'graphics'];

/**
 * Fields that mark a header as nvidia-smi's: `name`, `index` or `timestamp` alone could
 * head any CSV, so they do not count towards detection.
 */
const DISTINCTIVE_FIELDS = [...Object.keys(INLINE_COLUMNS), ...Object.keys(FACT_COLUMNS)].filter((field) => !['name', 'index', 'timestamp'].includes(field));

/** A `--query-gpu` header: at least one distinctive field we read, none of another table's. */
function isGpuQueryHeader(columns: readonly QueryColumn[]): boolean {
  const fields = columns.map((column) => column.field);
  return fields.some((field) => DISTINCTIVE_FIELDS.includes(field)) && !fields.some((field) => OTHER_QUERY_FIELDS.includes(field));
}

const GPU_SCHEMA: QuerySchema<GpuRow> = {
  query: '--query-gpu',
  readers: {},
  spanReaders: gpuSpanReaders,
  runnable: { columns: RUNNABLE_COLUMNS, values: (row) => row.facts },
  exampleHeader: 'timestamp, name, uuid, index, memory.total [MiB], memory.used [MiB], utilization.gpu [%], power.draw [W]',
  inline: { columns: INLINE_COLUMNS, values: (row) => row.numbers, timestamps: (row) => row.timestamps },
  rowFields: new Set(['timestamp']),
  accepts: isGpuQueryHeader,
};

/**
 * A reader for one `--query-gpu` table, feeding `sink`. Exported for the capture parser,
 * which reads the same tables out of its sections.
 */
export function createGpuQueryReader(context: SourceContext, sink: ObservationSink, warn: Warn): QueryCsvReader<GpuRow> {
  const refs = new DeviceRefs(context.host);
  const inventory = new DeviceInventory(sink);
  let emitsSamples = false;
  return new QueryCsvReader(context.ref, GPU_SCHEMA, new GpuRow(new LocalTimestampReader(context.timeZone)), {
    reset: (row) => row.reset(),
    header: (columns, lineNumber) => {
      const fields = columns.map((column) => column.field);
      emitsSamples = fields.some((field) => SAMPLE_FIELDS.has(field));
      if (emitsSamples && !fields.some((field) => IDENTITY_FIELDS.has(field))) {
        warn(`line ${lineNumber}`, `no uuid, pci.bus_id or index column: every row is read as the same GPU of host ${context.host}`);
      }
    },
    emit: (row, lineNumber) => {
      const ref = refs.get(row.uuid, row.pciBusId, row.index);
      inventory.report(ref, row);
      if (!emitsSamples) return;
      const { numbers } = row;
      const time = numbers[TIME]!;
      const utilizationPct = numbers[UTILIZATION]!;
      const memoryUtilizationPct = numbers[MEMORY_UTILIZATION]!;
      const memoryUsedMiB = numbers[MEMORY_USED]!;
      const memoryTotalMiB = numbers[MEMORY_TOTAL]!;
      const powerW = reading(numbers[POWER]!) ?? reading(numbers[POWER_AVERAGE]!) ?? reading(numbers[POWER_INSTANT]!);
      const complete = !Number.isNaN(time) && !Number.isNaN(utilizationPct) && !Number.isNaN(memoryUtilizationPct)
        && !Number.isNaN(memoryUsedMiB) && !Number.isNaN(memoryTotalMiB) && powerW !== undefined;
      if (complete) {
        // Every reading present, as on most rows of a full log: the object built below, as one
        // literal (one allocation instead of a shape change per property added).
        const sample = { ref, time, utilizationPct, memoryUtilizationPct, memoryUsedMiB, memoryTotalMiB, powerW };
        if (!allInDomain(sample)) clearOutOfDomain(sample, (message) => warn(`line ${lineNumber}`, message));
        sink.sample(sample);
        return;
      }
      const sample: GpuSample = { ref };
      if (!Number.isNaN(time)) sample.time = time;
      if (!Number.isNaN(utilizationPct)) sample.utilizationPct = utilizationPct;
      if (!Number.isNaN(memoryUtilizationPct)) sample.memoryUtilizationPct = memoryUtilizationPct;
      if (!Number.isNaN(memoryUsedMiB)) sample.memoryUsedMiB = memoryUsedMiB;
      if (!Number.isNaN(memoryTotalMiB)) sample.memoryTotalMiB = memoryTotalMiB;
      if (powerW !== undefined) sample.powerW = powerW;
      if (!allInDomain(sample)) clearOutOfDomain(sample, (message) => warn(`line ${lineNumber}`, message));
      sink.sample(sample);
    },
  }, warn);
}

export const nvidiaSmiCsv: SourceParser = queryCsvParser({
  format: 'nvidia-smi-csv',
  description: 'nvidia-smi --query-gpu CSV (--format=csv, with or without nounits and -l)',
  schema: GPU_SCHEMA,
  createReader: createGpuQueryReader,
});

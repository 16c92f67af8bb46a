/**
 * `nvidia-smi --query-gpu=... --format=csv[,nounits] [-l N]`: one row per GPU per
 * sample, GPUs interleaved, header once (or again where logs were concatenated).
 *
 *   timestamp, name, uuid, pci.bus_id, index, memory.total [MiB], memory.used [MiB], utilization.gpu [%]
 *   2026/07/14 09:00:44.579, NVIDIA H100 80GB HBM3, GPU-..., 00000000:00:09.0, 0, 81559 MiB, 11125 MiB, [N/A]
 */
import type { GpuSample, MigMode, ObservationSink } from '../model/observations.js';
import type { SourceContext, SourceParser } from './types.js';
import { DeviceInventory, DeviceRefs } from './text/devices.js';
import { LocalTimestampReader } from './text/local-time.js';
import { QueryCsvReader } from './text/query-csv.js';
import type { CellReader, QueryColumn, QuerySchema, SpanReader } from './text/query-csv.js';
import {
  isMissingCell,
  isMissingSpan,
  normalisePciBusId,
  normalisePciDeviceId,
  parseCountSpan,
  parseQuantitySpan,
  SpanCache,
} from './text/values.js';
import { queryCsvParser } from './text/query-csv-parser.js';
import type { Warn } from './text/warnings.js';

/** One data row being read; reused for every row of a table. */
class GpuRow {
  time: number | undefined;
  model: string | undefined;
  uuid: string | undefined;
  pciBusId: string | undefined;
  index: number | undefined;
  memoryTotalMiB: number | undefined;
  memoryUsedMiB: number | undefined;
  utilizationPct: number | undefined;
  memoryUtilizationPct: number | undefined;
  powerW: number | undefined;
  /** Which power field `powerW` came from; a better one replaces it (see POWER_PREFERENCE). */
  powerRank = 0;
  migMode: MigMode | undefined;
  driverVersion: string | undefined;
  pciDeviceId: string | undefined;
  pcieLinkMaxGeneration: number | undefined;
  pcieLinkMaxWidth: number | undefined;

  constructor(readonly timestamps: LocalTimestampReader) {}

  reset(): void {
    this.time = undefined;
    this.model = undefined;
    this.uuid = undefined;
    this.pciBusId = undefined;
    this.index = undefined;
    this.memoryTotalMiB = undefined;
    this.memoryUsedMiB = undefined;
    this.utilizationPct = undefined;
    this.memoryUtilizationPct = undefined;
    this.powerW = undefined;
    this.powerRank = 0;
    this.migMode = undefined;
    this.driverVersion = undefined;
    this.pciDeviceId = undefined;
    this.pcieLinkMaxGeneration = undefined;
    this.pcieLinkMaxWidth = undefined;
  }
}

type NumericField = 'memoryTotalMiB' | 'memoryUsedMiB' | 'utilizationPct' | 'memoryUtilizationPct';

/**
 * Since driver 530 `power.draw` is the one-second average and `.instant` a single
 * reading; older drivers and some boards fill only one of them. Prefer the plain field,
 * then the average, then the instant reading.
 */
const POWER_PREFERENCE = { 'power.draw': 3, 'power.draw.average': 2, 'power.draw.instant': 1 } as const;

type LinkField = 'pcieLinkMaxGeneration' | 'pcieLinkMaxWidth';

const MIG_MODES: Readonly<Record<string, MigMode>> = { Enabled: 'enabled', Disabled: 'disabled' };

/**
 * What gpu-audit reads from `--query-gpu` (`--help-query-gpu` names the aliases): the two rare
 * columns here, as plain readers of the cell text; the columns every row of a long log has in
 * gpuSpanReaders below.
 */
const GPU_READERS: Readonly<Record<string, CellReader<GpuRow>>> = {
  'mig.mode.current': (row, cell) => {
    if (isMissingCell(cell)) return true;
    row.migMode = MIG_MODES[cell];
    return row.migMode !== undefined;
  },
  'pci.device_id': (row, cell) => {
    if (isMissingCell(cell)) return true;
    row.pciDeviceId = normalisePciDeviceId(cell);
    return row.pciDeviceId !== undefined;
  },
};

/*
 * The columns every row of a long log has, read in place (see SpanReader): numbers and
 * timestamps from the characters, names, UUIDs and bus ids compared with the few a log
 * repeats. The PCIe link columns (`.max`: the fastest link the GPU and its slot support, as
 * the XML's max_link_gen / max_link_width; the `.current` ones drop while the GPU idles) are
 * here too, being numbers.
 */

function quantitySpan(field: NumericField): SpanReader<GpuRow> {
  return (row, text, start, end, unit) => {
    const value = parseQuantitySpan(text, start, end, unit);
    if (value === undefined) return true;
    if (Number.isNaN(value)) return false;
    row[field] = value;
    return true;
  };
}

function powerSpan(rank: number): SpanReader<GpuRow> {
  return (row, text, start, end, unit) => {
    const value = parseQuantitySpan(text, start, end, unit);
    if (value === undefined) return true;
    if (Number.isNaN(value)) return false;
    if (rank > row.powerRank) {
      row.powerW = value;
      row.powerRank = rank;
    }
    return true;
  };
}

function textSpan(field: 'model' | 'uuid' | 'driverVersion'): SpanReader<GpuRow> {
  const seen = new SpanCache<string>((cell) => cell);
  return (row, text, start, end) => {
    if (!isMissingSpan(text, start, end)) row[field] = seen.get(text, start, end);
    return true;
  };
}

function countSpan(field: LinkField): SpanReader<GpuRow> {
  return (row, text, start, end) => {
    if (isMissingSpan(text, start, end)) return true;
    const value = parseCountSpan(text, start, end);
    if (Number.isNaN(value)) return false;
    row[field] = value;
    return true;
  };
}

function busIdSpan(): SpanReader<GpuRow> {
  const seen = new SpanCache(normalisePciBusId);
  return (row, text, start, end) => {
    if (isMissingSpan(text, start, end)) return true;
    row.pciBusId = seen.get(text, start, end);
    return row.pciBusId !== undefined;
  };
}

function gpuSpanReaders(): Readonly<Record<string, SpanReader<GpuRow>>> {
  return {
    timestamp: (row, text, start, end) => {
      if (isMissingSpan(text, start, end)) return true;
      row.time = row.timestamps.readSpan(text, start, end);
      return row.time !== undefined;
    },
    name: textSpan('model'),
    gpu_name: textSpan('model'),
    uuid: textSpan('uuid'),
    gpu_uuid: textSpan('uuid'),
    'pci.bus_id': busIdSpan(),
    gpu_bus_id: busIdSpan(),
    index: (row, text, start, end) => {
      if (isMissingSpan(text, start, end)) return true;
      const index = parseCountSpan(text, start, end);
      if (Number.isNaN(index)) return false;
      row.index = index;
      return true;
    },
    'memory.total': quantitySpan('memoryTotalMiB'),
    'memory.used': quantitySpan('memoryUsedMiB'),
    'utilization.gpu': quantitySpan('utilizationPct'),
    'utilization.memory': quantitySpan('memoryUtilizationPct'),
    'power.draw': powerSpan(POWER_PREFERENCE['power.draw']),
    'power.draw.average': powerSpan(POWER_PREFERENCE['power.draw.average']),
    'power.draw.instant': powerSpan(POWER_PREFERENCE['power.draw.instant']),
    driver_version: textSpan('driverVersion'),
    'pcie.link.gen.max': countSpan('pcieLinkMaxGeneration'),
    'pcie.link.width.max': countSpan('pcieLinkMaxWidth'),
  };
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
const DISTINCTIVE_FIELDS = [...Object.keys(GPU_READERS), ...Object.keys(gpuSpanReaders())].filter((field) => !['name', 'index', 'timestamp'].includes(field));

/** A `--query-gpu` header: at least one distinctive field we read, none of another table's. */
function isGpuQueryHeader(columns: readonly QueryColumn[]): boolean {
  const fields = columns.map((column) => column.field);
  return fields.some((field) => DISTINCTIVE_FIELDS.includes(field)) && !fields.some((field) => OTHER_QUERY_FIELDS.includes(field));
}

const GPU_SCHEMA: QuerySchema<GpuRow> = {
  query: '--query-gpu',
  readers: GPU_READERS,
  spanReaders: gpuSpanReaders,
  runnable: {
    name: 'model',
    gpu_name: 'model',
    uuid: 'uuid',
    gpu_uuid: 'uuid',
    'pci.bus_id': 'pciBusId',
    gpu_bus_id: 'pciBusId',
    index: 'index',
    driver_version: 'driverVersion',
    'mig.mode.current': 'migMode',
    'pci.device_id': 'pciDeviceId',
    'pcie.link.gen.max': 'pcieLinkMaxGeneration',
    'pcie.link.width.max': 'pcieLinkMaxWidth',
  },
  exampleHeader: 'timestamp, name, uuid, index, memory.total [MiB], memory.used [MiB], utilization.gpu [%], power.draw [W]',
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
    emit: (row) => {
      const ref = refs.get(row.uuid, row.pciBusId, row.index);
      inventory.report(ref, row);
      if (!emitsSamples) return;
      const sample: GpuSample = { ref };
      if (row.time !== undefined) sample.time = row.time;
      if (row.utilizationPct !== undefined) sample.utilizationPct = row.utilizationPct;
      if (row.memoryUtilizationPct !== undefined) sample.memoryUtilizationPct = row.memoryUtilizationPct;
      if (row.memoryUsedMiB !== undefined) sample.memoryUsedMiB = row.memoryUsedMiB;
      if (row.memoryTotalMiB !== undefined) sample.memoryTotalMiB = row.memoryTotalMiB;
      if (row.powerW !== undefined) sample.powerW = row.powerW;
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

/**
 * `nvidia-smi --query-compute-apps=... --format=csv`: one row per compute process per GPU.
 *
 *   timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, used_gpu_memory [MiB]
 *   2026/07/14 09:00:44.742, NVIDIA H100 80GB HBM3, 00000000:00:09.0, ..., GPU-..., 21180, /root/tools/memhog, 2296 MiB
 *
 * Windows under WDDM prints `[N/A]` for the memory (the OS, not the driver, manages it).
 * An idle GPU gives the header alone, which is a valid input with no processes.
 */
import type { ObservationSink, ProcessSample } from '../../model/index.js';
import type { SourceContext, SourceParser } from '../types.js';
import { DeviceInventory, DeviceRefs } from '../lexers/text/devices.js';
import { LocalTimestampReader } from '../lexers/text/local-time.js';
import { QueryCsvReader } from '../lexers/text/query-csv.js';
import type { CellReader, QueryColumn, QuerySchema } from '../lexers/text/query-csv.js';
import { isMissingCell, normalisePciBusId, parseCount, parseQuantity } from '../lexers/text/values.js';
import { queryCsvParser } from '../lexers/text/query-csv-parser.js';
import type { Warn } from '../lexers/text/warnings.js';

class ProcessRow {
  time: number | undefined;
  model: string | undefined;
  uuid: string | undefined;
  pciBusId: string | undefined;
  pid: number | undefined;
  name: string | undefined;
  usedMemoryMiB: number | undefined;

  constructor(readonly timestamps: LocalTimestampReader) {}

  reset(): void {
    this.time = undefined;
    this.model = undefined;
    this.uuid = undefined;
    this.pciBusId = undefined;
    this.pid = undefined;
    this.name = undefined;
    this.usedMemoryMiB = undefined;
  }
}

function text(field: 'model' | 'uuid' | 'name'): CellReader<ProcessRow> {
  return (row, cell) => {
    if (!isMissingCell(cell)) row[field] = cell;
    return true;
  };
}

const readUsedMemory: CellReader<ProcessRow> = (row, cell, unit) => {
  const value = parseQuantity(cell, unit);
  if (value === undefined) return true;
  if (Number.isNaN(value)) return false;
  row.usedMemoryMiB = value;
  return true;
};

/** Fields of `--help-query-compute-apps`, aliases included (`name` is the process here, not the GPU). */
const PROCESS_READERS: Readonly<Record<string, CellReader<ProcessRow>>> = {
  timestamp: (row, cell) => {
    if (isMissingCell(cell)) return true;
    row.time = row.timestamps.read(cell);
    return row.time !== undefined;
  },
  gpu_name: text('model'),
  gpu_uuid: text('uuid'),
  gpu_bus_id: (row, cell) => {
    if (isMissingCell(cell)) return true;
    row.pciBusId = normalisePciBusId(cell);
    return row.pciBusId !== undefined;
  },
  pid: (row, cell) => {
    if (isMissingCell(cell)) return true;
    row.pid = parseCount(cell);
    return !Number.isNaN(row.pid);
  },
  process_name: text('name'),
  name: text('name'),
  used_gpu_memory: readUsedMemory,
  used_memory: readUsedMemory,
};

/**
 * `pid` plus a field only this table has. `--query-accounted-apps` also has `pid` (with
 * `gpu_utilization`, `max_memory_usage`) and is not this table.
 */
function isComputeAppsHeader(columns: readonly QueryColumn[]): boolean {
  const fields = new Set(columns.map((column) => column.field));
  return fields.has('pid') && ['used_gpu_memory', 'used_memory', 'process_name'].some((field) => fields.has(field));
}

const PROCESS_SCHEMA: QuerySchema<ProcessRow> = {
  query: '--query-compute-apps',
  readers: PROCESS_READERS,
  exampleHeader: 'timestamp, gpu_uuid, gpu_bus_id, pid, process_name, used_gpu_memory [MiB]',
  rowFields: new Set(['timestamp', 'pid']),
  accepts: isComputeAppsHeader,
};

/** A reader for one `--query-compute-apps` table; exported for the capture parser. */
export function createComputeAppsReader(context: SourceContext, sink: ObservationSink, warn: Warn): QueryCsvReader<ProcessRow> {
  const refs = new DeviceRefs(context.host);
  const inventory = new DeviceInventory(sink);
  return new QueryCsvReader(context.ref, PROCESS_SCHEMA, new ProcessRow(new LocalTimestampReader(context.timeZone)), {
    reset: (row) => row.reset(),
    emit: (row, lineNumber) => {
      if (row.pid === undefined) {
        warn(`line ${lineNumber}`, 'no pid in this row; row skipped');
        return false;
      }
      const ref = refs.get(row.uuid, row.pciBusId, undefined);
      inventory.report(ref, { model: row.model });
      // A process whose name nvidia-smi could not read (`[N/A]`, `[Insufficient Permissions]`) keeps its pid.
      const process: ProcessSample = { ref, pid: row.pid, name: row.name ?? '' };
      if (row.time !== undefined) process.time = row.time;
      if (row.usedMemoryMiB !== undefined) process.usedMemoryMiB = row.usedMemoryMiB;
      sink.process(process);
      return true;
    },
  }, warn);
}

export const nvidiaSmiComputeApps: SourceParser = queryCsvParser({
  format: 'nvidia-smi-compute-apps',
  description: 'nvidia-smi --query-compute-apps CSV (--format=csv)',
  schema: PROCESS_SCHEMA,
  createReader: createComputeAppsReader,
});

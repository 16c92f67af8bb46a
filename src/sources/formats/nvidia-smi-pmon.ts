/**
 * `nvidia-smi pmon [-s um] [-o DT]`: one row per process per GPU per interval.
 *
 *   # gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command
 *   # Idx           #    C/G      %      %      %      %      %      %    name
 *       0       5267     C      7      3     99      -      -      -    ffmpeg
 *       0          -     -      -      -      -      -      -      -    -
 *
 * A GPU without processes gets a row of dashes. `command` is cut to about 15 characters
 * and may contain spaces (`NVIDIA Overlay.`). pmon's `mem` is memory-bandwidth
 * utilization, not memory held; the memory held is `fb` (with `-s m`).
 */
import type { ProcessSample, ProcessType } from '../../model/index.js';
import type { SourceParser } from '../types.js';
import { DeviceInventory, DeviceRefs } from '../lexers/text/devices.js';
import { leadingLines } from '../lexers/text/lines.js';
import { applyMetrics, checkRow, metricColumns, monitorHeaderOf, parseMonitorHeader, readMonitorLines } from '../lexers/text/monitor-table.js';
import type { MonitorMetric } from '../lexers/text/monitor-table.js';
import { isMonitorDash, parseCount } from '../lexers/text/values.js';
import { parseTable, tableBlocks, type ReadTable } from '../lexers/text/line-table.js';

/** As in dmon, "MB" is nvidia-smi's label for MiB. */
const PMON_METRICS: Readonly<Record<string, MonitorMetric<ProcessSample>>> = {
  sm: { unit: '%', set: (process, value) => { process.smPct = value; } },
  fb: { unit: 'MB', set: (process, value) => { process.usedMemoryMiB = value; } },
};

/** pmon also prints `M` and `M+C` for MPS clients; the model has no type for those, so they stay unset. */
const PROCESS_TYPES: Readonly<Record<string, ProcessType>> = { C: 'C', G: 'G', 'C+G': 'C+G' };

/** Reads a pmon table (see ReadTable: a block is handed the header lines in effect before it). */
const readTable: ReadTable = async (chunks, context, sink, warnings, header) => {
  const refs = new DeviceRefs(context.host);
  const inventory = new DeviceInventory(sink);
  let metrics: (MonitorMetric<ProcessSample> | undefined)[] = [];
  // Positions in the current layout; `pid` always follows `gpu` (parseMonitorHeader checks).
  let pidColumn = -1;
  let typeColumn = -1;
  let commandColumn = -1;
  let records = 0;
  const read = await readMonitorLines('pmon', chunks, context.ref, warnings, header, {
    layout: (layout, warn) => {
      metrics = metricColumns(layout, PMON_METRICS, warn);
      pidColumn = layout.names.indexOf('pid');
      typeColumn = layout.names.indexOf('type');
      commandColumn = layout.names.indexOf('command');
    },
    row: (table, lineNumber, warn) => {
      const key = checkRow(table, lineNumber, context.timeZone, warn);
      if (key === undefined) return;
      const { fields } = table;
      const pidText = fields[pidColumn]!;
      const ref = refs.get(undefined, undefined, key.index);
      if (isMonitorDash(pidText)) {
        // An idle GPU: seen, with no process on it.
        records += 1;
        inventory.report(ref);
        return;
      }
      const pid = parseCount(pidText);
      if (Number.isNaN(pid)) {
        warn(`line ${lineNumber}`, `pid: cannot read "${pidText}"; row skipped`);
        return;
      }
      const command = commandColumn < 0 ? '-' : fields[commandColumn]!;
      const process: ProcessSample = { ref, pid, name: isMonitorDash(command) ? '' : command };
      if (key.time !== undefined) process.time = key.time;
      const type = typeColumn < 0 ? undefined : PROCESS_TYPES[fields[typeColumn]!];
      if (type !== undefined) process.type = type;
      applyMetrics(table, metrics, process, lineNumber, warn);
      records += 1;
      inventory.report(ref);
      sink.process(process);
    },
  });
  return { records, ...read };
};

export const nvidiaSmiPmon: SourceParser = {
  format: 'nvidia-smi-pmon',
  description: 'nvidia-smi pmon text (any -s selection, optional -o DT)',
  detect(head) {
    const [first] = leadingLines(head, 1);
    return first !== undefined && parseMonitorHeader(first, 'pmon') !== undefined;
  },
  parse: parseTable(readTable),
  // A long log in blocks of lines: a block needs the header lines in effect before it.
  blocks: tableBlocks(readTable, (head) => monitorHeaderOf(head, 'pmon')),
};

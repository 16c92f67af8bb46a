/**
 * `nvidia-smi dmon [-s ...] [-o DT]`: one row per GPU per interval.
 *
 *   # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
 *   # Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
 *       0    630     53     41    100      8      0      0      0      0   3201   1980
 *
 * Without `-o DT` the rows carry no time, so their samples are point values.
 */
import { allInDomain, clearOutOfDomain, type GpuSample } from '../../model/index.js';
import type { SourceParser } from '../types.js';
import { DeviceInventory, DeviceRefs } from '../lexers/text/devices.js';
import { leadingLines } from '../lexers/text/lines.js';
import { applyMetrics, checkRow, metricColumns, monitorHeaderOf, parseMonitorHeader, readMonitorLines } from '../lexers/text/monitor-table.js';
import type { MonitorMetric } from '../lexers/text/monitor-table.js';
import { parseTable, tableBlocks, type ReadTable } from '../lexers/text/line-table.js';

/**
 * The dmon columns gpu-audit reads. `sm` is the same NVML utilization as `utilization.gpu`
 * (share of time a kernel ran), not SM occupancy. nvidia-smi labels binary units in dmon
 * with decimal names: `fb` "MB" is the MiB figure `memory.used [MiB]` shows, and the PCIe
 * "MB/s" are MiB/s of NVML's KiB/s counter, hence x1024.
 */
const DMON_METRICS: Readonly<Record<string, MonitorMetric<GpuSample>>> = {
  sm: { unit: '%', set: (sample, value) => { sample.utilizationPct = value; } },
  mem: { unit: '%', set: (sample, value) => { sample.memoryUtilizationPct = value; } },
  pwr: { unit: 'W', set: (sample, value) => { sample.powerW = value; } },
  fb: { unit: 'MB', set: (sample, value) => { sample.memoryUsedMiB = value; } },
  rxpci: { unit: 'MB/s', set: (sample, value) => { sample.pcieRxKiBps = value * 1024; } },
  txpci: { unit: 'MB/s', set: (sample, value) => { sample.pcieTxKiBps = value * 1024; } },
};

/** Reads a dmon table (see ReadTable: a block is handed the header lines in effect before it). */
const readTable: ReadTable = async (chunks, context, sink, warnings, header) => {
  const refs = new DeviceRefs(context.host);
  const inventory = new DeviceInventory(sink);
  let metrics: (MonitorMetric<GpuSample> | undefined)[] = [];
  let records = 0;
  const read = await readMonitorLines('dmon', chunks, context.ref, warnings, header, {
    layout: (layout, warn) => {
      metrics = metricColumns(layout, DMON_METRICS, warn);
    },
    row: (table, lineNumber, warn) => {
      const key = checkRow(table, lineNumber, context.timeZone, warn);
      if (key === undefined) return;
      const ref = refs.get(undefined, undefined, key.index);
      const sample: GpuSample = { ref };
      if (key.time !== undefined) sample.time = key.time;
      applyMetrics(table, metrics, sample, lineNumber, warn);
      records += 1;
      inventory.report(ref);
      if (!allInDomain(sample)) clearOutOfDomain(sample, (message) => warn(`line ${lineNumber}`, message));
      sink.sample(sample);
    },
  });
  return { records, ...read };
};

export const nvidiaSmiDmon: SourceParser = {
  format: 'nvidia-smi-dmon',
  description: 'nvidia-smi dmon text (any -s selection, optional -o DT)',
  detect(head) {
    const [first] = leadingLines(head, 1);
    return first !== undefined && parseMonitorHeader(first, 'dmon') !== undefined;
  },
  parse: parseTable(readTable),
  // A long log in blocks of lines: a block needs the header lines in effect before it.
  blocks: tableBlocks(readTable, (head) => monitorHeaderOf(head, 'dmon')),
};

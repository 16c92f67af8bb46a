/**
 * The DCGM fields gpu-audit reads, as data. Every DCGM front end names the same numeric
 * field differently: dcgm-exporter and the Prometheus API use the C macro name
 * (`DCGM_FI_DEV_GPU_UTIL`), DCGM 4.6 renamed many macros and kept the old ones as
 * deprecated aliases (`DCGM_FI_DEV_GPU_UTIL_RATIO`, same id 203, same values), and
 * `dcgmi dmon` prints a short name (`GPUTL`). All three spellings lead to one entry,
 * keyed on the field id, so a reading means the same whichever tool produced it.
 *
 * Sources: dcgmlib/dcgm_fields.h and dcgmlib/src/dcgm_fields.cpp (DCGM 4.6.0) for ids,
 * names, value types and short names; `dcgmi dmon -l` of DCGM 3.1.8 (corpus) agrees on
 * the short names. See also shared/reference/dcgm-fields.md.
 */

/**
 * Where a field's value goes. Most are GpuSample fields; the framebuffer parts are kept
 * apart because the sample's memoryTotalMiB is derived from them (see readings.ts).
 */
export type ReadingKey =
  | 'utilizationPct'
  | 'memoryUtilizationPct'
  | 'memoryUsedMiB'
  | 'powerW'
  | 'grEngineActivePct'
  | 'smActivePct'
  | 'tensorActivePct'
  | 'pcieRxKiBps'
  | 'pcieTxKiBps'
  | 'framebufferTotalMiB'
  | 'framebufferFreeMiB'
  | 'framebufferReservedMiB';

/** DCGM's storage type for the field; it decides which "blank" sentinels apply (sentinels.ts). */
export type DcgmValueType = 'int64' | 'fp64';

export interface DcgmField {
  id: number;
  /** The name dcgm-exporter exports (the pre-4.6 macro name). */
  name: string;
  /** The DCGM 4.6 name, where 4.6 renamed the field. */
  newName?: string;
  /** `dcgmi dmon` column header. */
  shortName: string;
  valueType: DcgmValueType;
  reading: ReadingKey;
  /** Multiplier from DCGM's unit to the reading's unit. */
  scale: number;
}

/** Profiling fields are 0-1 ratios; GpuSample keeps percent. */
const RATIO_TO_PERCENT = 100;
/**
 * PROF_PCIE_*_BYTES: DCGM's header calls it a byte count, but both DCGM (dmon) and
 * dcgm-exporter (`# HELP ... in bytes per second`, exported as a gauge) report a rate in
 * B/s. GpuSample keeps KiB/s, the unit nvidia-smi prints.
 */
const BYTES_TO_KIB = 1 / 1024;

export const DCGM_FIELDS: readonly DcgmField[] = [
  // Share of time a kernel ran, 0-100 (nvidia-smi utilization.gpu). Despite the 4.6 name
  // "_RATIO" the field id and its 0-100 values did not change: only the macro was renamed.
  { id: 203, name: 'DCGM_FI_DEV_GPU_UTIL', newName: 'DCGM_FI_DEV_GPU_UTIL_RATIO', shortName: 'GPUTL', valueType: 'int64', reading: 'utilizationPct', scale: 1 },
  { id: 204, name: 'DCGM_FI_DEV_MEM_COPY_UTIL', shortName: 'MCUTL', valueType: 'int64', reading: 'memoryUtilizationPct', scale: 1 },
  { id: 250, name: 'DCGM_FI_DEV_FB_TOTAL', shortName: 'FBTTL', valueType: 'int64', reading: 'framebufferTotalMiB', scale: 1 },
  { id: 251, name: 'DCGM_FI_DEV_FB_FREE', shortName: 'FBFRE', valueType: 'int64', reading: 'framebufferFreeMiB', scale: 1 },
  { id: 252, name: 'DCGM_FI_DEV_FB_USED', shortName: 'FBUSD', valueType: 'int64', reading: 'memoryUsedMiB', scale: 1 },
  { id: 253, name: 'DCGM_FI_DEV_FB_RESERVED', shortName: 'FBRSV', valueType: 'int64', reading: 'framebufferReservedMiB', scale: 1 },
  { id: 155, name: 'DCGM_FI_DEV_POWER_USAGE', newName: 'DCGM_FI_DEV_BOARD_POWER_WATTS', shortName: 'POWER', valueType: 'fp64', reading: 'powerW', scale: 1 },
  { id: 1001, name: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE', newName: 'DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO', shortName: 'GRACT', valueType: 'fp64', reading: 'grEngineActivePct', scale: RATIO_TO_PERCENT },
  { id: 1002, name: 'DCGM_FI_PROF_SM_ACTIVE', newName: 'DCGM_FI_PROF_SM_UTIL_RATIO', shortName: 'SMACT', valueType: 'fp64', reading: 'smActivePct', scale: RATIO_TO_PERCENT },
  { id: 1004, name: 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', newName: 'DCGM_FI_PROF_TENSOR_UTIL_RATIO', shortName: 'TENSO', valueType: 'fp64', reading: 'tensorActivePct', scale: RATIO_TO_PERCENT },
  { id: 1009, name: 'DCGM_FI_PROF_PCIE_TX_BYTES', shortName: 'PCITX', valueType: 'int64', reading: 'pcieTxKiBps', scale: BYTES_TO_KIB },
  { id: 1010, name: 'DCGM_FI_PROF_PCIE_RX_BYTES', shortName: 'PCIRX', valueType: 'int64', reading: 'pcieRxKiBps', scale: BYTES_TO_KIB },
  // The pre-profiling PCIe fields (deprecated, off by default in dcgm-exporter): NVML's PCIe
  // throughput in KB/s, the counter nvidia-smi prints as rx_util/tx_util, so no scaling. A
  // scrape that has both kinds fills the reading from the one printed last (both are rates of
  // the same traffic).
  { id: 200, name: 'DCGM_FI_DEV_PCIE_TX_THROUGHPUT', shortName: 'TXTPT', valueType: 'int64', reading: 'pcieTxKiBps', scale: 1 },
  { id: 201, name: 'DCGM_FI_DEV_PCIE_RX_THROUGHPUT', shortName: 'RXTPT', valueType: 'int64', reading: 'pcieRxKiBps', scale: 1 },
];

/** Every metric name of DCGM fields starts with this (dcgm-exporter, Prometheus). */
export const DCGM_METRIC_PREFIX = 'DCGM_FI_';

function indexBy(key: (field: DcgmField) => (string | undefined)[]): ReadonlyMap<string, DcgmField> {
  const map = new Map<string, DcgmField>();
  for (const field of DCGM_FIELDS) {
    for (const name of key(field)) if (name !== undefined) map.set(name, field);
  }
  return map;
}

const BY_METRIC_NAME = indexBy((field) => [field.name, field.newName]);
const BY_SHORT_NAME = indexBy((field) => [field.shortName]);

/** The field a Prometheus metric name stands for (old or DCGM 4.6 name), if gpu-audit reads it. */
export function fieldByMetricName(name: string): DcgmField | undefined {
  return BY_METRIC_NAME.get(name);
}

/** The field a `dcgmi dmon` column header stands for, if gpu-audit reads it. */
export function fieldByShortName(shortName: string): DcgmField | undefined {
  return BY_SHORT_NAME.get(shortName);
}

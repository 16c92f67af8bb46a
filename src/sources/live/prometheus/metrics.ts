/**
 * Which dcgm-exporter series a live-Prometheus audit reads, as data: the report figure each
 * feeds, its DCGM field (so old and DCGM 4.6 names are both accepted, from ../dcgm/fields.ts)
 * and the scale from DCGM's unit to the report's. The labels that name a device come last.
 */
import { DCGM_FIELDS, type ReadingKey } from '../../dcgm/fields.js';
import { POD_LABEL_NAMES, TARGET_LABELS } from '../../dcgm/labels.js';

/** Report signals a metric can feed (the same names as analysis' PercentMetric / memory). */
export type PushDownSignal = 'utilizationPct' | 'smActivePct' | 'tensorActivePct' | 'grEngineActivePct' | 'memoryUsedMiB';

/** The compute ladder rung a signal's idleness stands for (analysis/compute-ladder.ts). */
export type PushDownBasis = 'sm-active' | 'gr-engine-active' | 'utilization';

export interface PushDownMetric {
  signal: PushDownSignal;
  reading: ReadingKey;
  /** Set for signals that tell idleness: the rung they are. */
  basis?: PushDownBasis;
  /** Quantiles the report shows for this signal. */
  quantiles: readonly number[];
}

/**
 * In ladder order (best first), which must match analysis/compute-ladder.ts: the hourly
 * profile is fetched for the first of these a device has (test/sources/prometheus checks it).
 */
export const PUSH_DOWN_METRICS: readonly PushDownMetric[] = [
  { signal: 'smActivePct', reading: 'smActivePct', basis: 'sm-active', quantiles: [0.5, 0.95] },
  { signal: 'grEngineActivePct', reading: 'grEngineActivePct', basis: 'gr-engine-active', quantiles: [0.5, 0.95] },
  { signal: 'utilizationPct', reading: 'utilizationPct', basis: 'utilization', quantiles: [0.5, 0.95] },
  { signal: 'tensorActivePct', reading: 'tensorActivePct', quantiles: [0.5, 0.95] },
  { signal: 'memoryUsedMiB', reading: 'memoryUsedMiB', quantiles: [0.95] },
];

/** Framebuffer parts whose sum is the board's memory (see ../dcgm/readings.ts memoryTotalMiB). */
export const FRAMEBUFFER_TOTAL_READING: ReadingKey = 'framebufferTotalMiB';
export const FRAMEBUFFER_PART_READINGS: readonly ReadingKey[] = ['memoryUsedMiB', 'framebufferFreeMiB', 'framebufferReservedMiB'];

export interface MetricName {
  name: string;
  /** Multiplier from the metric's unit to the report's (profiling ratios to percent). */
  scale: number;
}

/**
 * Every Prometheus name of a reading, the pre-4.6 name first; where several DCGM fields feed
 * one reading (PCIe: the profiling byte counters, then NVML's older KB/s throughput), in the
 * order of ../dcgm/fields.ts, which is the order of preference.
 */
export function metricNamesOf(reading: ReadingKey): MetricName[] {
  return DCGM_FIELDS.filter((field) => field.reading === reading)
    .flatMap((field) => [field.name, field.newName].filter((name) => name !== undefined).map((name) => ({ name, scale: field.scale })));
}

/**
 * PCIe traffic per direction, pushed down as mean (sum / count), max and p95 in MiB/s: the
 * report's `pcieRxMiBps` / `pcieTxMiBps`. The readings are in KiB/s (../dcgm/fields.ts scales
 * DCGM_FI_PROF_PCIE_*_BYTES from bytes/s; DCGM_FI_DEV_PCIE_*_THROUGHPUT is NVML's KB/s, which
 * nvidia-smi and the file sources also read as KiB/s), so a name's scale / 1024 gives MiB/s.
 * They feed no compute figure and no idleness.
 */
export interface PushDownPcie {
  /** Prefix of the aggregates' tags in a combined answer (`pcie_rx_sum`, …). */
  tag: 'pcie_rx' | 'pcie_tx';
  reading: ReadingKey;
  report: 'pcieRxMiBps' | 'pcieTxMiBps';
}

export const PUSH_DOWN_PCIE: readonly PushDownPcie[] = [
  { tag: 'pcie_rx', reading: 'pcieRxKiBps', report: 'pcieRxMiBps' },
  { tag: 'pcie_tx', reading: 'pcieTxKiBps', report: 'pcieTxMiBps' },
];

export const KIB_PER_MIB = 1024;

/** Every metric name the audit may read: the discovery query asks which of these exist. */
export function allMetricNames(): string[] {
  const readings = new Set<ReadingKey>([
    ...PUSH_DOWN_METRICS.map((metric) => metric.reading), FRAMEBUFFER_TOTAL_READING, ...FRAMEBUFFER_PART_READINGS, ...PUSH_DOWN_PCIE.map((pcie) => pcie.reading),
  ]);
  return [...readings].flatMap((reading) => metricNamesOf(reading).map((metric) => metric.name));
}

/**
 * The labels that name a device in dcgm-exporter series, in both spellings the exporter has
 * used (../dcgm/labels.ts reads them). Aggregations group `by` these, which folds the series
 * of one GPU that differ only in pod labels (a new pod relabels the series) or in scrape
 * target labels. Labels a series lacks are simply absent in the result.
 */
export const DEVICE_LABELS = ['UUID', 'uuid', 'gpu', 'pci_bus_id', 'Hostname', 'hostname', 'modelName', 'GPU_I_ID', 'GPU_I_PROFILE', 'DCGM_FI_DRIVER_VERSION'] as const;

/**
 * Every spelling of dcgm-exporter's pod mapping (../dcgm/labels.ts POD_LABEL_NAMES) and the
 * Prometheus Operator target labels that decide which spelling names the GPU workload
 * (TARGET_LABELS there). Pod aggregates group by these beside DEVICE_LABELS, and
 * readSeriesLabels picks the pod as the file sources do.
 */
export const POD_LABELS: readonly string[] = [
  ...POD_LABEL_NAMES.flatMap((names) => [names.pod, names.namespace, names.container]),
  ...TARGET_LABELS,
];

/** The label whose presence marks a series as carrying a pod mapping, one per spelling. */
export const POD_NAME_LABELS: readonly string[] = POD_LABEL_NAMES.map((names) => names.pod);

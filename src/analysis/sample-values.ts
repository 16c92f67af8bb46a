/**
 * The figures of one GPU sample that analysis weighs, without its identity or time. A series
 * keeps one of these per pending sample and per remembered long interval, never per sample.
 */
import { judgeValue, MEMORY_MAX_MIB, PCIE_MAX_KIBPS, PERCENT_MAX, type DomainField, type GpuSample, type PercentMetric } from '../model/index.js';

export interface SampleValues {
  utilizationPct?: number;
  smActivePct?: number;
  tensorActivePct?: number;
  grEngineActivePct?: number;
  memoryUsedMiB?: number;
  memoryTotalMiB?: number;
  computeProcessCount?: number;
  pcieRxKiBps?: number;
  pcieTxKiBps?: number;
}

/** Percent signals that get PercentStats in the report. */
export const PERCENT_METRICS = ['utilizationPct', 'smActivePct', 'tensorActivePct', 'grEngineActivePct'] as const satisfies readonly PercentMetric[];
export type { PercentMetric };

/** PCIe throughput signals (KiB/s) that get ThroughputStats in the report. */
export const PCIE_METRICS = ['pcieRxKiBps', 'pcieTxKiBps'] as const;
export type PcieMetric = (typeof PCIE_METRICS)[number];

/** Every field of SampleValues, in the order sampleValues writes them. */
export const SAMPLE_FIELDS = [...PERCENT_METRICS, 'memoryUsedMiB', 'memoryTotalMiB', 'computeProcessCount', ...PCIE_METRICS] as const;

/** A reading that is not a finite, non-negative number is treated as not reported. */
function usable(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value >= 0;
}

/** Told of each value left out for lying outside its field's domain (the analyzer counts them per input). */
export type OutOfDomain = (field: DomainField, value: number) => void;

/**
 * Sources clear what lies outside SAMPLE_DOMAINS where they can name the line; this is the
 * same judgement for samples from elsewhere (a library caller, a live answer).
 */
function inDomain(value: number | undefined, max: number, field: DomainField, outOfDomain: OutOfDomain | undefined): value is number {
  if (value === undefined) return false;
  const verdict = judgeValue(field, value, max);
  if (verdict === 'out') outOfDomain?.(field, value);
  return verdict === 'in';
}

/**
 * The usable figures of a sample. Written out field by field (in SAMPLE_FIELDS order) rather than a
 * loop over SAMPLE_FIELDS: this runs once per sample of every input, and keyed access by a loop
 * variable is several times slower than named access.
 */
export function sampleValues(sample: GpuSample, outOfDomain?: OutOfDomain): SampleValues {
  const values: SampleValues = {};
  if (inDomain(sample.utilizationPct, PERCENT_MAX, 'utilizationPct', outOfDomain)) values.utilizationPct = sample.utilizationPct;
  if (inDomain(sample.smActivePct, PERCENT_MAX, 'smActivePct', outOfDomain)) values.smActivePct = sample.smActivePct;
  if (inDomain(sample.tensorActivePct, PERCENT_MAX, 'tensorActivePct', outOfDomain)) values.tensorActivePct = sample.tensorActivePct;
  if (inDomain(sample.grEngineActivePct, PERCENT_MAX, 'grEngineActivePct', outOfDomain)) values.grEngineActivePct = sample.grEngineActivePct;
  const total = inDomain(sample.memoryTotalMiB, MEMORY_MAX_MIB, 'memoryTotalMiB', outOfDomain) ? sample.memoryTotalMiB : undefined;
  if (inDomain(sample.memoryUsedMiB, total ?? MEMORY_MAX_MIB, 'memoryUsedMiB', outOfDomain)) values.memoryUsedMiB = sample.memoryUsedMiB;
  if (total !== undefined) values.memoryTotalMiB = total;
  if (usable(sample.computeProcessCount)) values.computeProcessCount = sample.computeProcessCount;
  if (inDomain(sample.pcieRxKiBps, PCIE_MAX_KIBPS, 'pcieRxKiBps', outOfDomain)) values.pcieRxKiBps = sample.pcieRxKiBps;
  if (inDomain(sample.pcieTxKiBps, PCIE_MAX_KIBPS, 'pcieTxKiBps', outOfDomain)) values.pcieTxKiBps = sample.pcieTxKiBps;
  return values;
}

/** True when both report at least one same field: a second reading at one timestamp, not a complement. */
export function sharesAField(a: SampleValues, b: SampleValues): boolean {
  return SAMPLE_FIELDS.some((field) => a[field] !== undefined && b[field] !== undefined);
}

/** Copies into `target` the fields it lacks (sources that send one metric per line at one time). */
export function fillMissing(target: SampleValues, from: SampleValues): void {
  for (const field of SAMPLE_FIELDS) {
    if (target[field] === undefined && from[field] !== undefined) target[field] = from[field];
  }
}

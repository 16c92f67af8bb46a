/**
 * The figures of one GPU sample that analysis weighs, without its identity or time. A series
 * keeps one of these per pending sample and per remembered long interval, never per sample.
 */
import type { GpuSample } from '../model/observations.js';

export interface SampleValues {
  utilizationPct?: number;
  smActivePct?: number;
  tensorActivePct?: number;
  grEngineActivePct?: number;
  memoryUsedMiB?: number;
  memoryTotalMiB?: number;
  computeProcessCount?: number;
}

/** Percent signals that get PercentStats in the report. */
export const PERCENT_METRICS = ['utilizationPct', 'smActivePct', 'tensorActivePct', 'grEngineActivePct'] as const;
export type PercentMetric = (typeof PERCENT_METRICS)[number];

const FIELDS = [...PERCENT_METRICS, 'memoryUsedMiB', 'memoryTotalMiB', 'computeProcessCount'] as const;

/** A reading that is not a finite, non-negative number is treated as not reported. */
function usable(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value >= 0;
}

export function sampleValues(sample: GpuSample): SampleValues {
  const values: SampleValues = {};
  for (const field of FIELDS) {
    const value = sample[field];
    if (usable(value)) values[field] = value;
  }
  return values;
}

/** True when both report at least one same field: a second reading at one timestamp, not a complement. */
export function sharesAField(a: SampleValues, b: SampleValues): boolean {
  return FIELDS.some((field) => a[field] !== undefined && b[field] !== undefined);
}

/** Copies into `target` the fields it lacks (sources that send one metric per line at one time). */
export function fillMissing(target: SampleValues, from: SampleValues): void {
  for (const field of FIELDS) {
    if (target[field] === undefined && from[field] !== undefined) target[field] = from[field];
  }
}

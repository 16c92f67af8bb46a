/**
 * The DCGM values of one device at one time, gathered field by field (a scrape prints
 * one line per field, a dmon row one column per field), then turned into one GpuSample.
 */
import type { GpuSample } from '../../model/observations.js';
import type { ReadingKey } from './fields.js';

export type Readings = Partial<Record<ReadingKey, number>>;

/** Readings that are GpuSample fields as they are, in the order a sample gets them. */
export const SAMPLE_READINGS = [
  'utilizationPct',
  'memoryUtilizationPct',
  'memoryUsedMiB',
  'powerW',
  'grEngineActivePct',
  'smActivePct',
  'tensorActivePct',
  'pcieRxKiBps',
  'pcieTxKiBps',
] as const satisfies readonly (ReadingKey & keyof GpuSample)[];

/**
 * The whole framebuffer of the device, as nvidia-smi's `memory.total` gives it, so that
 * one GPU read through nvidia-smi and through DCGM has one size and matches the catalog.
 * FB_TOTAL is exactly that, but dcgm-exporter's default CSV leaves it off. Otherwise the
 * parts are added up: NVML's memory info (which DCGM reads) splits the total into used,
 * free and reserved, and the reserved part (driver and firmware) is memory the board has
 * even though no application can use it. Leaving it out would shrink the corpus T4 to
 * 5120 + 9791 = 14911 MiB; with FB_RESERVED 447 it is 15358 MiB, nvidia-smi's 15360
 * less the rounding of three MiB figures. Exporters older than FB_RESERVED give used +
 * free, short by the reserve (a few hundred MiB), which is still the best estimate.
 */
export function memoryTotalMiB(readings: Readings): number | undefined {
  return framebufferTotalMiB(readings.framebufferTotalMiB, readings.memoryUsedMiB, readings.framebufferFreeMiB, readings.framebufferReservedMiB);
}

/** memoryTotalMiB from the four readings it reads (undefined: not reported). */
export function framebufferTotalMiB(total: number | undefined, used: number | undefined, free: number | undefined, reserved: number | undefined): number | undefined {
  if (total !== undefined) return total;
  if (used === undefined || free === undefined) return undefined;
  return used + free + (reserved ?? 0);
}

/** Copies the readings into `sample`; false when none of them is a figure a sample holds. */
export function fillSample(sample: GpuSample, readings: Readings): boolean {
  let filled = false;
  for (const key of SAMPLE_READINGS) {
    const value = readings[key];
    if (value === undefined) continue;
    sample[key] = value;
    filled = true;
  }
  const total = memoryTotalMiB(readings);
  if (total !== undefined) {
    sample.memoryTotalMiB = total;
    filled = true;
  }
  return filled;
}

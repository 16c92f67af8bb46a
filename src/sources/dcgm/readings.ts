/**
 * The DCGM values of one device at one time, gathered field by field (a scrape prints
 * one line per field, a dmon row one column per field), then turned into one GpuSample.
 *
 * They are gathered either as a Readings object (dmon rows, the Prometheus API) or as numbers
 * in slots (a ScrapeBatch, scrape.ts, which keeps a fleet's readings in one Float64Array). The
 * rules that make a sample read slots, so that the scrape path, the busiest, reads its own
 * numbers as they are; a Readings object is put in slots first.
 */
import type { GpuSample } from '../../model/index.js';
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
 * Readings with every key present (as undefined), so that a Readings object that starts so
 * (scrape.ts emptyReadings) keeps one shape whatever order its values come in. The order of
 * its keys is the order of the slots (READING_KEYS).
 */
export function noReadings(): Readings {
  return {
    utilizationPct: undefined,
    memoryUtilizationPct: undefined,
    memoryUsedMiB: undefined,
    powerW: undefined,
    grEngineActivePct: undefined,
    smActivePct: undefined,
    tensorActivePct: undefined,
    pcieRxKiBps: undefined,
    pcieTxKiBps: undefined,
    framebufferTotalMiB: undefined,
    framebufferFreeMiB: undefined,
    framebufferReservedMiB: undefined,
  } satisfies Record<ReadingKey, undefined>;
}

/**
 * Every reading, in a fixed order: a reading's position is its slot where readings are kept
 * as numbers, one per slot from some offset, NaN where there is none (a value is never NaN:
 * the sources leave such values out).
 */
export const READING_KEYS = Object.keys(noReadings()) as ReadingKey[];

const SLOT = Object.fromEntries(READING_KEYS.map((key, slot) => [key, slot])) as Record<ReadingKey, number>;
/** SAMPLE_READINGS with their slots. */
const SAMPLE_SLOTS = SAMPLE_READINGS.map((key) => [key, SLOT[key]] as const);

/**
 * The whole framebuffer of the device, from the readings in slots from `at` (undefined: not
 * reported), as nvidia-smi's `memory.total` gives it, so that one GPU read through nvidia-smi
 * and through DCGM has one size and matches the catalog. FB_TOTAL is exactly that, but
 * dcgm-exporter's default CSV leaves it off. Otherwise the parts are added up: NVML's memory
 * info (which DCGM reads) splits the total into used, free and reserved, and the reserved part
 * (driver and firmware) is memory the board has even though no application can use it.
 * Leaving it out would shrink the corpus T4 to 5120 + 9791 = 14911 MiB; with FB_RESERVED 447
 * it is 15358 MiB, nvidia-smi's 15360 less the rounding of three MiB figures. Exporters older
 * than FB_RESERVED give used + free, short by the reserve (a few hundred MiB), which is still
 * the best estimate.
 */
export function memoryTotalMiBAt(values: Float64Array, at: number): number | undefined {
  const total = values[at + SLOT.framebufferTotalMiB]!;
  if (!Number.isNaN(total)) return total;
  const used = values[at + SLOT.memoryUsedMiB]!;
  const free = values[at + SLOT.framebufferFreeMiB]!;
  if (Number.isNaN(used) || Number.isNaN(free)) return undefined;
  const reserved = values[at + SLOT.framebufferReservedMiB]!;
  return used + free + (Number.isNaN(reserved) ? 0 : reserved);
}

/**
 * Copies the readings in slots from `at` into `sample`, with the board's `memoryTotal`
 * (memoryTotalMiBAt of the same slots, worked out once by the caller, which needs it first for
 * the inventory); false when none of them is a figure a sample holds.
 */
export function fillSampleAt(sample: GpuSample, values: Float64Array, at: number, memoryTotal: number | undefined): boolean {
  let filled = false;
  for (const [key, slot] of SAMPLE_SLOTS) {
    const value = values[at + slot]!;
    if (Number.isNaN(value)) continue;
    sample[key] = value;
    filled = true;
  }
  if (memoryTotal !== undefined) {
    sample.memoryTotalMiB = memoryTotal;
    filled = true;
  }
  return filled;
}

/** Slots for one Readings object at a time: the rules above read them before the next is put in. */
const slots = new Float64Array(READING_KEYS.length);

/**
 * The readings in `slots`. Written out key by key rather than looped over READING_KEYS: loads
 * by a key that varies miss V8's inline caches, and such a loop took some 110 ns per object
 * here against 7 for this, which runs once per dmon row (test/sources/dcgm/fields.test.ts
 * checks that it puts every reading in its slot).
 */
function inSlots(readings: Readings): Float64Array {
  slots[SLOT.utilizationPct] = readings.utilizationPct ?? Number.NaN;
  slots[SLOT.memoryUtilizationPct] = readings.memoryUtilizationPct ?? Number.NaN;
  slots[SLOT.memoryUsedMiB] = readings.memoryUsedMiB ?? Number.NaN;
  slots[SLOT.powerW] = readings.powerW ?? Number.NaN;
  slots[SLOT.grEngineActivePct] = readings.grEngineActivePct ?? Number.NaN;
  slots[SLOT.smActivePct] = readings.smActivePct ?? Number.NaN;
  slots[SLOT.tensorActivePct] = readings.tensorActivePct ?? Number.NaN;
  slots[SLOT.pcieRxKiBps] = readings.pcieRxKiBps ?? Number.NaN;
  slots[SLOT.pcieTxKiBps] = readings.pcieTxKiBps ?? Number.NaN;
  slots[SLOT.framebufferTotalMiB] = readings.framebufferTotalMiB ?? Number.NaN;
  slots[SLOT.framebufferFreeMiB] = readings.framebufferFreeMiB ?? Number.NaN;
  slots[SLOT.framebufferReservedMiB] = readings.framebufferReservedMiB ?? Number.NaN;
  return slots;
}

/** memoryTotalMiBAt of a Readings object. */
export function memoryTotalMiB(readings: Readings): number | undefined {
  return memoryTotalMiBAt(inSlots(readings), 0);
}

/** fillSampleAt of a Readings object. */
export function fillSample(sample: GpuSample, readings: Readings): boolean {
  const values = inSlots(readings);
  return fillSampleAt(sample, values, 0, memoryTotalMiBAt(values, 0));
}

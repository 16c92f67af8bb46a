/**
 * The domain of each GPU sample figure, in one table for every source and for analysis.
 *
 * A figure outside its domain is no reading at all: a utilization above 100 % cannot be read
 * (a sum of shares passes 100 by rounding only, hence the half point), memory above 2^31 MiB
 * (2 PiB) is no GPU's, memory used above the total of the same reading is impossible, and a
 * PCIe rate above 2^28 KiB/s (256 GiB/s, twice a PCIe 6.0 x16 link) is no link's. NVML prints
 * 4294967295 (0xFFFFFFFF) and 4294967294 in its unsigned fields for "not supported": like
 * `[N/A]`, those mean no value, and are not warned about.
 */
import type { GpuSample } from './observations.js';

export const PERCENT_MAX = 100.5;
export const MEMORY_MAX_MIB = 2 ** 31;
export const PCIE_MAX_KIBPS = 2 ** 28;

/** The sample figures that have a domain; powerW and counts are not judged. */
export type DomainField =
  | 'utilizationPct' | 'memoryUtilizationPct' | 'smActivePct' | 'tensorActivePct' | 'grEngineActivePct'
  | 'memoryUsedMiB' | 'memoryTotalMiB' | 'pcieRxKiBps' | 'pcieTxKiBps';

interface Domain {
  /** How a message names the figure. */
  words: string;
  /** Largest value in the domain (every domain starts at 0). */
  max: number;
  /** The domain as a message says it. */
  range: string;
  /** The figure's unit, for a message that converts a source's value (a DCGM ratio) into it. */
  unit: string;
}

const percent = (words: string): Domain => ({ words, max: PERCENT_MAX, range: '0-100 %', unit: '%' });
const memory = (words: string): Domain => ({ words, max: MEMORY_MAX_MIB, range: `0-${MEMORY_MAX_MIB} MiB`, unit: 'MiB' });
const pcie = (words: string): Domain => ({ words, max: PCIE_MAX_KIBPS, range: `0-${PCIE_MAX_KIBPS} KiB/s`, unit: 'KiB/s' });

export const SAMPLE_DOMAINS: Readonly<Record<DomainField, Domain>> = {
  utilizationPct: percent('GPU utilization'),
  memoryUtilizationPct: percent('memory utilization'),
  smActivePct: percent('SM active'),
  tensorActivePct: percent('tensor active'),
  grEngineActivePct: percent('GR engine active'),
  memoryUsedMiB: memory('memory used'),
  memoryTotalMiB: memory('memory total'),
  pcieRxKiBps: pcie('PCIe receive'),
  pcieTxKiBps: pcie('PCIe transmit'),
};

const DOMAIN_FIELDS = Object.keys(SAMPLE_DOMAINS) as DomainField[];

/** NVML's "not supported" in its unsigned integer fields. */
const NVML_NOT_SUPPORTED_FIRST = 4_294_967_294;
const NVML_NOT_SUPPORTED_LAST = 4_294_967_295;

function isNvmlNotSupported(value: number): boolean {
  return value === NVML_NOT_SUPPORTED_FIRST || value === NVML_NOT_SUPPORTED_LAST;
}

/** What a value of `field` is: one in its domain, "no value" (NaN or an NVML sentinel), or outside. */
export function judgeValue(field: DomainField, value: number, max = SAMPLE_DOMAINS[field].max): 'in' | 'none' | 'out' {
  if (value >= 0 && value <= max) return 'in';
  if (Number.isNaN(value) || isNvmlNotSupported(value)) return 'none';
  return 'out';
}

/** The warning for a value left out, as every source words it after its location; memory used names the total it passed. */
export function outOfDomainMessage(field: DomainField, value: number, totalMiB?: number): string {
  const range = totalMiB === undefined ? SAMPLE_DOMAINS[field].range : `0-${totalMiB} MiB, the memory total`;
  return `${SAMPLE_DOMAINS[field].words} ${value} is outside ${range}; value left out`;
}

/**
 * Clears (sets to undefined) each figure of `sample` outside its domain, memory used judged
 * against the sample's own total, and tells `report` of each one that is not a "no value"
 * sentinel. Sources call it where they know the line, so the warning can name it, and only
 * for a sample that allInDomain turned down (no closure per sample on the hot path).
 */
export function clearOutOfDomain(sample: GpuSample, report: (message: string) => void): void {
  const total = sample.memoryTotalMiB;
  for (const field of DOMAIN_FIELDS) {
    const value = sample[field];
    if (value === undefined) continue;
    const totalMiB = field === 'memoryUsedMiB' && total !== undefined && judgeValue('memoryTotalMiB', total) === 'in' ? total : undefined;
    const verdict = judgeValue(field, value, totalMiB);
    if (verdict === 'in') continue;
    sample[field] = undefined;
    if (verdict === 'out') report(outOfDomainMessage(field, value, totalMiB));
  }
}

function inRange(value: number | undefined, max: number): boolean {
  return value === undefined || (value >= 0 && value <= max);
}

/**
 * True when no figure needs a look: named access, field by field, since this runs once per
 * sample of every input and a loop over the table's keys is several times slower.
 */
export function allInDomain(sample: GpuSample): boolean {
  return inRange(sample.utilizationPct, PERCENT_MAX) && inRange(sample.memoryUtilizationPct, PERCENT_MAX)
    && inRange(sample.smActivePct, PERCENT_MAX) && inRange(sample.tensorActivePct, PERCENT_MAX) && inRange(sample.grEngineActivePct, PERCENT_MAX)
    && inRange(sample.memoryTotalMiB, MEMORY_MAX_MIB) && inRange(sample.memoryUsedMiB, sample.memoryTotalMiB ?? MEMORY_MAX_MIB)
    && inRange(sample.pcieRxKiBps, PCIE_MAX_KIBPS) && inRange(sample.pcieTxKiBps, PCIE_MAX_KIBPS);
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DCGM_FIELDS, fieldByMetricName, fieldByShortName } from '../../../src/sources/dcgm/fields.js';
import type { DcgmField } from '../../../src/sources/dcgm/fields.js';
import { fillSample, fillSampleAt, memoryTotalMiB, memoryTotalMiBAt, READING_KEYS, SAMPLE_READINGS, type Readings } from '../../../src/sources/dcgm/readings.js';
import { isDcgmBlank, readDcgmValue } from '../../../src/sources/dcgm/values.js';
import type { GpuSample } from '../../../src/model/observations.js';

function field(name: string): DcgmField {
  const found = fieldByMetricName(name);
  if (found === undefined) throw new Error(`no field ${name}`);
  return found;
}

describe('DCGM field table', () => {
  it('keys every field on its id: ids, names and short names are unique', () => {
    const ids = DCGM_FIELDS.map((entry) => entry.id);
    const shortNames = DCGM_FIELDS.map((entry) => entry.shortName);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(shortNames).size).toBe(shortNames.length);
  });

  it.each([
    ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_GPU_UTIL_RATIO', 'GPUTL', 203, 'utilizationPct'],
    ['DCGM_FI_DEV_POWER_USAGE', 'DCGM_FI_DEV_BOARD_POWER_WATTS', 'POWER', 155, 'powerW'],
    ['DCGM_FI_PROF_GR_ENGINE_ACTIVE', 'DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO', 'GRACT', 1001, 'grEngineActivePct'],
    ['DCGM_FI_PROF_SM_ACTIVE', 'DCGM_FI_PROF_SM_UTIL_RATIO', 'SMACT', 1002, 'smActivePct'],
    ['DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', 'DCGM_FI_PROF_TENSOR_UTIL_RATIO', 'TENSO', 1004, 'tensorActivePct'],
  ])('reads %s, its DCGM 4.6 name %s and dmon column %s as field %i', (oldName, newName, shortName, id, reading) => {
    const byOld = fieldByMetricName(oldName);
    expect(byOld).toMatchObject({ id, reading });
    expect(fieldByMetricName(newName)).toBe(byOld);
    expect(fieldByShortName(shortName)).toBe(byOld);
  });

  it.each([
    ['DCGM_FI_DEV_MEM_COPY_UTIL', 'MCUTL', 204],
    ['DCGM_FI_DEV_FB_TOTAL', 'FBTTL', 250],
    ['DCGM_FI_DEV_FB_FREE', 'FBFRE', 251],
    ['DCGM_FI_DEV_FB_USED', 'FBUSD', 252],
    ['DCGM_FI_DEV_FB_RESERVED', 'FBRSV', 253],
    ['DCGM_FI_PROF_PCIE_TX_BYTES', 'PCITX', 1009],
    ['DCGM_FI_PROF_PCIE_RX_BYTES', 'PCIRX', 1010],
  ])('reads %s (kept its name in DCGM 4.6) and dmon column %s as field %i', (name, shortName, id) => {
    expect(fieldByMetricName(name)?.id).toBe(id);
    expect(fieldByShortName(shortName)?.id).toBe(id);
  });

  it('knows nothing of fields gpu-audit does not read', () => {
    expect(fieldByMetricName('DCGM_FI_DEV_GPU_TEMP')).toBeUndefined();
    expect(fieldByShortName('NVLTX')).toBeUndefined();
  });
});

describe('readDcgmValue', () => {
  it('keeps percent fields as printed', () => {
    expect(readDcgmValue('91', field('DCGM_FI_DEV_GPU_UTIL'))).toBe(91);
    expect(readDcgmValue('68.244000', field('DCGM_FI_DEV_POWER_USAGE'))).toBe(68.244);
  });

  it('turns profiling ratios into percent', () => {
    // 0.156205 x 100 = 15.6205 %
    expect(readDcgmValue('0.156205', field('DCGM_FI_PROF_GR_ENGINE_ACTIVE'))).toBeCloseTo(15.6205, 10);
    expect(readDcgmValue('1', field('DCGM_FI_PROF_SM_ACTIVE'))).toBe(100);
  });

  it('turns PCIe bytes per second into KiB/s', () => {
    // 6935930 B/s / 1024 = 6773.369140625 KiB/s
    expect(readDcgmValue('6935930', field('DCGM_FI_PROF_PCIE_RX_BYTES'))).toBe(6773.369140625);
  });

  it('reads every plain decimal as Number() does, leading zeros and long digit runs included', () => {
    const digits = fc.stringMatching(/^[0-9]{1,20}$/);
    const plain = fc.oneof(digits, fc.tuple(digits, fc.stringMatching(/^[0-9]{0,12}$/)).map(([whole, fraction]) => `${whole}.${fraction}`));
    // Power has no upper bound (model/sample-domains.ts), so every number reads back.
    const power = field('DCGM_FI_DEV_POWER_USAGE');
    fc.assert(fc.property(plain, (text) => {
      const expected = Number(text);
      expect(readDcgmValue(text, power)).toBe(isDcgmBlank(expected, power.valueType) ? undefined : expected);
    }));
  });

  it('reads a value outside its reading\'s domain as NaN (the caller warns), and NVML\'s 4294967295 as no value', () => {
    expect(readDcgmValue('100', field('DCGM_FI_DEV_GPU_UTIL'))).toBe(100);
    expect(readDcgmValue('101', field('DCGM_FI_DEV_GPU_UTIL'))).toBeNaN();
    expect(readDcgmValue('1.01', field('DCGM_FI_PROF_SM_ACTIVE'))).toBeNaN();
    expect(readDcgmValue('4294967295', field('DCGM_FI_DEV_GPU_UTIL'))).toBeUndefined();
    expect(readDcgmValue(String(2 ** 31 + 1), field('DCGM_FI_DEV_FB_USED'))).toBeNaN();
  });

  it('reads exponents as federation prints them', () => {
    expect(readDcgmValue('1.5e+06', field('DCGM_FI_DEV_FB_USED'))).toBe(1_500_000);
  });

  it.each([
    ['9223372036854775792', 'DCGM_INT64_BLANK'],
    ['9223372036854775794', 'DCGM_INT64_NOT_SUPPORTED, as in the exporter README'],
    ['9223372036854775807', 'INT64 max'],
    ['2147483632', 'DCGM_INT32_BLANK'],
    ['2147483635', 'DCGM_INT32_NOT_PERMISSIONED'],
  ])('treats %s (%s) as missing', (text) => {
    expect(readDcgmValue(text, field('DCGM_FI_DEV_FB_USED'))).toBeUndefined();
  });

  it('treats the fp64 blank (2^47 and up) as missing on float fields only', () => {
    expect(readDcgmValue('140737488355328', field('DCGM_FI_DEV_POWER_USAGE'))).toBeUndefined();
    expect(readDcgmValue('140737488355330.000000', field('DCGM_FI_PROF_SM_ACTIVE'))).toBeUndefined();
    // An int64 field can legitimately exceed 2^47: 2^47 + 1 B/s of PCIe is still a number.
    expect(isDcgmBlank(140_737_488_355_329, 'int64')).toBe(false);
  });

  it('keeps values just below the sentinels', () => {
    expect(isDcgmBlank(2_147_483_631, 'int64')).toBe(false);
    expect(isDcgmBlank(2_147_483_636, 'int64')).toBe(false);
    expect(isDcgmBlank(9_223_372_036_854_000_000, 'int64')).toBe(false);
  });

  it.each(['N/A', 'NaN', '+Inf', '-Inf', 'nan', '', '<<<NULL>>>'])('reads %j as missing', (text) => {
    expect(readDcgmValue(text, field('DCGM_FI_DEV_GPU_UTIL'))).toBeUndefined();
  });

  it.each(['abc', '12%', '-3', '0x10'])('reads %j as NaN (not a reading: the caller warns)', (text) => {
    expect(readDcgmValue(text, field('DCGM_FI_DEV_GPU_UTIL'))).toBeNaN();
  });
});

describe('memory total from framebuffer parts', () => {
  it('is FB_TOTAL when reported', () => {
    expect(memoryTotalMiB({ framebufferTotalMiB: 15360, memoryUsedMiB: 5120, framebufferFreeMiB: 9791 })).toBe(15360);
  });

  it('is used + free + reserved otherwise', () => {
    // Ericsson T4 scrape: 5120 + 9791 + 447 = 15358 MiB
    expect(memoryTotalMiB({ memoryUsedMiB: 5120, framebufferFreeMiB: 9791, framebufferReservedMiB: 447 })).toBe(15358);
  });

  it('is used + free when the exporter has no FB_RESERVED', () => {
    expect(memoryTotalMiB({ memoryUsedMiB: 100, framebufferFreeMiB: 900 })).toBe(1000);
  });

  it('is unknown from used alone', () => {
    expect(memoryTotalMiB({ memoryUsedMiB: 100 })).toBeUndefined();
  });

  it('fills a sample only with figures that were read', () => {
    const sample: GpuSample = { ref: { host: 'h' } };
    expect(fillSample(sample, { framebufferReservedMiB: 447 })).toBe(false);
    expect(sample).toEqual({ ref: { host: 'h' } });
    expect(fillSample(sample, { utilizationPct: 0 })).toBe(true);
    expect(sample).toEqual({ ref: { host: 'h' }, utilizationPct: 0 });
  });
});

describe('one rule for readings in an object and in slots', () => {
  it('sends every reading that is a sample figure to the sample as it is', () => {
    for (const key of SAMPLE_READINGS) {
      const sample: GpuSample = { ref: { host: 'h' } };
      expect(fillSample(sample, { [key]: 42 }), key).toBe(true);
      expect(sample, key).toEqual({ ref: { host: 'h' }, [key]: 42 });
    }
  });

  it('gives from a Readings object the sample its readings give in slots (a ScrapeBatch\'s)', () => {
    // A value absent from the object is NaN in its slot, READING_KEYS giving the slot order.
    const readingsArbitrary = fc.record(Object.fromEntries(READING_KEYS.map((key) => [key, fc.integer({ min: 0, max: 100_000 })])), { requiredKeys: [] });
    fc.assert(
      fc.property(readingsArbitrary, fc.nat({ max: 3 }), (readings: Readings, entry) => {
        const values = new Float64Array((entry + 1) * READING_KEYS.length).fill(Number.NaN);
        const at = entry * READING_KEYS.length;
        READING_KEYS.forEach((key, slot) => (values[at + slot] = readings[key] ?? Number.NaN));
        const fromObject: GpuSample = { ref: { host: 'h' } };
        const fromSlots: GpuSample = { ref: { host: 'h' } };
        const memoryTotal = memoryTotalMiBAt(values, at);
        expect(memoryTotalMiB(readings)).toBe(memoryTotal);
        expect(fillSample(fromObject, readings)).toBe(fillSampleAt(fromSlots, values, at, memoryTotal));
        expect(Object.entries(fromObject)).toEqual(Object.entries(fromSlots));
      }),
      { numRuns: 300 },
    );
  });
});

describe('readDcgmValue on long tokens', () => {
  it('gives NaN (the caller warns) past 64 characters, without backtracking over the digits', () => {
    const field = fieldByMetricName('DCGM_FI_DEV_GPU_UTIL')!;
    expect(readDcgmValue(`${'1'.repeat(1_000_000)}x`, field)).toBeNaN();
    expect(readDcgmValue(`${'1'.repeat(100)}e1`, field)).toBeNaN();
    expect(readDcgmValue('1.5e1', field)).toBe(15);
  });
});

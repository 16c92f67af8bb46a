import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SampleRows } from '../../src/analysis/sample-rows.js';
import { SAMPLE_FIELDS, type SampleValues } from '../../src/analysis/sample-values.js';

/** Any subset of the fields, each a reading sampleValues would keep (finite, non-negative, -0 included). */
const sampleValuesArbitrary: fc.Arbitrary<SampleValues> = fc.record(
  Object.fromEntries(SAMPLE_FIELDS.map((field) => [field, fc.oneof(fc.constant(-0), fc.constant(0), fc.double({ min: 0, max: 1e9, noNaN: true }))])) as Record<keyof SampleValues, fc.Arbitrary<number>>,
  { requiredKeys: [] },
);

describe('SampleRows', () => {
  it('gives back each row as written: its start time and exactly the fields the sample had', () => {
    const rows = new SampleRows();
    rows.write(0, 1_700_000_000_123, { utilizationPct: 37.5, memoryUsedMiB: 0, pcieTxKiBps: 12 });
    rows.write(1, 1_700_000_030_123, {});
    expect(rows.size).toBe(2);
    expect(rows.startMs(0)).toBe(1_700_000_000_123);
    expect(rows.values(0)).toEqual({ utilizationPct: 37.5, memoryUsedMiB: 0, pcieTxKiBps: 12 });
    expect(rows.startMs(1)).toBe(1_700_000_030_123);
    expect(rows.values(1)).toEqual({});
  });

  it('rebuilds the fields in SampleValues order, whatever order the sample had them in', () => {
    const rows = new SampleRows();
    rows.write(0, 5, { pcieRxKiBps: 1, utilizationPct: 2 });
    expect(Object.keys(rows.values(0))).toEqual(['utilizationPct', 'pcieRxKiBps']);
  });

  it('replaces a row in place, leaving the others and the size as they were', () => {
    const rows = new SampleRows();
    rows.write(0, 10, { smActivePct: 1 });
    rows.write(1, 20, { smActivePct: 2 });
    rows.write(0, 30, { tensorActivePct: 3 });
    expect(rows.size).toBe(2);
    expect([rows.startMs(0), rows.values(0)]).toEqual([30, { tensorActivePct: 3 }]);
    expect([rows.startMs(1), rows.values(1)]).toEqual([20, { smActivePct: 2 }]);
  });

  it('gives a field first reported late a column in every row: the rows before it read back without it', () => {
    const rows = new SampleRows();
    rows.write(0, 10, { utilizationPct: 5 });
    rows.write(1, 20, { utilizationPct: 6, memoryUsedMiB: 100 });
    rows.write(0, 30, { pcieRxKiBps: 7 });
    expect(rows.size).toBe(2);
    expect([rows.startMs(0), rows.values(0)]).toEqual([30, { pcieRxKiBps: 7 }]);
    expect([rows.startMs(1), rows.values(1)]).toEqual([20, { utilizationPct: 6, memoryUsedMiB: 100 }]);
  });

  it('refuses a row past the next one: rows are filled in order, never with holes', () => {
    const rows = new SampleRows();
    rows.write(0, 10, {});
    expect(() => rows.write(2, 20, {})).toThrow(RangeError);
  });

  it('round-trips any readings bit for bit (-0 stays -0)', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 4e12 }), sampleValuesArbitrary), { minLength: 1, maxLength: 40 }), (samples) => {
      const rows = new SampleRows();
      samples.forEach(([startMs, values], row) => rows.write(row, startMs, values));
      samples.forEach(([startMs, values], row) => {
        expect(rows.startMs(row)).toBe(startMs);
        const back = rows.values(row);
        expect(Object.keys(back).sort()).toEqual(Object.keys(values).sort());
        for (const field of SAMPLE_FIELDS) expect(Object.is(back[field], values[field])).toBe(true);
      });
    }));
  });
});

/**
 * The per-sample code of the analysis is written out field by field for speed (no loops over
 * field-name lists): these tests pin that the written-out versions still cover every field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GpuSample } from '../../src/model/observations.js';
import { COMPUTE_LADDER } from '../../src/analysis/compute-ladder.js';
import { computePercents, RUNG_COUNT } from '../../src/analysis/compute-percent.js';
import { FigureAccumulator } from '../../src/analysis/figure-accumulator.js';
import type { SampleValues } from '../../src/analysis/sample-values.js';
import { PCIE_METRICS, PERCENT_METRICS, sampleValues } from '../../src/analysis/sample-values.js';

const ALL_FIELDS = [...PERCENT_METRICS, 'memoryUsedMiB', 'memoryTotalMiB', 'computeProcessCount', ...PCIE_METRICS] as const;

describe('sampleValues', () => {
  it('keeps every analysed field, in the order of the field list', () => {
    const sample: GpuSample = { ref: { host: 'h' }, time: 1 };
    ALL_FIELDS.forEach((field, position) => {
      sample[field] = position + 1;
    });
    const values = sampleValues(sample);
    expect(Object.keys(values)).toEqual([...ALL_FIELDS]);
    ALL_FIELDS.forEach((field, position) => expect(values[field], field).toBe(position + 1));
  });

  it('drops readings that are not finite and non-negative, one field at a time', () => {
    for (const field of ALL_FIELDS) {
      for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(sampleValues({ ref: { host: 'h' }, [field]: bad }), `${field} = ${bad}`).toEqual({});
      }
      expect(sampleValues({ ref: { host: 'h' }, [field]: 0 })).toEqual({ [field]: 0 });
    }
  });
});

describe('FigureAccumulator.add', () => {
  it('feeds every signal: one sample of each weighs 1000 ms', () => {
    const figures = new FigureAccumulator(5);
    figures.add({ utilizationPct: 40, smActivePct: 3, tensorActivePct: 2, grEngineActivePct: 60, memoryUsedMiB: 512, memoryTotalMiB: 1024, computeProcessCount: 0, pcieRxKiBps: 2048, pcieTxKiBps: 1024 }, 1000);
    for (const metric of PERCENT_METRICS) expect(figures.percentStats(metric), metric).not.toBeNull();
    expect(figures.percentStats('utilizationPct')).toEqual({ mean: 40, p50: 40, p95: 40, max: 40 });
    expect(figures.memoryUsedStats()).toEqual({ mean: 512, p95: 512, max: 512 });
    expect(figures.memoryTotalMiB()).toBe(1024);
    // 2048 KiB/s = 2 MiB/s.
    expect(figures.pcieStats('pcieRxKiBps')).toEqual({ mean: 2, p95: 2, max: 2 });
    expect(figures.pcieStats('pcieTxKiBps')).toEqual({ mean: 1, p95: 1, max: 1 });
    // Idle below 5 %: sm-active 3 % is idle, gr-engine 60 % and utilization 40 % are not; no process is idle.
    expect(figures.idleTally('sm-active')).toEqual({ observedWeight: 1000, idleWeight: 1000 });
    expect(figures.idleTally('gr-engine-active')).toEqual({ observedWeight: 1000, idleWeight: 0 });
    expect(figures.idleTally('utilization')).toEqual({ observedWeight: 1000, idleWeight: 0 });
    expect(figures.idleTally('processes')).toEqual({ observedWeight: 1000, idleWeight: 1000 });
  });
});

/** Samples with any subset of the ladder's signals, idle and busy readings alike (threshold 5 %). */
const ladderValues = fc.record({
  smActivePct: fc.constantFrom(0, 4.99, 5, 37.5, 100),
  grEngineActivePct: fc.constantFrom(0, 3, 5, 80),
  utilizationPct: fc.constantFrom(0, 4, 5, 64),
  computeProcessCount: fc.constantFrom(0, 1, 3),
}, { requiredKeys: [] }) as fc.Arbitrary<SampleValues>;

describe('the compute ladder written out', () => {
  it('computePercents reads each rung as COMPUTE_LADDER does, in ladder order', () => {
    fc.assert(fc.property(ladderValues, (values) => {
      const out = new Float64Array(RUNG_COUNT);
      const present = computePercents(values, out);
      const expected = COMPUTE_LADDER.map(({ basis, signal }) => {
        const reading = signal(values);
        return reading === undefined ? Number.NaN : basis === 'processes' ? (reading > 0 ? 100 : 0) : reading;
      });
      expect([...out]).toEqual(expected);
      expect(present).toBe(expected.filter((percent) => !Number.isNaN(percent)).length);
    }));
  });

  it("FigureAccumulator tallies observed and idle time with each rung's own signal and isIdle", () => {
    fc.assert(fc.property(fc.array(ladderValues, { maxLength: 6 }), (samples) => {
      const figures = new FigureAccumulator(5);
      samples.forEach((values, position) => figures.add(values, 1000 * (position + 1)));
      for (const { basis, signal, isIdle } of COMPUTE_LADDER) {
        let observedWeight = 0;
        let idleWeight = 0;
        samples.forEach((values, position) => {
          const reading = signal(values);
          if (reading === undefined) return;
          observedWeight += 1000 * (position + 1);
          if (isIdle(reading, 5)) idleWeight += 1000 * (position + 1);
        });
        expect(figures.idleTally(basis), basis).toEqual({ observedWeight, idleWeight });
      }
    }));
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Recommendation } from '../../src/model/report.js';
import { selectExclusive } from '../../src/recommend/select.js';

function recommendation(id: string, kind: Recommendation['kind'], targets: string[], monthlySavingsUsd: number): Recommendation {
  return { id, kind, targets, current: '', proposed: '', monthlySavingsUsd, confidence: 'high', confidenceReasons: [], risks: [], rationale: '', evidence: {} };
}

const gpusOf = (item: Recommendation) => item.targets;

describe('selecting mutually exclusive recommendations', () => {
  it('counts each GPU once: the larger saving wins, the others name it', () => {
    const selection = selectExclusive(
      [
        recommendation('rightsize:a', 'rightsize', ['a'], 700),
        recommendation('rightsize:b', 'rightsize', ['b'], 700),
        recommendation('mps:a+b', 'mps', ['a', 'b'], 5800),
        recommendation('rightsize:c', 'rightsize', ['c'], 1000),
      ],
      gpusOf,
    );
    // 5,800 (a and b together) + 1,000 (c) = 6,800; the two 700s are alternatives to the MPS plan.
    expect(selection.potentialMonthlySavingsUsd).toBe(6800);
    expect(selection.recommendations.map((item) => [item.id, item.counted, item.alternativeTo])).toEqual([
      ['mps:a+b', true, undefined],
      ['rightsize:c', true, undefined],
      ['rightsize:a', false, 'mps:a+b'],
      ['rightsize:b', false, 'mps:a+b'],
    ]);
  });

  it('prefers MIG on equal savings: it isolates memory and faults', () => {
    const selection = selectExclusive([recommendation('mps:x', 'mps', ['a', 'b'], 5000), recommendation('mig:x', 'mig', ['a', 'b'], 5000)], gpusOf);
    expect(selection.recommendations[0]).toMatchObject({ id: 'mig:x', counted: true });
    expect(selection.recommendations[1]).toMatchObject({ id: 'mps:x', counted: false, alternativeTo: 'mig:x' });
  });

  it('never counts a recommendation that saves nothing', () => {
    const selection = selectExclusive([recommendation('autoscale:a', 'autoscale', ['a'], 0)], gpusOf);
    expect(selection.recommendations[0]!.counted).toBe(false);
    expect(selection.potentialMonthlySavingsUsd).toBe(0);
  });

  it('sums exactly the counted savings, with no GPU counted twice, for any input', () => {
    const arbitraryRecommendation = fc.record({
      targets: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { minLength: 1, maxLength: 4 }),
      monthlySavingsUsd: fc.integer({ min: 0, max: 10_000 }),
      kind: fc.constantFrom<Recommendation['kind']>('rightsize', 'mig', 'mps', 'time-slicing', 'purchase'),
    });
    fc.assert(
      fc.property(fc.array(arbitraryRecommendation, { maxLength: 12 }), (drawn) => {
        const items = drawn.map((item, index) => recommendation(`r${index}`, item.kind, item.targets, item.monthlySavingsUsd));
        const selection = selectExclusive(items, gpusOf);
        const counted = selection.recommendations.filter((item) => item.counted === true);
        const claimed = counted.flatMap((item) => item.targets);
        expect(new Set(claimed).size).toBe(claimed.length);
        expect(selection.potentialMonthlySavingsUsd).toBe(counted.reduce((sum, item) => sum + item.monthlySavingsUsd, 0));
        // Every recommendation left out with a saving names a counted one that shares a GPU with it.
        for (const item of selection.recommendations.filter((candidate) => candidate.counted === false && candidate.monthlySavingsUsd > 0)) {
          const winner = counted.find((candidate) => candidate.id === item.alternativeTo);
          expect(winner?.targets.some((gpu) => item.targets.includes(gpu))).toBe(true);
        }
      }),
      { numRuns: 200, seed: 11 },
    );
  });
});

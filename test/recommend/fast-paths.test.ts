/**
 * Shortcuts taken for fleet-sized inputs must give the answers of the plain definitions, to the
 * last digit: prices formatted without ICU, demand-curve shares read from one table, and the
 * first-fit admission rules of time-slicing and MPS. Each plain definition is written out here
 * and compared on random inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DemandUnit } from '../../src/recommend/index.js';
import { shareAtLeast, shareAtLeastOf, type DemandCurve } from '../../src/recommend/purchase.js';
import { groupUnits, shareable, type Admission } from '../../src/recommend/sharing/grouping.js';
import { mps } from '../../src/recommend/sharing/mps.js';
import { overlapOf, timeSlicing } from '../../src/recommend/sharing/timeslice.js';
import { fixedEnUs, money } from '../../src/recommend/units.js';
import { GIB, options, unit } from './helpers.js';

const icu = (digits: number): Intl.NumberFormat => new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

describe('fixedEnUs: en-US numbers with fixed decimals, as Intl.NumberFormat writes them', () => {
  it('rounds the shortest decimal half away from zero, as ICU does (not toFixed\'s binary value)', () => {
    // 1.005 is stored as 1.00499999999999989..., so toFixed(2) gives 1.00; ICU reads "1.005" and gives 1.01.
    expect((1.005).toFixed(2)).toBe('1.00');
    expect(fixedEnUs(1.005, 2)).toBe('1.01');
    expect(fixedEnUs(999.995, 2)).toBe('1,000.00'); // the carry runs into the thousands
    expect(fixedEnUs(1234567.125, 2)).toBe('1,234,567.13');
    expect(fixedEnUs(2.5, 0)).toBe('3');
    expect(fixedEnUs(-0.004, 2)).toBe('-0.00'); // ICU keeps the sign of a negative that rounds to zero
    expect(fixedEnUs(-0, 2)).toBe('-0.00');
    expect(money(0.00005)).toBe('$0.0001');
    expect(money(12.5)).toBe('$12.50');
    expect(money(1234.5)).toBe('$1,235');
  });

  it.each([0, 1, 2, 3, 4])('writes what Intl.NumberFormat writes with %i decimals, for any double', (digits) => {
    const formatter = icu(digits);
    fc.assert(fc.property(fc.double(), (value) => fixedEnUs(value, digits) === formatter.format(value)), { numRuns: 20_000 });
    // Prices: cents and tenths of cents, where the half-way cases live.
    fc.assert(fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 6 }), (mantissa, scale) => {
      const value = mantissa / 10 ** scale;
      return fixedEnUs(value, digits) === formatter.format(value);
    }), { numRuns: 20_000 });
  });

  it('leaves exponent notation, NaN and the infinities to Intl.NumberFormat', () => {
    for (const value of [1e21, 1e-7, 5e-324, Number.MAX_VALUE, NaN, Infinity, -Infinity]) expect(fixedEnUs(value, 2)).toBe(icu(2).format(value));
  });
});

describe('shareAtLeastOf: shareAtLeast for every k of one curve', () => {
  const point = fc.record({ gpus: fc.integer({ min: 0, max: 40 }), weight: fc.double({ min: 0, max: 1, noNaN: true }) });

  it('gives exactly shareAtLeast on curves in ascending order of GPUs (both builders make those)', () => {
    fc.assert(fc.property(fc.uniqueArray(point, { selector: (p) => p.gpus, maxLength: 30 }), (points) => {
      const curve: DemandCurve = [...points].sort((a, b) => a.gpus - b.gpus);
      const share = shareAtLeastOf(curve);
      for (let k = 0; k <= 42; k += 1) if (!Object.is(share(k), shareAtLeast(curve, k))) return false;
      return true;
    }));
  });

  it('falls back to shareAtLeast on a curve in any other order', () => {
    fc.assert(fc.property(fc.array(point, { maxLength: 30 }), (curve) => {
      const share = shareAtLeastOf(curve);
      for (let k = 0; k <= 42; k += 1) if (!Object.is(share(k), shareAtLeast(curve, k))) return false;
      return true;
    }));
  });
});

/**
 * timeslice.ts's overlap as its header defines it, hour by hour: an hour counts where every
 * member has a value, and overlaps where two or more of those are at or above the threshold.
 */
function overlapByDefinition(members: readonly DemandUnit[], idleThresholdPct: number): { observedHours: number; overlapHours: number } {
  let observedHours = 0;
  let overlapHours = 0;
  for (let hour = 0; hour < 168; hour += 1) {
    const values = members.map((member) => member.hourOfWeekPct?.[hour] ?? null);
    if (values.some((value) => value === null)) continue;
    observedHours += 1;
    if (values.filter((value) => value! >= idleThresholdPct).length >= 2) overlapHours += 1;
  }
  return { observedHours, overlapHours };
}

/** Time-slicing's rule as written in timeslice.ts's header, on the overlap by definition. */
function timeSliceByDefinition(idleThresholdPct: number, maxShare: number): Admission {
  return (members, candidate) => {
    const all = [...members, candidate];
    const total = candidate.memoryTotalMiB;
    if (total === null || all.reduce((sum, member) => sum + member.vram.requiredMiB!, 0) > total) return false;
    const overlap = overlapByDefinition(all, idleThresholdPct);
    return overlap.observedHours > 0 && overlap.overlapHours / overlap.observedHours <= maxShare;
  };
}

/** MPS's rule as written in mps.ts's header: memory split evenly, summed p95 compute under the limit. */
function mpsByDefinition(limitPct: number): Admission {
  return (members, candidate) => {
    const all = [...members, candidate];
    const total = candidate.memoryTotalMiB;
    if (total === null) return false;
    const perReplica = Math.floor(total / all.length);
    if (all.some((member) => (member.vram.requiredMiB ?? Infinity) > perReplica)) return false;
    return all.reduce((sum, member) => sum + (member.compute.p95Pct ?? Infinity), 0) <= limitPct;
  };
}

/**
 * Random busy hours, VRAM and p95 compute on two GPU models. Half the units are observed in
 * every hour (time-slicing counts those with bits), the others miss some hours.
 */
const week = fc.oneof(
  fc.array(fc.constantFrom<number | null>(0, 0, 0, 3, 60), { minLength: 168, maxLength: 168 }),
  fc.array(fc.constantFrom<number | null>(0, 0, 0, 3, 60, null), { minLength: 168, maxLength: 168 }),
);
const fleet = fc.array(
  fc.record({
    model: fc.constantFrom('h200-sxm-141gb', 'h100-sxm-80gb'),
    requiredGiB: fc.integer({ min: 1, max: 90 }),
    p95: fc.double({ min: 0, max: 100, noNaN: true }),
    hours: week,
  }),
  { maxLength: 40 },
).map((rows) => rows.map((row, index) => unit({
  id: `u${String(index).padStart(2, '0')}`,
  modelKey: row.model,
  memoryTotalMiB: row.model === 'h100-sxm-80gb' ? 81559 : 143771,
  vram: { peakMiB: row.requiredGiB * GIB, p95MiB: row.requiredGiB * GIB, requiredMiB: row.requiredGiB * GIB, basis: 'measured' },
  compute: { basis: 'sm-active', meanPct: row.p95 / 2, p95Pct: row.p95, busyFraction: 0.5, bound: 'unknown' },
  hourOfWeekPct: row.hours,
})));

const membersOf = (groups: readonly { members: readonly DemandUnit[] }[]): string[][] => groups.map((group) => group.members.map((member) => member.id));

describe('the sharing strategies group as their rules define', () => {
  it('overlapOf counts the hours the definition counts, whether every hour was observed or not', () => {
    fc.assert(fc.property(fleet, fc.constantFrom(0, 3, 5, 60), (units, idleThresholdPct) => {
      expect(overlapOf(units, idleThresholdPct)).toEqual(overlapByDefinition(units, idleThresholdPct));
      // Pairs too: most of the units of a fleet miss some hour, so the whole fleet observes none.
      for (let at = 1; at < units.length; at += 1) {
        const pair = [units[at - 1]!, units[at]!];
        expect(overlapOf(pair, idleThresholdPct)).toEqual(overlapByDefinition(pair, idleThresholdPct));
      }
    }), { numRuns: 200 });
  });

  it('time-slicing makes the groups first fit makes with its rule written out', () => {
    const settings = options({ timeSliceMaxOverlapShare: 0.3 });
    fc.assert(fc.property(fleet, (units) => {
      const pool = units.filter((candidate) => shareable(candidate) && candidate.hourOfWeekPct !== null);
      const expected = membersOf(groupUnits(pool, timeSliceByDefinition(settings.idleThresholdPct, settings.timeSliceMaxOverlapShare), false));
      expect(timeSlicing(units, settings).recommendations.map((recommendation) => recommendation.targets)).toEqual(expected);
    }), { numRuns: 200 });
  });

  it('MPS makes the groups first fit makes with its rule written out', () => {
    const settings = options({ mpsComputeLimitPct: 80 });
    fc.assert(fc.property(fleet, (units) => {
      const expected = membersOf(groupUnits(units.filter(shareable), mpsByDefinition(settings.mpsComputeLimitPct), false));
      expect(mps(units, settings).recommendations.map((recommendation) => recommendation.targets)).toEqual(expected);
    }), { numRuns: 200 });
  });
});

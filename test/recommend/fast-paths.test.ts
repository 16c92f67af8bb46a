/**
 * Shortcuts taken for fleet-sized inputs must give the answers of the plain definitions, to the
 * last digit: prices formatted without ICU. Each
 * plain definition is written out here and compared on random inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixedEnUs, money } from '../../src/recommend/units.js';

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


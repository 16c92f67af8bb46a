import { describe, expect, it } from 'vitest';
import { enUsNumberFormat } from '../../../src/support/text/en-us-number-format.js';

describe('enUsNumberFormat', () => {
  it('formats as en-US with the fraction digits asked for', () => {
    expect(enUsNumberFormat(2, 2).format(1234567.891)).toBe('1,234,567.89');
    expect(enUsNumberFormat(0, 0).format(1234.5)).toBe('1,235'); // half away from zero
    // Up to 3 decimals, none forced: a setting as given.
    expect(enUsNumberFormat(0, 3).format(2.5)).toBe('2.5');
    expect(enUsNumberFormat(0, 3).format(5)).toBe('5');
    expect(enUsNumberFormat(0, 3).format(1 / 3)).toBe('0.333');
  });

  it('makes one formatter per pair of bounds, and tells pairs apart', () => {
    expect(enUsNumberFormat(1, 1)).toBe(enUsNumberFormat(1, 1));
    expect(enUsNumberFormat(0, 3)).not.toBe(enUsNumberFormat(3, 3));
    expect(enUsNumberFormat(3, 3).format(2.5)).toBe('2.500');
    expect(enUsNumberFormat(20, 20).resolvedOptions().minimumFractionDigits).toBe(20);
    expect(enUsNumberFormat(0, 1).resolvedOptions()).toMatchObject({ minimumFractionDigits: 0, maximumFractionDigits: 1 });
  });

  it('refuses bounds Intl refuses', () => {
    expect(() => enUsNumberFormat(3, 1)).toThrow(RangeError);
    expect(() => enUsNumberFormat(0, 101)).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { cpuCores, memoryMiB, parseQuantity } from '../../../../src/sources/formats/kubernetes/quantity.js';

describe('Kubernetes quantities', () => {
  it.each<[unknown, number]>([
    ['1', 1],
    [1, 1],
    ['500m', 0.5],
    ['0.5', 0.5],
    ['.5', 0.5],
    ['2.', 2],
    ['+3', 3],
    ['-1', -1],
    ['1k', 1_000],
    ['1M', 1_000_000],
    ['1G', 1e9],
    ['1T', 1e12],
    ['1P', 1e15],
    // `E` alone is exa; `E` or `e` followed by digits is an exponent.
    ['2E', 2e18],
    ['1e3', 1_000],
    ['1E3', 1_000],
    ['15e-1', 1.5],
    ['1Ki', 1024],
    ['512Mi', 512 * 2 ** 20],
    ['2Gi', 2 * 2 ** 30],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['1Ti', 2 ** 40],
    ['1Pi', 2 ** 50],
    ['1Ei', 2 ** 60],
  ])('reads %j as %d', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 9);
  });

  it.each<unknown>(['', 'abc', '1KiB', '1 Gi', '1mi', '1ki', '1K', 'Gi', '1e', '1.2.3', null, true, {}, Number.NaN, Number.POSITIVE_INFINITY])(
    'rejects %j',
    (text) => {
      expect(parseQuantity(text)).toBeUndefined();
    },
  );

  it('gives CPU in cores and memory in MiB', () => {
    expect(cpuCores('250m')).toBe(0.25);
    expect(cpuCores('16')).toBe(16);
    expect(memoryMiB('64Gi')).toBe(65_536);
    expect(memoryMiB('380583936Ki')).toBe(371_664); // 380583936 / 1024
    // Decimal suffixes are powers of ten: 1G = 10^9 bytes = 953.674... MiB.
    expect(memoryMiB('1G')).toBeCloseTo(1e9 / 2 ** 20, 9);
    expect(memoryMiB('oops')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { LargestK } from '../../../src/analysis/stats/largest-k.js';

describe('LargestK', () => {
  it('keeps the K largest keys with their items and remembers the largest it let go', () => {
    const largest = new LargestK<string>(3);
    for (const [key, item] of [[5, 'a'], [1, 'b'], [9, 'c'], [7, 'd'], [3, 'e'], [8, 'f']] as const) largest.offer(key, item);
    // kept: 9 c, 8 f, 7 d; let go: 5 (pushed out by 8), 1, 3 -> largest dropped 5
    expect([...largest.entries()].sort((a, b) => b.key - a.key)).toEqual([
      { key: 9, item: 'c' }, { key: 8, item: 'f' }, { key: 7, item: 'd' },
    ]);
    expect(largest.largestDroppedKey).toBe(5);
    expect(largest.size).toBe(3);
  });

  it('has dropped nothing while under capacity', () => {
    const largest = new LargestK<null>(4);
    largest.offer(1, null);
    expect(largest.largestDroppedKey).toBe(-Infinity);
  });

  it('stays at capacity', () => {
    const largest = new LargestK<number>(16);
    for (let i = 0; i < 10_000; i += 1) largest.offer((i * 37) % 1000, i);
    expect(largest.size).toBe(16);
    expect(Math.min(...largest.entries().map((entry) => entry.key))).toBeGreaterThanOrEqual(largest.largestDroppedKey);
  });
});

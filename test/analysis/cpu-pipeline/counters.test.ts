import { describe, expect, it } from 'vitest';
import { CounterTable } from '../../../src/analysis/cpu-pipeline/counters.js';

describe('counter increase', () => {
  it('adds the deltas between readings and keeps the times of the first and last', () => {
    const table = new CounterTable();
    table.add('c', 0, 100);
    table.add('c', 10_000, 130);
    table.add('c', 20_000, 150);
    // (130 - 100) + (150 - 130) = 50 from 0 to 20 s.
    expect(table.get('c')).toEqual({ increase: 50, firstMs: 0, lastMs: 20_000, readings: 3, resets: 0 });
  });

  it('takes a counter that goes down as restarted from 0', () => {
    const table = new CounterTable();
    table.add('c', 0, 100);
    table.add('c', 10_000, 120);
    table.add('c', 20_000, 15);
    // +20, then 15 < 120: the counter restarted, +15. Increase 35, not 35 - 120.
    expect(table.get('c')).toMatchObject({ increase: 35, resets: 1 });
  });

  it('ignores a reading at or before the last one (a scrape read twice)', () => {
    const table = new CounterTable();
    table.add('c', 0, 100);
    table.add('c', 10_000, 120);
    table.add('c', 10_000, 120);
    table.add('c', 5_000, 110);
    expect(table.get('c')).toMatchObject({ increase: 20, readings: 2 });
  });

  it('holds a single reading as no increase yet, and nothing for a series never read', () => {
    const table = new CounterTable();
    table.add('c', 0, 100);
    expect(table.get('c')).toEqual({ increase: 0, firstMs: 0, lastMs: 0, readings: 1, resets: 0 });
    expect(table.get('missing')).toBeUndefined();
  });
});

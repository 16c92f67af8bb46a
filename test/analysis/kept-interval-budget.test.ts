import { describe, expect, it } from 'vitest';
import { KeptIntervalBudget, MIN_KEPT_PER_SERIES, type KeptIntervals } from '../../src/analysis/kept-interval-budget.js';

/** A series that remembers what it is told to, and obeys cuts. */
class Member implements KeptIntervals {
  keptIntervalCount = 0;
  capacity: number;

  constructor(private readonly budget: KeptIntervalBudget) {
    this.capacity = budget.capacity;
    budget.join(this);
  }

  remember(intervals: number): void {
    for (let i = 0; i < intervals && this.keptIntervalCount < this.capacity; i += 1) {
      this.keptIntervalCount += 1;
      this.budget.added();
    }
  }

  keepLongest(capacity: number): void {
    this.capacity = capacity;
    this.keptIntervalCount = Math.min(this.keptIntervalCount, capacity);
  }
}

describe('KeptIntervalBudget', () => {
  it('leaves the series alone while they fit', () => {
    const budget = new KeptIntervalBudget(1000, 400);
    const members = [new Member(budget), new Member(budget)];
    for (const member of members) member.remember(400);
    expect(budget.keptCount).toBe(800);
    expect(members.map((member) => member.capacity)).toEqual([400, 400]);
  });

  it('cuts every series to the largest capacity at which all fit in half the budget, once they pass it', () => {
    // Three long series of 300 and one short of 50: the 1,001st interval makes a cut. Half the
    // budget is 500: 3 x 150 + 50 = 500 fits, 3 x 151 + 50 does not.
    const budget = new KeptIntervalBudget(1000, 400);
    const long = [new Member(budget), new Member(budget), new Member(budget)];
    const short = new Member(budget);
    short.remember(50);
    for (const member of long) member.remember(300);
    expect(budget.keptCount).toBe(950);
    long[0]!.remember(51);
    expect(budget.capacity).toBe(150);
    expect(long.map((member) => member.keptIntervalCount)).toEqual([150, 150, 150]);
    expect(short.keptIntervalCount).toBe(50);
    expect(budget.keptCount).toBe(500);
    // A series that joins later starts at the lowered capacity.
    expect(new Member(budget).capacity).toBe(150);
  });

  it('cuts no lower than MIN_KEPT_PER_SERIES, and no more once there: memory then grows with series alone', () => {
    const budget = new KeptIntervalBudget(100, 64);
    const members = Array.from({ length: 20 }, () => new Member(budget));
    for (const member of members) member.remember(64);
    expect(budget.capacity).toBe(MIN_KEPT_PER_SERIES);
    expect(members.every((member) => member.keptIntervalCount <= MIN_KEPT_PER_SERIES)).toBe(true);
    expect(budget.keptCount).toBe(20 * MIN_KEPT_PER_SERIES);
  });

  it('lets its series go when released', () => {
    const budget = new KeptIntervalBudget(40, 32);
    const released = new Member(budget);
    released.remember(32);
    budget.release();
    expect(budget.keptCount).toBe(0);
    // The series that join after are cut; the released one is not.
    const later = [new Member(budget), new Member(budget)];
    for (const member of later) member.remember(32);
    expect(later.map((member) => member.capacity)).toEqual([MIN_KEPT_PER_SERIES, MIN_KEPT_PER_SERIES]);
    expect(released.capacity).toBe(32);
  });
});

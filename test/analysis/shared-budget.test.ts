import { describe, expect, it } from 'vitest';
import { SharedBudget, type BudgetMember } from '../../src/analysis/shared-budget.js';

const FLOOR = 16;

/** A store that holds what it is told to, up to its capacity, and obeys cuts (reporting what it gives back, as a timeline does). */
class Member implements BudgetMember {
  budgetedCount = 0;
  capacity: number;

  constructor(private readonly budget: SharedBudget) {
    this.capacity = budget.capacity;
    budget.join(this);
  }

  remember(items: number): void {
    for (let i = 0; i < items && this.budgetedCount < this.capacity; i += 1) {
      this.budgetedCount += 1;
      this.budget.changed(1);
    }
  }

  limitTo(capacity: number): void {
    this.capacity = capacity;
    const kept = Math.min(this.budgetedCount, capacity);
    this.budget.changed(kept - this.budgetedCount);
    this.budgetedCount = kept;
  }
}

describe('SharedBudget', () => {
  it('leaves the series alone while they fit', () => {
    const budget = new SharedBudget(1000, 400, FLOOR);
    const members = [new Member(budget), new Member(budget)];
    for (const member of members) member.remember(400);
    expect(budget.count).toBe(800);
    expect(members.map((member) => member.capacity)).toEqual([400, 400]);
  });

  it('cuts every series to the largest capacity at which all fit in half the budget, once they pass it', () => {
    // Three long series of 300 and one short of 50: the 1,001st interval makes a cut. Half the
    // budget is 500: 3 x 150 + 50 = 500 fits, 3 x 151 + 50 does not.
    const budget = new SharedBudget(1000, 400, FLOOR);
    const long = [new Member(budget), new Member(budget), new Member(budget)];
    const short = new Member(budget);
    short.remember(50);
    for (const member of long) member.remember(300);
    expect(budget.count).toBe(950);
    long[0]!.remember(51);
    expect(budget.capacity).toBe(150);
    expect(long.map((member) => member.budgetedCount)).toEqual([150, 150, 150]);
    expect(short.budgetedCount).toBe(50);
    expect(budget.count).toBe(500);
    // A series that joins later starts at the lowered capacity.
    expect(new Member(budget).capacity).toBe(150);
  });

  it('cuts no lower than its floor, and no more once there: memory then grows with members alone', () => {
    const budget = new SharedBudget(100, 64, FLOOR);
    const members = Array.from({ length: 20 }, () => new Member(budget));
    for (const member of members) member.remember(64);
    expect(budget.capacity).toBe(FLOOR);
    expect(members.every((member) => member.budgetedCount <= FLOOR)).toBe(true);
    expect(budget.count).toBe(20 * FLOOR);
  });

  it('lets its members go when released, and counts nothing after', () => {
    const budget = new SharedBudget(40, 32, FLOOR);
    const released = new Member(budget);
    released.remember(32);
    budget.release();
    expect(budget.count).toBe(0);
    const later = [new Member(budget), new Member(budget)];
    for (const member of later) member.remember(32);
    expect(budget.count).toBe(0);
    expect([released, ...later].map((member) => member.capacity)).toEqual([32, 32, 32]);
  });
});

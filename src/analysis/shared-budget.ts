/**
 * A limit shared by the many small stores of one kind that a fleet's series hold: the longest
 * intervals each series remembers (./series.ts) and the buckets of each series' timeline
 * (./timeline-buckets.ts). Each store may grow to a capacity, the same for all of them, far
 * above what a short series needs, and many series at that capacity would hold hundreds of
 * megabytes (bench/MEASUREMENTS.md): memory must grow with series, not samples.
 *
 * The budget counts what all members hold. Once that passes the limit, the capacity is lowered
 * for every member, to the largest at which all of them together would hold at most half the
 * limit, never below a floor (so that a fleet of very many series is held to the floor each:
 * memory then grows with series alone). Each member then gives back what it holds beyond the
 * new capacity, its own way.
 */

export interface BudgetMember {
  /** What it holds now, in the budget's unit. */
  readonly budgetedCount: number;
  /** Holds at most `capacity` from now on, giving back what it holds beyond that. */
  limitTo(capacity: number): void;
}

export class SharedBudget {
  private members: BudgetMember[] = [];
  private held = 0;
  private perMember: number;
  private cutting = false;
  private released = false;

  /** `capacity`: what a member may hold before any cut; `floor`: the least a cut leaves it. */
  constructor(
    readonly limit: number,
    capacity: number,
    readonly floor: number,
  ) {
    this.perMember = capacity;
  }

  /** What a member may hold now (a new member starts with this). */
  get capacity(): number {
    return this.perMember;
  }

  /** What all members hold now. */
  get count(): number {
    return this.held;
  }

  join(member: BudgetMember): void {
    if (!this.released) this.members.push(member);
  }

  /** A member holds `delta` more (fewer, when negative). */
  changed(delta: number): void {
    if (this.released || this.cutting) return;
    this.held += delta;
    if (this.held > this.limit && this.perMember > this.floor) this.cut();
  }

  /** The stream is over: the members are let go (the budget must not keep them alive) and no longer counted. */
  release(): void {
    this.released = true;
    this.members = [];
    this.held = 0;
  }

  private cut(): void {
    const { members } = this;
    const heldAt = (capacity: number): number => {
      let total = 0;
      for (const member of members) total += Math.min(member.budgetedCount, capacity);
      return total;
    };
    // The largest capacity below the current one at which all members fit in half the limit.
    const target = Math.floor(this.limit / 2);
    let low = this.floor;
    let high = this.perMember - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (heldAt(middle) <= target) low = middle;
      else high = middle - 1;
    }
    this.perMember = low;
    // Members report what they give back as changes: counted here once, afterwards.
    this.cutting = true;
    let held = 0;
    for (const member of members) {
      member.limitTo(low);
      held += member.budgetedCount;
    }
    this.cutting = false;
    this.held = held;
  }
}

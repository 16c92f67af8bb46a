/**
 * The slot keeping of the small caches the text readers hold per column or per host
 * (SpanCache, DeviceRefs, RepeatedRun): which entry to compare first, and where a new entry
 * goes. The caches keep their entries in arrays of their own, indexed by these slots, and
 * compare them themselves: each has its own key shape, and a comparison passed in as a
 * function would cost a call per probe on the row loop of a long log.
 *
 * Probing starts at the slot after the last hit: the GPUs of a `-l` log come round in the
 * same order every tick, so the first probe usually hits. Storing fills the free slots in
 * turn, then replaces entries round-robin, so odd input cannot grow a cache past its
 * capacity.
 *
 *   for (let slot = ring.firstProbe(); slot !== -1; slot = ring.nextProbe(slot)) {
 *     if (keys[slot] matches) { ring.hit(slot); return values[slot]; }
 *   }
 *   const slot = ring.store();
 *   keys[slot] = key; values[slot] = value;
 */
export class RingSlots {
  /** Slots holding an entry: 0 to size - 1. */
  private size = 0;
  /** The slot that hit, or was stored, last; probing ends on it. */
  private lastHit = 0;
  /** Once full, the slot the next entry replaces. */
  private nextSlot = 0;

  constructor(readonly capacity: number) {}

  /** The first slot to compare (the one after the last hit), or -1 while empty. */
  firstProbe(): number {
    const { size } = this;
    if (size === 0) return -1;
    return this.lastHit + 1 === size ? 0 : this.lastHit + 1;
  }

  /** The slot to compare after `slot`, or -1 once every slot has been compared. */
  nextProbe(slot: number): number {
    if (slot === this.lastHit) return -1;
    return slot + 1 === this.size ? 0 : slot + 1;
  }

  /** Records that the entry in `slot` matched: the next probe starts after it. */
  hit(slot: number): void {
    this.lastHit = slot;
  }

  /** The slot a new entry is to be written into (a free one, else the oldest stored), recorded as the last hit. */
  store(): number {
    let slot: number;
    if (this.size < this.capacity) {
      slot = this.size;
      this.size += 1;
    } else {
      slot = this.nextSlot;
      this.nextSlot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
    this.lastHit = slot;
    return slot;
  }
}

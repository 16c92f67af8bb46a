/**
 * The K entries with the largest keys seen so far, each with a payload, in a min-heap of fixed
 * capacity: memory is bounded by K whatever the number of offers.
 *
 * Used to remember the longest sample intervals of a series together with the sample they
 * weighted, so that the part of a gap beyond the cap can be taken back at the end. Anything
 * pushed out (or never let in) is summarised by `largestDroppedKey`: when that key is above
 * the cap, some gap could not be corrected and the caller says so.
 *
 * Layout: the keys live in an array of doubles (grown as entries come, so a short series
 * holds a few numbers, not K) beside an array of the payloads, moved in step. An offer runs
 * once per sample: sifting unboxed numbers allocates nothing, where a heap of {key, item}
 * objects allocated one per entry let in. Callers that build a payload per
 * offer ask `admits` first and build it only for keys that get in.
 */
export interface KeyedEntry<T> {
  key: number;
  item: T;
}

export class LargestK<T> {
  private keys: number[] = [];
  private items: T[] = [];
  private droppedMax = -Infinity;
  private kept: number;

  constructor(capacity: number) {
    checkCapacity(capacity);
    this.kept = capacity;
  }

  /** Entries kept at most. */
  get capacity(): number {
    return this.kept;
  }

  get size(): number {
    return this.items.length;
  }

  /** The largest key that was offered but is not kept (-Infinity when nothing was dropped). */
  get largestDroppedKey(): number {
    return this.droppedMax;
  }

  /**
   * The item an admitted offer would push out: the one with the smallest key, when at capacity
   * (undefined below it, where nothing is pushed out). A caller that stores payloads in slots of
   * its own keeps items as slot numbers and writes the new payload into this one's slot.
   */
  get itemPushedOut(): T | undefined {
    return this.items.length < this.kept ? undefined : this.items[0];
  }

  /**
   * Whether an offer of `key` would be kept. When it would not, the key counts as offered and
   * dropped (as `offer` would count it), so the caller may skip the offer and its payload.
   */
  admits(key: number): boolean {
    if (this.items.length < this.kept || !(key <= this.keys[0]!)) return true;
    this.droppedMax = Math.max(this.droppedMax, key);
    return false;
  }

  offer(key: number, item: T): void {
    const size = this.items.length;
    if (size < this.kept) {
      this.keys.push(key);
      this.items.push(item);
      this.siftUp(size);
      return;
    }
    const smallest = this.keys[0]!;
    if (key <= smallest) {
      this.droppedMax = Math.max(this.droppedMax, key);
      return;
    }
    this.droppedMax = Math.max(this.droppedMax, smallest);
    this.keys[0] = key;
    this.items[0] = item;
    this.siftDown(0);
  }

  /**
   * Lowers the capacity to `capacity`, dropping the entries with the smallest keys (counted as
   * dropped, as if never let in); the items of the entries still kept, where `renumber` is given,
   * become what it returns for them (a caller keeping payloads in slots of its own compacts them).
   */
  shrink(capacity: number, renumber?: (item: T) => T): void {
    checkCapacity(capacity);
    if (capacity > this.kept) throw new RangeError(`capacity can only be lowered: ${this.kept} to ${capacity}`);
    this.kept = capacity;
    const { keys, items } = this;
    while (items.length > capacity) {
      this.droppedMax = Math.max(this.droppedMax, keys[0]!);
      const last = items.length - 1;
      keys[0] = keys[last]!;
      items[0] = items[last]!;
      keys.length = last;
      items.length = last;
      this.siftDown(0);
    }
    // Copies, so that the arrays' spare room goes too: shrinking is how a caller gives memory back.
    this.keys = keys.slice();
    this.items = renumber === undefined ? items.slice() : items.map((item) => renumber(item));
  }

  /** The kept entries, in no particular order (the heap's: the same for the same offers). */
  entries(): KeyedEntry<T>[] {
    return this.items.map((item, position) => ({ key: this.keys[position]!, item }));
  }

  private swap(a: number, b: number): void {
    const keys = this.keys;
    const items = this.items;
    const key = keys[a]!;
    keys[a] = keys[b]!;
    keys[b] = key;
    const item = items[a]!;
    items[a] = items[b]!;
    items[b] = item;
  }

  private siftUp(start: number): void {
    const keys = this.keys;
    let child = start;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (keys[parent]! <= keys[child]!) return;
      this.swap(parent, child);
      child = parent;
    }
  }

  private siftDown(start: number): void {
    const keys = this.keys;
    const size = this.items.length;
    let parent = start;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < size && keys[left]! < keys[smallest]!) smallest = left;
      if (right < size && keys[right]! < keys[smallest]!) smallest = right;
      if (smallest === parent) return;
      this.swap(parent, smallest);
      parent = smallest;
    }
  }
}

function checkCapacity(capacity: number): void {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
}

/**
 * The K entries with the largest keys seen so far, each with a payload, in a min-heap of fixed
 * capacity: memory is bounded by K whatever the number of offers.
 *
 * Used to remember the longest sample intervals of a series together with the sample they
 * weighted, so that the part of a gap beyond the cap can be taken back at the end. Anything
 * pushed out (or never let in) is summarised by `largestDroppedKey`: when that key is above
 * the cap, some gap could not be corrected and the caller says so.
 */
export interface KeyedEntry<T> {
  key: number;
  item: T;
}

export class LargestK<T> {
  private readonly heap: KeyedEntry<T>[] = [];
  private droppedMax = -Infinity;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.heap.length;
  }

  /** The largest key that was offered but is not kept (-Infinity when nothing was dropped). */
  get largestDroppedKey(): number {
    return this.droppedMax;
  }

  offer(key: number, item: T): void {
    if (this.heap.length < this.capacity) {
      this.heap.push({ key, item });
      this.siftUp(this.heap.length - 1);
      return;
    }
    const smallest = this.heap[0]!;
    if (key <= smallest.key) {
      this.droppedMax = Math.max(this.droppedMax, key);
      return;
    }
    this.droppedMax = Math.max(this.droppedMax, smallest.key);
    this.heap[0] = { key, item };
    this.siftDown(0);
  }

  /** The kept entries, in no particular order. */
  entries(): readonly KeyedEntry<T>[] {
    return this.heap;
  }

  private siftUp(start: number): void {
    const heap = this.heap;
    let child = start;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (heap[parent]!.key <= heap[child]!.key) return;
      [heap[parent], heap[child]] = [heap[child]!, heap[parent]!];
      child = parent;
    }
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    let parent = start;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < heap.length && heap[left]!.key < heap[smallest]!.key) smallest = left;
      if (right < heap.length && heap[right]!.key < heap[smallest]!.key) smallest = right;
      if (smallest === parent) return;
      [heap[parent], heap[smallest]] = [heap[smallest]!, heap[parent]!];
      parent = smallest;
    }
  }
}

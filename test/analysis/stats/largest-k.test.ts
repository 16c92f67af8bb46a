import fc from 'fast-check';
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

  it('admits exactly the keys an offer would keep, and counts the others as dropped', () => {
    // capacity 2, holding 5 and 7: 5 is not admitted (ties stay out), 6 is; 4 counts as dropped.
    const largest = new LargestK<string>(2);
    largest.offer(5, 'a');
    largest.offer(7, 'b');
    expect(largest.admits(5)).toBe(false);
    expect(largest.admits(4)).toBe(false);
    expect(largest.largestDroppedKey).toBe(5);
    expect(largest.admits(6)).toBe(true);
    expect(largest.largestDroppedKey).toBe(5);
  });

  it('names the item an admitted offer would push out: none below capacity, then the smallest key\'s', () => {
    // series.ts keeps row numbers as items and writes a new interval's sample into this row.
    const largest = new LargestK<string>(2);
    largest.offer(5, 'a');
    expect(largest.itemPushedOut).toBeUndefined();
    largest.offer(7, 'b');
    expect(largest.itemPushedOut).toBe('a');
    largest.offer(9, 'c'); // pushes out 5 'a'; kept 7 'b', 9 'c'
    expect(largest.itemPushedOut).toBe('b');
    expect(largest.entries().map(({ item }) => item).sort()).toEqual(['b', 'c']);
  });

  it('shrinks to a lower capacity by letting its smallest keys go, and keeps no more than that after', () => {
    const largest = new LargestK<string>(4);
    for (const [key, item] of [[5, 'a'], [1, 'b'], [9, 'c'], [7, 'd']] as const) largest.offer(key, item);
    largest.shrink(2);
    // kept: 9 c, 7 d; let go: 1 and 5 -> largest dropped 5
    expect(largest.capacity).toBe(2);
    expect(largest.entries().sort((a, b) => b.key - a.key)).toEqual([{ key: 9, item: 'c' }, { key: 7, item: 'd' }]);
    expect(largest.largestDroppedKey).toBe(5);
    largest.offer(8, 'e'); // pushes out 7
    expect(largest.entries().map(({ key }) => key).sort()).toEqual([8, 9]);
    expect(largest.largestDroppedKey).toBe(7);
  });

  it('renumbers the items it keeps when it shrinks, and refuses to grow', () => {
    const largest = new LargestK<number>(3);
    for (const [key, row] of [[4, 0], [6, 1], [2, 2]]) largest.offer(key!, row!);
    const renumbered: number[] = [];
    largest.shrink(2, (row) => {
      renumbered.push(row);
      return renumbered.length - 1;
    });
    expect(renumbered.sort()).toEqual([0, 1]);
    expect(largest.entries().map(({ item }) => item).sort()).toEqual([0, 1]);
    expect(() => largest.shrink(3)).toThrow(RangeError);
    expect(() => largest.shrink(0)).toThrow(RangeError);
  });

  it('keeps, shrunk part way through, the largest keys a heap of the lower capacity would have kept', () => {
    fc.assert(fc.property(fc.integer({ min: 2, max: 40 }), fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 300 }), fc.nat(), fc.nat(), (capacity, keys, cutAt, lowerBy) => {
      const lower = 1 + (lowerBy % (capacity - 1));
      const cut = keys.length === 0 ? 0 : cutAt % keys.length;
      const shrunk = new LargestK<number>(capacity);
      const small = new LargestK<number>(lower);
      keys.forEach((key, item) => {
        if (item === cut) shrunk.shrink(lower);
        if (shrunk.admits(key)) shrunk.offer(key, item);
        small.offer(key, item);
      });
      if (keys.length === 0) shrunk.shrink(lower);
      const sortedKeys = (heap: LargestK<number>): number[] => heap.entries().map(({ key }) => key).sort((a, b) => a - b);
      expect(sortedKeys(shrunk)).toEqual(sortedKeys(small));
      expect(shrunk.largestDroppedKey).toBe(small.largestDroppedKey);
    }));
  });

  it('keeps the same entries in the same order as the heap of entry objects it replaced', () => {
    // The order of entries() is the order in which series.ts takes weight back: float sums depend on it.
    fc.assert(fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 300 }), (capacity, keys) => {
      const largest = new LargestK<number>(capacity);
      const reference = new ObjectHeap(capacity);
      keys.forEach((key, item) => {
        if (largest.admits(key)) largest.offer(key, item);
        reference.offer(key, item);
      });
      expect(largest.entries()).toEqual(reference.heap);
      expect(largest.largestDroppedKey).toBe(reference.droppedMax);
    }));
  });
});

/** The former implementation, kept as the definition of the heap order. */
class ObjectHeap {
  readonly heap: { key: number; item: number }[] = [];
  droppedMax = -Infinity;

  constructor(private readonly capacity: number) {}

  offer(key: number, item: number): void {
    const heap = this.heap;
    if (heap.length < this.capacity) {
      heap.push({ key, item });
      for (let child = heap.length - 1; child > 0;) {
        const parent = (child - 1) >> 1;
        if (heap[parent]!.key <= heap[child]!.key) break;
        [heap[parent], heap[child]] = [heap[child]!, heap[parent]!];
        child = parent;
      }
      return;
    }
    if (key <= heap[0]!.key) {
      this.droppedMax = Math.max(this.droppedMax, key);
      return;
    }
    this.droppedMax = Math.max(this.droppedMax, heap[0]!.key);
    heap[0] = { key, item };
    for (let parent = 0; ;) {
      const left = 2 * parent + 1;
      let smallest = parent;
      if (left < heap.length && heap[left]!.key < heap[smallest]!.key) smallest = left;
      if (left + 1 < heap.length && heap[left + 1]!.key < heap[smallest]!.key) smallest = left + 1;
      if (smallest === parent) return;
      [heap[parent], heap[smallest]] = [heap[smallest]!, heap[parent]!];
      parent = smallest;
    }
  }
}

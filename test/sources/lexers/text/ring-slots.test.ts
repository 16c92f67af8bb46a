/**
 * RingSlots: the probe order and replacement of the small caches of the text readers
 * (SpanCache, DeviceRefs, RepeatedRun).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RingSlots } from '../../../../src/sources/lexers/text/ring-slots.js';

/** The slots a lookup compares, in order. */
function probeOrder(ring: RingSlots): number[] {
  const slots: number[] = [];
  for (let slot = ring.firstProbe(); slot !== -1; slot = ring.nextProbe(slot)) slots.push(slot);
  return slots;
}

/** A cache of numbers on RingSlots, as SpanCache uses it; records the slots each lookup compared. */
function ringCache(capacity: number) {
  const ring = new RingSlots(capacity);
  const keys: number[] = [];
  return (key: number): number[] => {
    const compared: number[] = [];
    for (let slot = ring.firstProbe(); slot !== -1; slot = ring.nextProbe(slot)) {
      compared.push(slot);
      if (keys[slot] === key) {
        ring.hit(slot);
        return compared;
      }
    }
    keys[ring.store()] = key;
    return compared;
  };
}

/** The same cache as each of the three was written before RingSlots, the reference. */
function inlineCache(capacity: number) {
  const keys: number[] = [];
  let lastHit = 0;
  let nextSlot = 0;
  return (key: number): number[] => {
    const compared: number[] = [];
    const count = keys.length;
    for (let probe = 0, slot = lastHit; probe < count; probe += 1) {
      slot = slot + 1 === count ? 0 : slot + 1;
      compared.push(slot);
      if (keys[slot] === key) {
        lastHit = slot;
        return compared;
      }
    }
    const slot = count < capacity ? count : nextSlot;
    if (count >= capacity) nextSlot = (nextSlot + 1) % capacity;
    keys[slot] = key;
    lastHit = slot;
    return compared;
  };
}

describe('RingSlots', () => {
  it('probes nothing while empty', () => {
    expect(probeOrder(new RingSlots(4))).toEqual([]);
  });

  it('fills free slots in turn and probes from the one after the last stored or hit', () => {
    const ring = new RingSlots(4);
    expect([ring.store(), ring.store(), ring.store()]).toEqual([0, 1, 2]);
    // Slot 2 was stored last: the next GPU of a tick is expected in the slot after it (wrapping).
    expect(probeOrder(ring)).toEqual([0, 1, 2]);
    ring.hit(0);
    expect(probeOrder(ring)).toEqual([1, 2, 0]);
    ring.hit(1);
    expect(probeOrder(ring)).toEqual([2, 0, 1]);
  });

  it('once full, replaces the slots round-robin, oldest first, so it never grows past its capacity', () => {
    const ring = new RingSlots(3);
    expect([ring.store(), ring.store(), ring.store()]).toEqual([0, 1, 2]);
    ring.hit(1);
    expect([ring.store(), ring.store(), ring.store(), ring.store()]).toEqual([0, 1, 2, 0]);
    // Slot 0 was stored last.
    expect(probeOrder(ring)).toEqual([1, 2, 0]);
  });

  it('compares the same slots in the same order as the caches did with the ring written inline', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 60 }), (capacity, keys) => {
      const ring = ringCache(capacity);
      const inline = inlineCache(capacity);
      for (const key of keys) expect(ring(key)).toEqual(inline(key));
    }));
  });
});

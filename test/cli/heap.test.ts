/**
 * Garbage collection around a long read (src/cli/heap.ts). Each test file runs in a process of
 * its own (vitest forks), so the V8 flags set here reach no other file.
 */
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { collectAfterLongRead, tuneHeapsForLargeInput } from '../../src/cli/heap.js';

const nextJob = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('collectAfterLongRead', () => {
  it('does nothing after a short read, and after a long one collects what nothing holds', async () => {
    collectAfterLongRead();
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');

    tuneHeapsForLargeInput();
    // Held only weakly, and past the job that made it (a WeakRef keeps its target alive until then).
    const dropped = new WeakRef({ readings: Array.from({ length: 10_000 }, (_, index) => index) });
    await nextJob();
    collectAfterLongRead();
    await nextJob();
    expect(dropped.deref()).toBeUndefined();
  });
});

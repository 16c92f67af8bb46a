/**
 * Garbage collection tuned for a long read. V8 lets a heap grow to up to four times what its
 * last full collection kept before it collects again. An audit keeps state per GPU and throws
 * away what it read, so on a large input most of that growth is garbage: on a 1 GB scrape log
 * of 10,000 GPUs the peak memory was about 315 MB, and 285 MB with heaps let grow to twice
 * what a collection kept, for a few more full collections (tens of milliseconds each there).
 *
 * Set only once the inputs make a long read (AuditOptions.onLargeInput: 32 MiB in all, one
 * large log or a directory of a thousand host snapshots), not at start: a V8 flag
 * changed at run time makes V8 turn down the code caches compiled under the old flags, Node's
 * own modules' among them, which cost every command about 30 ms of start-up.
 */
import v8 from 'node:v8';

let tuned = false;

export function tuneHeapsForLargeInput(): void {
  if (tuned) return;
  tuned = true;
  v8.setFlagsFromString('--heap-growing-percent=100');
}

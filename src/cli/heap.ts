/**
 * Garbage collection tuned for a long read. V8 lets a heap grow to up to four times what its
 * last full collection kept before it collects again. An audit keeps state per GPU and throws
 * away what it read, so on a large input most of that growth is garbage: heaps let grow to
 * twice what a collection kept lower the peak, for a few more full collections
 * (bench/MEASUREMENTS.md).
 *
 * Set only once the inputs make a long read (AuditOptions.onLargeInput: 32 MiB in all, one
 * large log or a directory of a thousand host snapshots), not at start: a V8 flag
 * changed at run time makes V8 turn down the code caches compiled under the old flags, Node's
 * own modules' among them, which would cost every command start-up time.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

let tuned = false;

export function tuneHeapsForLargeInput(): void {
  if (tuned) return;
  tuned = true;
  v8.setFlagsFromString('--heap-growing-percent=100');
}

/**
 * After a long read, once the analysis has let go of its per-device state (AuditOptions.
 * onAnalysisDone), and again once the planner has let go of what it searched (onPlanDone):
 * one full collection each. V8 sets the heap's next limit from what its last full
 * collection kept, and the last one ran while the analysis state of every device was still
 * held; the report is then built and written under a limit some twice that size. Collected
 * here, the limit follows the smaller heap the report needs, for the price of one collection
 * (bench/MEASUREMENTS.md).
 * Nothing is done after a short read, or where this Node cannot collect on demand.
 */
export function collectAfterLongRead(): void {
  if (!tuned) return;
  collector()?.();
}

let exposedCollector: (() => void) | null | undefined;

/** V8's `gc`, exposed on demand (`--expose-gc` set now gives it to new contexts); null where that fails. */
function collector(): (() => void) | null {
  if (exposedCollector !== undefined) return exposedCollector;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    exposedCollector = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    exposedCollector = null;
  }
  return exposedCollector;
}

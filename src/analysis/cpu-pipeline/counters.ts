/**
 * Increase of cumulative counters over a window, kept in constant memory per series: each
 * reading adds its delta from the previous one, so a file of a million scrapes holds one
 * small record per series.
 *
 * A counter that goes down was restarted (exporter or container restart) from 0: as in
 * Prometheus' `increase()`, the delta is then the new value itself. Readings must arrive in
 * time order per series; one at or before the last reading's time is ignored (a repeated
 * scrape), so a file read twice does not double the increase.
 */

export interface CounterIncrease {
  /** Sum of the deltas between consecutive readings, resets handled. */
  increase: number;
  /** Epoch ms of the first and last reading. */
  firstMs: number;
  lastMs: number;
  /** Readings that entered the increase (the first one included). */
  readings: number;
  resets: number;
}

interface CounterState extends CounterIncrease {
  lastValue: number;
}

export class CounterTable<Key extends string = string> {
  private readonly states = new Map<Key, CounterState>();

  add(key: Key, timeMs: number, value: number): void {
    if (!Number.isFinite(value) || !Number.isFinite(timeMs)) return;
    const state = this.states.get(key);
    if (state === undefined) {
      this.states.set(key, { increase: 0, firstMs: timeMs, lastMs: timeMs, readings: 1, resets: 0, lastValue: value });
      return;
    }
    if (timeMs <= state.lastMs) return;
    if (value >= state.lastValue) {
      state.increase += value - state.lastValue;
    } else {
      state.increase += value;
      state.resets += 1;
    }
    state.lastValue = value;
    state.lastMs = timeMs;
    state.readings += 1;
  }

  get(key: Key): CounterIncrease | undefined {
    const state = this.states.get(key);
    if (state === undefined) return undefined;
    const { increase, firstMs, lastMs, readings, resets } = state;
    return { increase, firstMs, lastMs, readings, resets };
  }

  keys(): IterableIterator<Key> {
    return this.states.keys();
  }

  get size(): number {
    return this.states.size;
  }
}

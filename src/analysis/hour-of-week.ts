/**
 * Time-weighted compute per hour of the local week (GpuEntry.hourOfWeekComputePct): 168 slots,
 * slot 0 = Monday 00:00-01:00 in the report's time zone. A sample's time is split where the
 * local hour changes, so a sample across a DST change puts each part in the hour the wall
 * clock showed (the skipped spring hour gets nothing; the repeated autumn hour gets both).
 * Slots are allocated when first touched; memory is bounded by 168 slots.
 */
import { RUNG_COUNT } from './compute-percent.js';
import { HOURS_PER_WEEK, type ZoneClock } from './zone-clock.js';

const NEGLIGIBLE_WEIGHT_MS = 1e-3;

/** Per slot: weight of each rung, then weighted sum of each rung. */
type Slot = Float64Array;

export class HourOfWeekSlots {
  private readonly slots = new Map<number, Slot>();
  /** The last piece of one local hour met, [start, end) and its slot: consecutive samples mostly fall in it. */
  private pieceStartMs = Number.NaN;
  private pieceEndMs = Number.NaN;
  private pieceSlot: Slot | undefined;

  constructor(readonly clock: ZoneClock) {}

  /** Adds (or with sign -1 takes back) a sample's time with its percent per rung (NaN where none, see computePercents). */
  add(startMs: number, durationMs: number, percents: Float64Array, sign: 1 | -1 = 1): void {
    if (!(durationMs > 0)) return;
    const endMs = startMs + durationMs;
    for (let pieceStart = startMs; pieceStart < endMs;) {
      if (!(pieceStart >= this.pieceStartMs && pieceStart < this.pieceEndMs)) {
        this.pieceStartMs = pieceStart;
        this.pieceEndMs = this.clock.nextHourChange(pieceStart);
        this.pieceSlot = this.slot(this.clock.hourOfWeek(pieceStart));
      }
      const pieceEnd = Math.min(endMs, this.pieceEndMs);
      const slot = this.pieceSlot!;
      const partMs = sign * (pieceEnd - pieceStart);
      for (let rung = 0; rung < RUNG_COUNT; rung += 1) {
        const percent = percents[rung]!;
        if (Number.isNaN(percent)) continue;
        slot[rung]! += partMs;
        slot[RUNG_COUNT + rung]! += partMs * percent;
      }
      pieceStart = pieceEnd;
    }
  }

  merge(other: HourOfWeekSlots): void {
    for (const [hour, theirs] of other.slots) {
      const ours = this.slot(hour);
      theirs.forEach((value, i) => { ours[i]! += value; });
    }
  }

  /** 168 means of the rung (percent), null for hours without weight; null when the rung is -1 or nothing was added. */
  means(rung: number): (number | null)[] | null {
    if (rung < 0 || this.slots.size === 0) return null;
    // Filled from the slots touched (a fleet's worth of devices: no look-up per hour).
    const means = new Array<number | null>(HOURS_PER_WEEK).fill(null);
    for (const [hour, slot] of this.slots) {
      const weight = slot[rung]!;
      if (weight > NEGLIGIBLE_WEIGHT_MS) means[hour] = slot[RUNG_COUNT + rung]! / weight;
    }
    return means;
  }

  private slot(hour: number): Slot {
    let slot = this.slots.get(hour);
    if (slot === undefined) {
      slot = new Float64Array(2 * RUNG_COUNT);
      this.slots.set(hour, slot);
    }
    return slot;
  }
}

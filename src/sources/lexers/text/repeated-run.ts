/**
 * The identity columns of a looped `--query-*` log (name, bus id, uuid, index, driver) print
 * the same text for a GPU on every row. Where such columns stand side by side, their text is
 * compared with the runs seen before as one piece, and on a match what their readers wrote
 * is replayed: one comparison instead of a separator search, a comparison and a reader call
 * per cell.
 *
 * Exact by construction: a run is only replayed for identical text up to and including the
 * ", " that ends it (so the same cells, split and trimmed the same way), only runs whose every
 * cell was readable are remembered, and a run only holds columns whose reader writes one slot
 * of the row's run values of its own that no other column of the header writes. Since rows
 * are reset before reading, those slots hold exactly what the run's readers wrote.
 *
 * Slots of an array rather than named properties: replaying writes one array element per
 * column, where writing properties by a name held in a variable cost V8 a generic (megamorphic)
 * store each, several times as much (bench/MEASUREMENTS.md).
 */
import { detached } from '../../../support/index.js';
import { RingSlots } from './ring-slots.js';

const COMMA = 0x2c;
const SPACE = 0x20;
/** Runs remembered per header (see RingSlots): a host's GPUs, or the MIG instances of a few. */
const CAPACITY = 64;
/** A run of one column saves nothing over reading it. */
const MIN_COLUMNS = 2;

/** Column field -> the slot of the row's run values its reader writes, for the columns that may form a run. */
export type RunnableColumns = Readonly<Record<string, number>>;

export class RepeatedRun {
  private readonly texts: string[] = [];
  private readonly values: unknown[][] = [];
  private readonly ring = new RingSlots(CAPACITY);

  private constructor(
    /** Index of the run's first column. */
    readonly first: number,
    /** Columns in the run. */
    readonly count: number,
    private readonly slots: readonly number[],
  ) {}

  /** The longest run of side-by-side runnable columns of a header, or undefined when there is none worth it. */
  static of(fields: readonly string[], runnable: RunnableColumns): RepeatedRun | undefined {
    const writers = new Map<number, number>();
    for (const field of fields) {
      if (Object.hasOwn(runnable, field)) writers.set(runnable[field]!, (writers.get(runnable[field]!) ?? 0) + 1);
    }
    const fits = (field: string): boolean => Object.hasOwn(runnable, field) && writers.get(runnable[field]!) === 1;
    let best: { first: number; count: number } | undefined;
    for (let first = 0; first < fields.length;) {
      let count = 0;
      while (first + count < fields.length && fits(fields[first + count]!)) count += 1;
      if (count >= MIN_COLUMNS && (best === undefined || count > best.count)) best = { first, count };
      first += Math.max(1, count);
    }
    if (best === undefined) return undefined;
    const slots = fields.slice(best.first, best.first + best.count).map((field) => runnable[field]!);
    return new RepeatedRun(best.first, best.count, slots);
  }

  /**
   * When text[start...] is a remembered run followed by ", " inside the line: writes what its
   * readers wrote into the row's run values and returns where the cell after the run starts;
   * else -1.
   */
  replay(target: unknown[], text: string, start: number, lineEnd: number): number {
    const { texts, ring } = this;
    for (let slot = ring.firstProbe(); slot !== -1; slot = ring.nextProbe(slot)) {
      const run = texts[slot]!;
      const after = start + run.length;
      if (after + 1 < lineEnd && text.charCodeAt(after) === COMMA && text.charCodeAt(after + 1) === SPACE && text.substring(start, after) === run) {
        ring.hit(slot);
        const values = this.values[slot]!;
        const { slots } = this;
        for (let position = 0; position < slots.length; position += 1) target[slots[position]!] = values[position];
        return after + 2;
      }
    }
    return -1;
  }

  /** Remembers text[start, separator) as a run, with what its readers wrote into the row's run values. */
  remember(target: readonly unknown[], text: string, start: number, separator: number): void {
    const slot = this.ring.store();
    this.texts[slot] = detached(text.slice(start, separator)); // not the chunk it was cut from
    this.values[slot] = this.slots.map((column) => target[column]);
  }
}

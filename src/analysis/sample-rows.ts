/**
 * Samples stored as rows of unboxed doubles: a start time and the SampleValues fields, NaN for
 * a field the sample lacks (a usable reading is never NaN: ./sample-values.ts drops those).
 *
 * Why: a series remembers the sample behind each of its longest intervals (./series.ts), and a
 * short series remembers every one. As objects - a {startMs, values} pair and a SampleValues
 * with its numbers boxed - they took about 250 bytes each, 32-35 MB for a 10,000-GPU scrape
 * log; as a row they take 80. Rows are written in place, so a slot freed by an interval that
 * was pushed out is reused: the storage never holds more rows than intervals kept.
 *
 * A plain number array rather than a Float64Array, as in ./timeline-buckets.ts: V8 keeps its
 * numbers unboxed all the same and allocates it on its heap, where each typed array costs an
 * ArrayBuffer and a backing store outside it (a fleet holds one of these per series).
 */
import { SAMPLE_FIELDS, type SampleValues } from './sample-values.js';

/** The start time, then the fields in SAMPLE_FIELDS order. */
const STRIDE = 1 + SAMPLE_FIELDS.length;

export class SampleRows {
  private readonly data: number[] = [];

  /** Rows written. */
  get size(): number {
    return this.data.length / STRIDE;
  }

  /** Writes row `row`: one already written (replacing it) or the next one (`size`). */
  write(row: number, startMs: number, values: SampleValues): void {
    const data = this.data;
    if (row > this.size || row < 0 || !Number.isInteger(row)) throw new RangeError(`row ${row} is not one of the ${this.size} written or the next`);
    if (row === this.size) {
      data.push(startMs);
      for (let field = 0; field < SAMPLE_FIELDS.length; field += 1) data.push(values[SAMPLE_FIELDS[field]!] ?? Number.NaN);
      return;
    }
    const offset = row * STRIDE;
    data[offset] = startMs;
    for (let field = 0; field < SAMPLE_FIELDS.length; field += 1) data[offset + 1 + field] = values[SAMPLE_FIELDS[field]!] ?? Number.NaN;
  }

  startMs(row: number): number {
    return this.data[row * STRIDE]!;
  }

  /** The sample of row `row`, rebuilt: the fields it had, in SAMPLE_FIELDS order. */
  values(row: number): SampleValues {
    const values: SampleValues = {};
    const offset = row * STRIDE + 1;
    for (let field = 0; field < SAMPLE_FIELDS.length; field += 1) {
      const value = this.data[offset + field]!;
      if (!Number.isNaN(value)) values[SAMPLE_FIELDS[field]!] = value;
    }
    return values;
  }
}

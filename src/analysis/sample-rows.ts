/**
 * Samples stored as rows of unboxed doubles: a start time and the SampleValues fields the
 * series has reported so far (its columns), NaN for a field a sample lacks (a usable reading is
 * never NaN: ./sample-values.ts drops those).
 *
 * Why: a series remembers the sample behind each of its longest intervals (./series.ts), up to
 * 4,096 of them, and a short series remembers every one. As objects - a {startMs, values} pair
 * and a SampleValues with its numbers boxed - they took about three times a row of every field,
 * and ten times a row of the series' own fields for a source that reports two (a Prometheus
 * answer of utilization and memory), which is most of what a long series of a large fleet
 * keeps (bench/MEASUREMENTS.md). Rows are written in place, so a slot
 * freed by an interval that was pushed out is reused: the storage never holds more rows than
 * intervals kept. A field first reported late in a series adds a column to every row (rare:
 * a source reports the same fields sample after sample).
 *
 * A plain number array rather than a Float64Array, as in ./timeline-buckets.ts: V8 keeps its
 * numbers unboxed all the same and allocates it on its heap, where each typed array costs an
 * ArrayBuffer and a backing store outside it (a fleet holds one of these per series).
 */
import { SAMPLE_FIELDS, type SampleValues } from './sample-values.js';

export class SampleRows {
  private data: number[] = [];
  /** The columns after the start time: SAMPLE_FIELDS, those reported so far, in that order. */
  private fields: (typeof SAMPLE_FIELDS)[number][] = [];
  private stride = 1;

  /** Rows written. */
  get size(): number {
    return this.data.length / this.stride;
  }

  /** Writes row `row`: one already written (replacing it) or the next one (`size`). */
  write(row: number, startMs: number, values: SampleValues): void {
    if (row > this.size || row < 0 || !Number.isInteger(row)) throw new RangeError(`row ${row} is not one of the ${this.size} written or the next`);
    if (this.lacksAFieldOf(values)) this.addColumns(values);
    const { data, fields } = this;
    if (row === this.size) {
      data.push(startMs);
      for (let column = 0; column < fields.length; column += 1) data.push(values[fields[column]!] ?? Number.NaN);
      return;
    }
    const offset = row * this.stride;
    data[offset] = startMs;
    for (let column = 0; column < fields.length; column += 1) data[offset + 1 + column] = values[fields[column]!] ?? Number.NaN;
  }

  startMs(row: number): number {
    return this.data[row * this.stride]!;
  }

  /** The sample of row `row`, rebuilt: the fields it had, in SAMPLE_FIELDS order. */
  values(row: number): SampleValues {
    const values: SampleValues = {};
    const { fields } = this;
    const offset = row * this.stride + 1;
    for (let column = 0; column < fields.length; column += 1) {
      const value = this.data[offset + column]!;
      if (!Number.isNaN(value)) values[fields[column]!] = value;
    }
    return values;
  }

  private lacksAFieldOf(values: SampleValues): boolean {
    if (this.fields.length === SAMPLE_FIELDS.length) return false;
    for (const field of SAMPLE_FIELDS) if (values[field] !== undefined && !this.fields.includes(field)) return true;
    return false;
  }

  /** Adds the columns of the fields `values` has and the rows lack, NaN in every row written. */
  private addColumns(values: SampleValues): void {
    const fields = SAMPLE_FIELDS.filter((field) => this.fields.includes(field) || values[field] !== undefined);
    const rows = this.size;
    const data: number[] = [];
    for (let row = 0; row < rows; row += 1) {
      const old = this.values(row);
      data.push(this.startMs(row));
      for (const field of fields) data.push(old[field] ?? Number.NaN);
    }
    this.data = data;
    this.fields = fields;
    this.stride = 1 + fields.length;
  }
}

/**
 * ISO 8601 text of epoch-ms instants for the report, remembering the last instant converted.
 * The devices of a fleet mostly share their first and last sample times and their timeline
 * start (one scrape reaches every GPU at once): finishing 10,000 GPUs converted the same few
 * instants tens of thousands of times, a Date and its text each time.
 */
export class IsoTimes {
  private lastMs = Number.NaN;
  private lastText = '';

  /** As `new Date(ms).toISOString()`, which it calls for every instant other than the last one. */
  of(ms: number): string {
    if (ms !== this.lastMs) {
      this.lastText = new Date(ms).toISOString();
      this.lastMs = ms;
    }
    return this.lastText;
  }
}

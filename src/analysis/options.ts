/** Settings of the analysis, handed down from config/ and the CLI as plain data. */
import { DEFAULT_IDLE_THRESHOLD_PCT, MS_PER_HOUR } from '../model/index.js';

export interface AnalysisOptions {
  /** A sample whose compute signal is below this percentage is idle (strictly below). */
  idleThresholdPct: number;
  /** IANA zone of the hour-of-week profile (hour 0 = Monday 00:00 there); 'UTC' when not given. */
  timeZone?: string;
  /**
   * The audit's "now", epoch ms: a timed sample later than this plus FUTURE_SAMPLE_TOLERANCE_MS
   * is dropped (a host clock set ahead). Not given: no sample is judged to be from the future.
   */
  nowMs?: number;
}

export const DEFAULT_ANALYSIS_OPTIONS: AnalysisOptions = { idleThresholdPct: DEFAULT_IDLE_THRESHOLD_PCT, timeZone: 'UTC' };

/**
 * How far past the audit's now a sample may be stamped: clocks of collectors and of the
 * machine running the audit drift apart, and an exporter may stamp a scrape a little ahead.
 */
export const FUTURE_SAMPLE_TOLERANCE_MS = MS_PER_HOUR;

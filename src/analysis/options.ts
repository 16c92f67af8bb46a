/** Settings of the analysis, handed down from config/ and the CLI as plain data. */

export interface AnalysisOptions {
  /** A sample whose compute signal is below this percentage is idle (strictly below). */
  idleThresholdPct: number;
  /** IANA zone of the hour-of-week profile (hour 0 = Monday 00:00 there); 'UTC' when not given. */
  timeZone?: string;
}

export const DEFAULT_ANALYSIS_OPTIONS: AnalysisOptions = { idleThresholdPct: 5, timeZone: 'UTC' };

/** "Monthly" figures are this many hours (DESIGN.md section 5). */
export const HOURS_PER_MONTH = 730;

export const MS_PER_HOUR = 3_600_000;

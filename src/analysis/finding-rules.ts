/**
 * Every threshold and severity of the analysis findings, in one table. Codes are stable keys
 * (SARIF rule ids, `check` thresholds and tests use them); wording lives in ./finding-messages.ts.
 */
import type { Severity } from '../model/index.js';

export const FINDING_RULES = {
  /** Idle at least half the observed time; an error from 90 %. Needs an hour of data. */
  'idle-gpu': { severity: 'warning', errorSeverity: 'error', minIdleFraction: 0.5, errorIdleFraction: 0.9, minObservedHours: 1 },
  /** Less than a day of data (or only point values): every figure is a sample of a day's cycle at best. */
  'short-window': { severity: 'info', minWindowHours: 24 },
  /** Peak VRAM use below half of the board's memory over at least an hour. */
  'vram-overprovisioned': { severity: 'info', maxPeakShareOfTotal: 0.5, minObservedHours: 1 },
  /** Mean utilization below 20 % on a GPU that is not idle-gpu; needs an hour of data, like idle-gpu. */
  'low-compute': { severity: 'warning', maxMeanUtilizationPct: 20, minObservedHours: 1 },
} as const satisfies Record<string, { severity: Severity } & Record<string, unknown>>;

export type AnalysisFindingCode = keyof typeof FINDING_RULES;

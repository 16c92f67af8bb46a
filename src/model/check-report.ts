/**
 * The outcome of `gpu-audit check`, as data: renderers (table, markdown, json, junit,
 * sarif) and the GitHub Actions output read it and compute nothing.
 */
import type { FindingCode } from './finding-codes.js';
import type { Report, Severity } from './report.js';
import type { Comparison, FindingLevel, ThresholdKey } from './thresholds.js';

/** `no-data`: the report has no value for the figure (no prices, snapshots only): not a breach, but said. */
export type ThresholdStatus = 'pass' | 'fail' | 'no-data';

export interface ThresholdResult {
  key: ThresholdKey;
  /** Kebab-case name (`max-waste-pct`), as the flag. */
  name: string;
  scope: 'fleet' | 'gpu';
  /** `fleet`, or the GPU id for a per-GPU threshold. */
  target: string;
  /** For a per-GPU result: the GPU's host, for output that names GPUs by host. */
  host: string | null;
  comparison: Comparison;
  limit: number;
  actual: number | null;
  unit: string;
  /** The Report figure read, as a JSON path. */
  figure: string;
  /** The signal the figure was taken on (`summary.computeBasis` for min-utilization); absent where it is fixed. */
  basis?: string;
  status: ThresholdStatus;
  /** This result fails the check: a breach, or with a baseline a breach that is new. */
  failsCheck: boolean;
}

/** A finding of the report that the check reports (level error or warn; `off` ones are dropped). */
export interface GatedFinding {
  id: string;
  code: FindingCode;
  /** What the check makes of it: `error` fails the check. */
  level: Exclude<FindingLevel, 'off'>;
  /** What the audit said of it (tints non-failing output: info becomes a notice, not a warning). */
  severity: Severity;
  target: string;
  message: string;
  /** This finding fails the check: level error, and with a baseline also new since then. */
  failsCheck: boolean;
}

export type Direction = 'lower-is-better' | 'higher-is-better';

/** One figure compared with the baseline. */
export interface FigureChange {
  /** `wastePct`, `idlePct`, `meanUtilization`, ... */
  figure: string;
  /** `fleet` or a GPU id. */
  target: string;
  unit: string;
  direction: Direction;
  baseline: number;
  current: number;
  /** current - baseline, in `unit`. */
  delta: number;
  /** How far the figure may worsen before it is a regression, in `toleranceUnit`. */
  tolerance: number;
  toleranceUnit: 'points' | '%';
}

export type BaselineChangeKind =
  | 'figure-worsened'
  | 'figure-improved'
  | 'threshold-newly-breached'
  | 'threshold-now-holds'
  | 'threshold-still-breached'
  | 'new-finding'
  | 'resolved-finding'
  | 'new-gpu'
  | 'removed-gpu';

export interface BaselineChange {
  kind: BaselineChangeKind;
  target: string;
  /** One line for people; tests assert the structured fields, not this. */
  summary: string;
  figure?: FigureChange;
  threshold?: string;
  finding?: { id: string; code: string; level: FindingLevel; severity: Severity };
}

export interface BaselineComparison {
  /** The baseline file as the user named it. */
  ref: string;
  baselineGeneratedAt: string;
  /** Percentage figures may worsen by this many points, money figures by this many percent. */
  tolerance: number;
  /** Changes that fail the check. */
  regressions: BaselineChange[];
  /** Changes for the better. */
  improvements: BaselineChange[];
  /** Changes that are neither: a new warn-level finding, a GPU added or removed, a limit still breached. */
  notes: BaselineChange[];
}

export interface CheckResult {
  /** `incomplete`: nothing failed, but inputs were skipped (exit 2). */
  verdict: 'pass' | 'fail' | 'incomplete';
  /** 0 all hold; 1 a breach (or a regression with a baseline); 2 inputs were skipped (--keep-going). */
  exitCode: 0 | 1 | 2;
  thresholds: ThresholdResult[];
  findings: GatedFinding[];
  baseline: BaselineComparison | null;
  /** Inputs that could not be read (--keep-going): the verdict covers the rest only. */
  skippedInputs: string[];
}

/**
 * What `check --format json` prints and what the check renderers read: the audit's report
 * unchanged (so `jq .report` gives a file `report` and `check --baseline` read back) and
 * the check beside it.
 */
export interface CheckReport {
  report: Report;
  check: CheckResult;
}

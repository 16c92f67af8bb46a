/**
 * The one definition of idle (DESIGN.md section 5), for every path that judges it: a compute
 * signal strictly below the threshold is idle (exactly 5 % at a 5 % threshold is busy). The
 * file analysis compares samples here (src/analysis/compute-ladder.ts); a live Prometheus is
 * asked the same comparison in PromQL (src/sources/live/prometheus/queries.ts).
 */

/** Percent; `--idle-threshold` and gpu-audit.yaml `idleThresholdPct` override it. */
export const DEFAULT_IDLE_THRESHOLD_PCT = 5;

export function isIdleSignal(signalPct: number, thresholdPct: number): boolean {
  return signalPct < thresholdPct;
}

/** The same comparison in PromQL: 1 where `expression` is idle against `threshold` (in the expression's own unit), else 0. */
export function idleInPromQl(expression: string, threshold: number): string {
  return `${expression} < bool ${threshold}`;
}

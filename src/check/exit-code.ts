/**
 * The verdict of `gpu-audit check` as an exit code: one pure function, tested case by case.
 * Without a baseline, any breached limit or error-level finding fails; with one, only
 * regressions do. A definite failure (1) outranks skipped inputs (2): the breach stands
 * whatever the unread inputs held, while a pass over part of the fleet proves nothing.
 * Usage errors (2) and upstream failures (3) end the run before a verdict exists.
 */
import type { BaselineComparison, GatedFinding, ThresholdResult } from '../model/index.js';

export function checkExitCode(
  thresholds: readonly ThresholdResult[],
  findings: readonly Pick<GatedFinding, 'level'>[],
  baseline?: Pick<BaselineComparison, 'regressions'>,
  skippedInputs = 0,
): 0 | 1 | 2 {
  const failed =
    baseline === undefined
      ? thresholds.some((result) => result.status === 'fail') || findings.some((finding) => finding.level === 'error')
      : baseline.regressions.length > 0;
  if (failed) return 1;
  return skippedInputs > 0 ? 2 : 0;
}

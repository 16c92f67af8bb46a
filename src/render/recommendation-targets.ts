/**
 * How the Markdown and HTML reports name a recommendation's targets. A purchase plan or a
 * sharing plan can cover thousands of GPUs: its heading names a few and says how many more, and
 * its body lists them all (a heading of thousands of names is unreadable, and a Markdown
 * viewer or a step summary may refuse a line that long).
 */
import { someNamed } from '../support/index.js';

/** Targets named in a recommendation's heading. */
const TARGETS_IN_HEADING = 4;

/** `a, b, c, d and 4,925 more`. */
export function headingTargets(targets: readonly string[]): string {
  return someNamed(targets, TARGETS_IN_HEADING);
}

/** Whether the heading leaves targets out, so that the body lists them all. */
export function listsAllTargetsApart(targets: readonly string[]): boolean {
  return targets.length > TARGETS_IN_HEADING;
}

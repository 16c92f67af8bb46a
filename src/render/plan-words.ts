/** Words the plan's renderers share. */
import type { Placement } from '../model/index.js';
import { someNamed } from '../support/index.js';

/** ` (time-slicing with b; node config gpu-audit-time-slicing-2, pods request nvidia.com/gpu.shared)` where the workload shares its GPU. */
export function sharingWords(placement: Placement): string {
  const shared = placement.sharing;
  return shared === undefined ? '' : ` (${shared.mode} with ${shared.with.join(', ')}; node config ${shared.nodeConfig}, pods request ${shared.resource})`;
}

/** Workloads named in a cell, at most: `a, b, c and 1,234 more` (the JSON names them all). */
const NAMED = 3;

export function namedUnits(labels: readonly string[]): string {
  return someNamed(labels, NAMED);
}

/**
 * No double counting: several recommendations may target the same GPU as alternatives (right-size
 * it, or co-locate it, or buy it differently). The summary's potential saving sums a set of
 * mutually exclusive ones: largest saving first, each counted only if none of its GPUs is already
 * claimed by a counted one; the others name the counted recommendation they are an alternative to.
 * Greedy rather than an exact set packing: it is predictable, and a reader can redo it by hand.
 */
import { RECOMMENDATION_KINDS, type Recommendation } from '../model/index.js';

/** On equal savings: the registry's order of preference (isolation first, then the smaller change). */
const KIND_PREFERENCE: readonly Recommendation['kind'][] = RECOMMENDATION_KINDS;

function order(left: Recommendation, right: Recommendation): number {
  return (
    right.monthlySavingsUsd - left.monthlySavingsUsd ||
    KIND_PREFERENCE.indexOf(left.kind) - KIND_PREFERENCE.indexOf(right.kind) ||
    left.id.localeCompare(right.id)
  );
}

export interface Selection {
  /** All recommendations, largest saving first, each with `counted` and, where not counted, `alternativeTo`. */
  recommendations: Recommendation[];
  potentialMonthlySavingsUsd: number;
}

/** `gpusOf` maps a recommendation to the physical GPUs it changes (its exclusivity key). */
export function selectExclusive(recommendations: readonly Recommendation[], gpusOf: (recommendation: Recommendation) => readonly string[]): Selection {
  const claimedBy = new Map<string, string>();
  const selected: Recommendation[] = [];
  let total = 0;
  for (const recommendation of [...recommendations].sort(order)) {
    if (recommendation.monthlySavingsUsd <= 0) {
      selected.push({ ...recommendation, counted: false });
      continue;
    }
    const gpus = gpusOf(recommendation);
    const conflict = gpus.map((gpu) => claimedBy.get(gpu)).find((id) => id !== undefined);
    if (conflict !== undefined) {
      selected.push({ ...recommendation, counted: false, alternativeTo: conflict });
      continue;
    }
    for (const gpu of gpus) claimedBy.set(gpu, recommendation.id);
    total += recommendation.monthlySavingsUsd;
    selected.push({ ...recommendation, counted: true });
  }
  return { recommendations: selected, potentialMonthlySavingsUsd: Math.round(total * 100) / 100 };
}

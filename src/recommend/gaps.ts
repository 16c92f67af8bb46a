/**
 * What the recommenders could not judge, or declined, as findings: DESIGN.md wants "not enough
 * data" to be an explicit answer a reader sees, not a silence. One finding per target and code
 * (ids stay `${code}:${target}`), listing every strategy that stopped there and why.
 */
import type { Finding, FindingCode } from '../model/index.js';
import type { NotEnoughData } from './types.js';

export const NOT_ENOUGH_DATA: FindingCode = 'not-enough-data';
export const TENANT_ISOLATION: FindingCode = 'tenant-isolation';

export function gapFindings(gaps: readonly NotEnoughData[]): Finding[] {
  const grouped = new Map<string, { code: FindingCode; target: string; entries: NotEnoughData[] }>();
  for (const gap of gaps) {
    const code = gap.declined === true ? TENANT_ISOLATION : NOT_ENOUGH_DATA;
    const target = gap.targets[0];
    if (target === undefined) continue;
    const key = `${code}:${target}`;
    const group = grouped.get(key) ?? { code, target, entries: [] };
    group.entries.push(gap);
    grouped.set(key, group);
  }
  return [...grouped.entries()].map(([id, group]) => {
    const strategies = [...new Set(group.entries.map((entry) => entry.strategy))];
    const reasons = [...new Set(group.entries.map((entry) => (strategies.length === 1 ? entry.reason : `${entry.strategy}: ${entry.reason}`)))];
    const others = [...new Set(group.entries.flatMap((entry) => entry.targets.slice(1)))];
    return {
      id,
      code: group.code,
      severity: 'info' as const,
      target: group.target,
      message:
        group.code === TENANT_ISOLATION
          ? `Not shared with ${others.join(', ')} by ${strategies.join(' or ')}: ${group.entries[0]!.reason}.`
          : `No ${strategies.join(', ')} recommendation: ${reasons.join('; ')}.`,
      evidence: { strategies: strategies.join(', '), ...(others.length > 0 ? { with: others.join(', ') } : {}) },
    };
  });
}

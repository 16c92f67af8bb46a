import type { Report } from '../model/index.js';

/**
 * Settings under which the baseline and this run count differently: a figure compared across
 * them moves with the setting, not with the fleet. One line each; the comparison still runs.
 */
export function settingsDrift(baseline: Report, current: Report, ref: string): string[] {
  const lines: string[] = [];
  const named: [string, unknown, unknown][] = [
    ['--idle-threshold', baseline.settings.idleThresholdPct, current.settings.idleThresholdPct],
    ['--pricing', baseline.settings.pricing, current.settings.pricing],
    ['--provider', baseline.settings.provider, current.settings.provider],
    ['--region', baseline.settings.region, current.settings.region],
  ];
  for (const [flag, then, now] of named) {
    if (then !== now) lines.push(`the baseline ${ref} was made with ${flag} ${String(then ?? 'unset')}, this run with ${String(now ?? 'unset')}: figures compared across them move with the setting`);
  }
  return lines;
}

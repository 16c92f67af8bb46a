import { HOURS_PER_MONTH } from '../../model/index.js';

/**
 * A monthly figure in whole cents: every instance's month is rounded once, here, and rows, fleets
 * and steps add those cents, so that current minus target is the steps' sum to the cent.
 */
export function monthlyCents(hourlyUsd: number, runShare = 1): number {
  return Math.round(hourlyUsd * runShare * HOURS_PER_MONTH * 100);
}

export const dollars = (cents: number): number => cents / 100;

/** How the plan names what it buys in sentences: `2 x p5.4xlarge + 1 x g6e.xlarge`. */
export function countedTypes(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts.entries()].map(([name, count]) => `${count} x ${name}`).join(' + ');
}

export function usdPerHour(value: number): string {
  return `$${value.toFixed(2)}/h`;
}

/**
 * A list for a message that stays short whatever the input: the first `shown` names, then how
 * many were left out (`a, b, c and 1,247 more`). A warning about a fleet-wide mistake would
 * otherwise name every host in every input it is attached to.
 */
export function someNamed(names: readonly string[], shown: number): string {
  if (names.length <= shown) return names.join(', ');
  return `${names.slice(0, shown).join(', ')} and ${(names.length - shown).toLocaleString('en-US')} more`;
}

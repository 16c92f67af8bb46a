/**
 * The order of every key of the Report contract. The JSON renderer writes keys in this order
 * whatever order the producer built them in, so saved reports diff cleanly. The order itself
 * is generated from the contract's definitions (./report-schema.ts) into
 * ./report-order.generated.ts by `npm run contract`.
 */
import type { ContractNode } from './contract-node.js';

export type { ContractNode } from './contract-node.js';
export { REPORT_ORDER } from './report-order.generated.js';

/**
 * A copy of `value` with the keys of every contract object in contract order.
 * Keys the contract does not know (a newer producer) keep their relative order after
 * the known ones; free-form records (evidence) keep the producer's order.
 */
export function inContractOrder(value: unknown, order: ContractNode): unknown {
  if (Array.isArray(value)) return value.map((item: unknown) => inContractOrder(item, order));
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  let knownCount = 0;
  for (const key of order.keys) {
    if (!Object.hasOwn(source, key)) continue;
    const child = order.nested[key];
    ordered[key] = child === undefined ? source[key] : inContractOrder(source[key], child);
    knownCount += 1;
  }
  // Unknown keys after the known ones. A contract object of a report has none, so the usual
  // case is one count of its keys, against the known keys copied (`order.keys` lists each key
  // once); a report holds hundreds of thousands of these objects.
  const sourceKeys = Object.keys(source);
  if (sourceKeys.length !== knownCount) {
    const known = knownKeys(order);
    for (const key of sourceKeys) if (!known.has(key)) ordered[key] = source[key];
  }
  return ordered;
}

const KNOWN_KEYS = new WeakMap<ContractNode, ReadonlySet<string>>();

function knownKeys(order: ContractNode): ReadonlySet<string> {
  let known = KNOWN_KEYS.get(order);
  if (known === undefined) {
    known = new Set(order.keys);
    KNOWN_KEYS.set(order, known);
  }
  return known;
}

/**
 * Reading nvidia-smi's printed values: numbers with their unit in the text
 * (`116 MiB`, `35.15 W`, `0 %`, `4000 KB/s`) and placeholders where a value is
 * unavailable. A placeholder is "no value", never 0.
 */

/** Texts nvidia-smi prints instead of a value (XML uses the bare forms; CSV brackets them). */
const PLACEHOLDERS = new Set([
  '',
  'N/A',
  'Not Supported',
  'Insufficient Permissions',
  'Unknown Error',
  'Requested functionality has been deprecated',
]);

export function isPlaceholder(text: string): boolean {
  return PLACEHOLDERS.has(text) || (text.startsWith('[') && text.endsWith(']'));
}

/** A kind of number: the units it may carry, each with its factor to the unit the model uses. */
export interface Quantity {
  /** Unit as printed -> factor to the model's unit. `''` means the number stands alone. */
  readonly units: ReadonlyMap<string, number>;
  /** Identifiers and counts must be whole numbers. */
  readonly whole: boolean;
}

export const QUANTITIES = {
  /** To MiB, the unit of every memory figure in the model. */
  memoryMiB: { units: new Map([['KiB', 1 / 1024], ['MiB', 1], ['GiB', 1024]]), whole: false },
  percent: { units: new Map([['%', 1]]), whole: false },
  watts: { units: new Map([['W', 1]]), whole: false },
  /** NVML's PCIe throughput counter, printed as `KB/s`; the model keeps it as is. */
  pcieKiBps: { units: new Map([['KB/s', 1]]), whole: false },
  /** PCIe link width, printed `16x`. */
  pcieLanes: { units: new Map([['x', 1]]), whole: true },
  /** pids, instance ids, SM counts. */
  count: { units: new Map([['', 1]]), whole: true },
} as const satisfies Record<string, Quantity>;

export type Reading =
  | { kind: 'value'; value: number }
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: string };

const MISSING: Reading = { kind: 'missing' };
const NUMBER_AND_UNIT = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(.*)$/s;

function describeUnits(quantity: Quantity): string {
  const units = [...quantity.units.keys()].map((unit) => (unit === '' ? 'no unit' : unit));
  return units.length === 1 ? units[0]! : `${units.slice(0, -1).join(', ')} or ${units[units.length - 1]!}`;
}

/** Reads one printed number in the quantity's model unit. */
export function readQuantity(text: string | undefined, quantity: Quantity): Reading {
  if (text === undefined) return MISSING;
  const trimmed = text.trim();
  if (isPlaceholder(trimmed)) return MISSING;
  const match = NUMBER_AND_UNIT.exec(trimmed);
  if (match === null) return { kind: 'invalid', reason: `${JSON.stringify(trimmed)} is not a number` };
  const unit = match[2]!.trim();
  const factor = quantity.units.get(unit);
  if (factor === undefined) {
    const found = unit === '' ? 'no unit' : `unit ${JSON.stringify(unit)}`;
    return { kind: 'invalid', reason: `${JSON.stringify(trimmed)} has ${found} (expected ${describeUnits(quantity)})` };
  }
  const number = Number(match[1]);
  if (!Number.isFinite(number)) return { kind: 'invalid', reason: `${JSON.stringify(trimmed)} is not a finite number` };
  if (number < 0) return { kind: 'invalid', reason: `${JSON.stringify(trimmed)} is negative` };
  if (quantity.whole && !Number.isInteger(number)) return { kind: 'invalid', reason: `${JSON.stringify(trimmed)} is not a whole number` };
  // Past 2^53 a pid or an index is no longer exact (fuzz regression fixture).
  if (quantity.whole && !Number.isSafeInteger(number)) return { kind: 'invalid', reason: `${JSON.stringify(trimmed)} is too large for a count` };
  return { kind: 'value', value: number * factor };
}

const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g;

/**
 * Resolves the five predefined entities and character references in element text.
 * The XML parser runs with entity processing off (so no declared entity is ever
 * expanded), which also leaves `&amp;` as is; these references cannot grow the text.
 * Any other `&name;` stays literally.
 */
export function decodeXmlText(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (reference, body: string) => {
    if (!body.startsWith('#')) return PREDEFINED_ENTITIES[body] ?? reference;
    const codePoint = body.startsWith('#x') ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
    return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : reference;
  });
}

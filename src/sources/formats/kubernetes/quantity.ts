/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource, quantity.go):
 *
 *   <quantity>        ::= <signedNumber><suffix>
 *   <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
 *   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
 *   <decimalSI>       ::= m | "" | k | M | G | T | P | E
 *   <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
 *   <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
 *
 * `E` alone is exa (10^18); `E` followed by digits is an exponent. Manifests also give plain
 * YAML/JSON numbers (`nvidia.com/gpu: 1`), which are quantities without a suffix.
 */

const BINARY_SI: Readonly<Record<string, number>> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

const DECIMAL_SI: Readonly<Record<string, number>> = {
  m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei)|[eE]([+-]?\d+)|(m|k|M|G|T|P|E)?)$/u;

const BYTES_PER_MIB = 2 ** 20;

/** The quantity's value in base units (cores, bytes, devices), or undefined when it is not a quantity. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value.trim());
  if (match === null) return undefined;
  const [, number, binary, exponent, decimal] = match;
  const base = Number(number);
  if (binary !== undefined) return base * BINARY_SI[binary]!;
  if (exponent !== undefined) return base * 10 ** Number(exponent);
  return base * DECIMAL_SI[decimal ?? '']!;
}

/** CPU quantity in cores (`500m` -> 0.5). */
export function cpuCores(value: unknown): number | undefined {
  return parseQuantity(value);
}

/** Memory quantity in MiB (`2Gi` -> 2048, `1G` -> 953.67...). */
export function memoryMiB(value: unknown): number | undefined {
  const bytes = parseQuantity(value);
  return bytes === undefined ? undefined : bytes / BYTES_PER_MIB;
}

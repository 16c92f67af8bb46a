/**
 * Mutations of real input files for the fuzz suite: the damage real files suffer (a log cut
 * off by a full disk, a bit flipped in transit, a block written twice by a retrying shipper,
 * lines reordered by a merge, a value the driver never prints, Windows line ends, a BOM,
 * bytes that are not UTF-8). Each mutation is a pure function of the bytes and its parameters,
 * so fast-check can shrink a failure to the smallest damage that still fails.
 */
import fc from 'fast-check';

export type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'truncate-line'; line: number; column: number }
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'duplicate-lines'; from: number; count: number }
  | { kind: 'swap-lines'; a: number; b: number }
  | { kind: 'replace-number'; nth: number; with: string }
  | { kind: 'insert-bytes'; at: number; bytes: number[] }
  | { kind: 'crlf' }
  | { kind: 'bom' };

/** Values no well-behaved tool prints where a number stands. */
export const HOSTILE_VALUES = [
  '', 'NaN', 'nan', 'Inf', '-Inf', '+Inf', 'Infinity', '-1', '-0', '1e308', '1e309', '-1e309', '18446744073709551616',
  '99999999999999999999999', '0x10', '1,5', '[N/A]', 'N/A', '[Not Supported]', '42 furlongs', '42 %%', '42 KiB', '42 PiB',
  '4.2e-320', '"', '<', '&amp;', '\u0000', '\u202e',
] as const;

/** Byte sequences that are not UTF-8: a lone continuation byte, an overlong encoding, a lone surrogate, a cut sequence, 0xFF. */
export const INVALID_UTF8 = [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xff, 0xfe], [0xf4, 0x90, 0x80, 0x80]] as const;

const position = fc.nat({ max: 1_000_000 });

export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  position.map((at) => ({ kind: 'truncate', at }) as const),
  fc.record({ line: position, column: fc.nat({ max: 200 }) }).map((m) => ({ kind: 'truncate-line', ...m }) as const),
  fc.record({ at: position, mask: fc.integer({ min: 1, max: 255 }) }).map((m) => ({ kind: 'flip', ...m }) as const),
  fc.record({ from: position, count: fc.integer({ min: 1, max: 40 }) }).map((m) => ({ kind: 'duplicate-lines', ...m }) as const),
  fc.record({ a: position, b: position }).map((m) => ({ kind: 'swap-lines', ...m }) as const),
  fc.record({ nth: position, with: fc.constantFrom(...HOSTILE_VALUES) }).map((m) => ({ kind: 'replace-number', ...m }) as const),
  fc.record({ at: position, bytes: fc.constantFrom(...INVALID_UTF8).map((bytes) => [...bytes]) }).map((m) => ({ kind: 'insert-bytes', ...m }) as const),
  fc.constant({ kind: 'crlf' } as const),
  fc.constant({ kind: 'bom' } as const),
);

/** One to four mutations applied in order. */
export const mutationsArbitrary = fc.array(mutationArbitrary, { minLength: 1, maxLength: 4 });

function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let index = 0; index < bytes.length; index += 1) {
    if (bytes[index] === 0x0a) {
      lines.push(bytes.subarray(start, index + 1));
      start = index + 1;
    }
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

/** Numbers of the text (digits, optional sign, fraction and exponent), as byte ranges. */
function numberRanges(bytes: Buffer): [number, number][] {
  const text = bytes.toString('latin1'); // one char per byte: offsets stay byte offsets
  return [...text.matchAll(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)].map((match) => [match.index, match.index + match[0].length]);
}

export function applyMutation(bytes: Buffer, mutation: Mutation): Buffer {
  const size = Math.max(bytes.length, 1);
  switch (mutation.kind) {
    case 'truncate':
      return bytes.subarray(0, mutation.at % (bytes.length + 1));
    case 'truncate-line': {
      const lines = splitLines(bytes);
      if (lines.length === 0) return bytes;
      const line = mutation.line % lines.length;
      const kept = Buffer.concat(lines.slice(0, line));
      const cut = lines[line]!;
      return Buffer.concat([kept, cut.subarray(0, mutation.column % (cut.length + 1))]);
    }
    case 'flip': {
      if (bytes.length === 0) return bytes;
      const out = Buffer.from(bytes);
      const at = mutation.at % size;
      out[at] = out[at]! ^ mutation.mask;
      return out;
    }
    case 'duplicate-lines': {
      const lines = splitLines(bytes);
      if (lines.length === 0) return bytes;
      const from = mutation.from % lines.length;
      const block = lines.slice(from, from + mutation.count);
      return Buffer.concat([...lines.slice(0, from + block.length), ...block, ...lines.slice(from + block.length)]);
    }
    case 'swap-lines': {
      const lines = splitLines(bytes);
      if (lines.length < 2) return bytes;
      const a = mutation.a % lines.length;
      const b = mutation.b % lines.length;
      [lines[a], lines[b]] = [lines[b]!, lines[a]!];
      return Buffer.concat(lines);
    }
    case 'replace-number': {
      const ranges = numberRanges(bytes);
      if (ranges.length === 0) return bytes;
      const [start, end] = ranges[mutation.nth % ranges.length]!;
      return Buffer.concat([bytes.subarray(0, start), Buffer.from(mutation.with, 'utf8'), bytes.subarray(end)]);
    }
    case 'insert-bytes': {
      const at = mutation.at % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(mutation.bytes), bytes.subarray(at)]);
    }
    case 'crlf':
      return Buffer.from(bytes.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
  }
}

export function applyMutations(bytes: Buffer, mutations: readonly Mutation[]): Buffer {
  return mutations.reduce(applyMutation, bytes);
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LabelSetCache, SampleSpan, scanExpositionLine } from '../../../src/sources/dcgm/exposition.js';
import type { ExpositionLine } from '../../../src/sources/dcgm/exposition.js';

/** What a scan says, the interned label set by its id. */
function described(scanned: ExpositionLine): unknown {
  if (scanned.kind !== 'sample') return scanned;
  const { labelSet, labels, ...sample } = scanned.sample;
  return { ...sample, labels: [...labels], labelSetId: labelSet?.id };
}

/** What scanSpan filled in, in the terms of a full scan's sample. */
function spanSays(span: SampleSpan): unknown {
  return { name: span.name, labelSetId: span.labelSet.id, value: span.value, time: span.hasTime ? span.time : undefined };
}

/** What scanSpan should have filled in for a line the full scan read as `scanned`. */
function fullSays(scanned: ExpositionLine): unknown {
  if (scanned.kind !== 'sample') return scanned;
  const { name, labelSet, value, time } = scanned.sample;
  return { name, labelSetId: labelSet?.id, value: Number(value), time };
}

/**
 * Reads `lines` as one chunk of text, each line in place, the way the parser does: scanSpan
 * first, the full scan with the same cache where it declines. Beside it, a second cache sees
 * only full scans. Line after line both must say the same, which also checks that scanSpan
 * leaves its cache as a full scan would (ids, predictions, the last name).
 */
function readInLockstep(lines: readonly string[], lineEnd = '\n'): { fast: number } {
  const text = `${lines.join(lineEnd)}${lineEnd}`;
  const spanCache = new LabelSetCache();
  const fullCache = new LabelSetCache();
  const span = new SampleSpan();
  let start = 0;
  let fast = 0;
  for (const line of lines) {
    const end = start + line.length;
    const full = scanExpositionLine(line, fullCache);
    if (spanCache.scanSpan(text, start, end, span)) {
      fast += 1;
      expect(spanSays(span), line).toEqual(fullSays(full));
    } else {
      expect(described(scanExpositionLine(line, spanCache)), line).toEqual(described(full));
    }
    expect(spanCache.lastName, line).toBe(fullCache.lastName);
    start = end + lineEnd.length;
  }
  return { fast };
}

const GPU_0 = '{gpu="0",UUID="GPU-a",Hostname="n1"}';
const GPU_1 = '{gpu="1",UUID="GPU-b",Hostname="n1"}';

/** The lines of large scrapes, and every way a line can differ from them. */
const LINES = [
  `DCGM_FI_DEV_GPU_UTIL${GPU_0} 91 1700000000000`,
  `DCGM_FI_DEV_GPU_UTIL${GPU_1} 7 1700000000000`,
  `DCGM_FI_DEV_POWER_USAGE${GPU_0} 68.244000 1700000000000`,
  `DCGM_FI_DEV_POWER_USAGE${GPU_1} 0.1 1700000000000`,
  `DCGM_FI_PROF_PIPE_TENSOR_ACTIVE${GPU_0} 0.000001`,
  `DCGM_FI_PROF_PIPE_TENSOR_ACTIVE${GPU_1} 5.`,
  // Blanks and tabs between the tokens, and after the last one.
  `DCGM_FI_DEV_FB_USED${GPU_0} \t 1024 \t1700000000000 \t`,
  `DCGM_FI_DEV_FB_USED${GPU_1}3`,
  // The most digits read by hand, and one more (then Number reads them).
  `DCGM_FI_DEV_FB_USED${GPU_0} 123456789012345`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 1234567890123456`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 0.12345678901234`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 9223372036854775794`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 007`,
  // Values and timestamps only the full scan reads, or rejects.
  `DCGM_FI_DEV_FB_USED${GPU_0} .5`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 1e3`,
  `DCGM_FI_DEV_FB_USED${GPU_0} NaN`,
  `DCGM_FI_DEV_FB_USED${GPU_0} -1`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 1.2.3`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 12abc`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 1 1700000000.5`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 1 -5`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 1 17000x`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 1 1700000000000 extra`,
  `DCGM_FI_DEV_FB_USED${GPU_0} 1 12345678901234567`,
  `DCGM_FI_DEV_FB_USED${GPU_0}`,
  `DCGM_FI_DEV_FB_USED${GPU_0} `,
  // Names: a longer one that starts like the last, one glued to nothing, leading blanks.
  `DCGM_FI_DEV_FB_USED_X${GPU_0} 1`,
  `DCGM_FI_DEV_FB_USED ${GPU_0} 1`,
  `  DCGM_FI_DEV_FB_USED${GPU_0} 1`,
  'DCGM_FI_DEV_FB_USED 1',
  `{"DCGM_FI_DEV_FB_USED", gpu="0"} 4`,
  // Label blocks: escapes, broken, unterminated.
  String.raw`DCGM_FI_DEV_FB_USED{gpu="0",pod="say \"hi\""} 5`,
  'DCGM_FI_DEV_FB_USED{gpu="0",gpu="1"} 3',
  'DCGM_FI_DEV_FB_USED{gpu="0"',
  `DCGM_FI_DEV_FB_USED{gpu="0",pod="a}b"} 5`,
  '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).',
  '',
  '   ',
];

describe('LabelSetCache.scanSpan', () => {
  it('reads a line in place as the full scan reads it, or declines and leaves it to the full scan', () => {
    // Twice through, so that the second round meets every label set interned and predicted.
    const { fast } = readInLockstep([...LINES, ...LINES]);
    // The common lines are taken: the first 13 sample lines of each round, and others.
    expect(fast).toBeGreaterThanOrEqual(26);
  });

  it('reads the lines of CRLF text without their carriage return', () => {
    readInLockstep([...LINES, ...LINES], '\r\n');
  });

  it('never reads past the end of its line', () => {
    const span = new SampleSpan();
    const cache = new LabelSetCache();
    const scan = (text: string, end = text.length): boolean => cache.scanSpan(text, 0, end, span);
    // GPU 1 follows GPU 0 twice, so that GPU 1's block is the prediction after GPU 0's.
    for (const gpu of [GPU_0, GPU_1, GPU_0, GPU_1, GPU_0]) expect(scan(`m${gpu} 1`)).toBe(true);
    const line = `m${GPU_1} 91`;
    // A line that ends before the timestamp: the value is its last token.
    expect(scan(`${line} 1700000000000`, line.length)).toBe(true);
    expect(spanSays(span)).toEqual({ name: 'm', labelSetId: 1, value: 91, time: undefined });
    // A line that ends inside the predicted block: no block, no sample.
    expect(scan(line, 'm{gpu="1"'.length)).toBe(false);
    expect(scan(line, line.length - 4)).toBe(false);
  });

  it('reads lines made of random pieces as the full scan does', () => {
    const piece = fc.constantFrom('m', 'DCGM_FI_X', '{', '}', '"', '\\', ',', '=', ' ', '\t', 'a', 'gpu', '"0"', '1', '.', '0', 'e', 'NaN', '1700000000000');
    const line = fc.array(piece, { maxLength: 16 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        readInLockstep([...lines, ...lines]);
      }),
      { numRuns: 300 },
    );
  });

  it('reads a plain decimal of any length as exactly the number Number() reads, or leaves it to Number()', () => {
    // Past 15 digits the digits are no longer exact as a double: those values are declined.
    const digits = fc.array(fc.constantFrom(...'0123456789'), { minLength: 1, maxLength: 24 }).map((list) => list.join(''));
    const decimal = fc.tuple(digits, digits).map(([whole, fraction]) => `${whole}.${fraction}`);
    const span = new SampleSpan();
    const cache = new LabelSetCache();
    fc.assert(
      fc.property(fc.oneof(digits, decimal), (value) => {
        const line = `m${GPU_0} ${value} ${value.replace('.', '')}`;
        if (!cache.scanSpan(line, 0, line.length, span)) return;
        expect(Object.is(span.value, Number(value)), value).toBe(true);
        expect(span.time, value).toBe(Number(value.replace('.', '')));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads every plain decimal of up to 15 digits as exactly the number Number() reads', () => {
    const digits = (min: number, max: number): fc.Arbitrary<string> => fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((list) => list.join(''));
    const decimal = fc.tuple(digits(1, 9), fc.option(digits(0, 6), { nil: undefined })).map(([whole, fraction]) => (fraction === undefined ? whole : `${whole}.${fraction}`));
    const span = new SampleSpan();
    const cache = new LabelSetCache();
    fc.assert(
      fc.property(decimal, (value) => {
        const line = `m${GPU_0} ${value}`;
        expect(cache.scanSpan(line, 0, line.length, span)).toBe(true);
        expect(Object.is(span.value, Number(value)), value).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

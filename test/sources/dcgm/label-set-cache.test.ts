import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LabelSetCache, scanExpositionLine } from '../../../src/sources/dcgm/exposition.js';
import type { ExpositionLine } from '../../../src/sources/dcgm/exposition.js';
import { DEFAULT_INPUT_LIMITS } from '../../../src/sources/input-limits.js';

/** What a scan says, without the interned label set (a cache adds it; the rest must not change). */
function plain(scanned: ExpositionLine): unknown {
  if (scanned.kind !== 'sample') return scanned;
  const { labelSet: _labelSet, ...sample } = scanned.sample;
  return { kind: 'sample', sample: { ...sample, labels: [...sample.labels] } };
}

function labelSetOf(scanned: ExpositionLine): { id: number; text: string } | undefined {
  return scanned.kind === 'sample' ? scanned.sample.labelSet : undefined;
}

/** Lines a scrape, a federation or a hand-edited file can hold, valid and not. */
const TRICKY_LINES = [
  'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",Hostname="n1"} 91 1700000000000',
  'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",Hostname="n1"} 7',
  'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a",Hostname="n1"} 1024',
  // A brace and a comma inside a value: the block ends at the last brace, outside quotes.
  'DCGM_FI_DEV_FB_USED{gpu="0",pod="a}b,c"} 5',
  // Escapes: never interned, scanned in full.
  String.raw`DCGM_FI_DEV_FB_USED{gpu="0",pod="say \"hi\""} 5`,
  // A blank before the brace: a different series text from the same labels glued on.
  'DCGM_FI_DEV_GPU_UTIL {gpu="0",UUID="GPU-a",Hostname="n1"} 91',
  // A quoted metric name inside the braces: the name is not the line's first word.
  '{"DCGM_FI_DEV_GPU_UTIL", gpu="0"} 4',
  // A name that begins like the one before it.
  'DCGM_FI_DEV_GPU_UTIL_RATIO{gpu="0",UUID="GPU-a",Hostname="n1"} 12',
  'DCGM_FI_DEV_GPU_UTI{gpu="0",UUID="GPU-a",Hostname="n1"} 12',
  // Broken blocks, with the reasons the full scan gives.
  'DCGM_FI_DEV_GPU_UTIL{gpu="0",gpu="1"} 3',
  'DCGM_FI_DEV_GPU_UTIL{gpu="0" UUID="x"} 3',
  'DCGM_FI_DEV_GPU_UTIL{gpu=0} 3',
  'DCGM_FI_DEV_GPU_UTIL{gpu="0"',
  'DCGM_FI_DEV_GPU_UTIL{gpu="0"}3',
  'DCGM_FI_DEV_GPU_UTIL{gpu="0"} abc',
  'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 3 nope',
  'DCGM_FI_DEV_GPU_UTIL{} 3',
  '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).',
  '',
  'DCGM_FI_DEV_GPU_UTIL 3',
  'DCGM_FI_DEV_GPU_UTIL{gpu="0"} -2.5e3 1700000000.5',
  'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 5. 1700000000000',
];

describe('LabelSetCache', () => {
  it('changes nothing a scan says, line after line, for every kind of line', () => {
    const cache = new LabelSetCache();
    // Twice through, so that the second round meets every label set interned and predicted.
    for (const line of [...TRICKY_LINES, ...TRICKY_LINES]) {
      expect(plain(scanExpositionLine(line, cache)), line).toEqual(plain(scanExpositionLine(line)));
    }
  });

  it('changes nothing for lines made of random pieces, in any order', () => {
    const piece = fc.constantFrom('m', 'DCGM_FI_X', '{', '}', '"', '\\', ',', '=', ' ', 'a', 'gpu', '"0"', '1', '.', 'e', 'NaN');
    const line = fc.array(piece, { maxLength: 16 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const cache = new LabelSetCache();
        for (const text of [...lines, ...lines]) expect(plain(scanExpositionLine(text, cache))).toEqual(plain(scanExpositionLine(text)));
      }),
      { numRuns: 300 },
    );
  });

  it('gives every line of one label set the same interned set, numbered in order of first appearance', () => {
    const cache = new LabelSetCache();
    // metric by metric, GPU by GPU, as dcgm-exporter prints a scrape
    const scrape = ['A', 'B'].flatMap((metric) => ['0', '1', '2'].map((gpu) => `${metric}{gpu="${gpu}"} 1`));
    const sets = scrape.map((line) => labelSetOf(scanExpositionLine(line, cache)));
    expect(sets.map((set) => set?.id)).toEqual([0, 1, 2, 0, 1, 2]);
    expect(sets[3]).toBe(sets[0]);
    expect(sets[0]?.text).toBe('{gpu="0"}');
    expect(cache.size).toBe(3);
  });

  it('interns only blocks glued to a name and free of escapes', () => {
    const cache = new LabelSetCache();
    expect(labelSetOf(scanExpositionLine('m {gpu="0"} 1', cache))).toBeUndefined();
    expect(labelSetOf(scanExpositionLine(String.raw`m{a="\"q\""} 1`, cache))).toBeUndefined();
    expect(labelSetOf(scanExpositionLine('{"m", gpu="0"} 1', cache))).toBeUndefined();
    expect(labelSetOf(scanExpositionLine('m{a="}"} 1', cache))?.text).toBe('{a="}"}');
    expect(cache.size).toBe(1);
  });

  it('keeps only the text of a label set: its labels are parsed from it when asked for', () => {
    const cache = new LabelSetCache();
    const set = cache.find('m{gpu="0",pod="a}b"} 1', 1);
    const expected = new Map([['gpu', '0'], ['pod', 'a}b']]);
    expect(set?.readLabels()).toEqual(expected);
    // readLabels gives a Map of the caller's own; `labels` is parsed once and shared.
    expect(set?.readLabels()).not.toBe(set?.readLabels());
    expect(set?.labels).toEqual(expected);
    expect(set?.labels).toBe(set?.labels);
  });

  it('scans label sets beyond its capacity in full, with the same result', () => {
    const cache = new LabelSetCache(DEFAULT_INPUT_LIMITS, 2);
    const lines = ['0', '1', '2', '0', '2'].map((gpu) => `m{gpu="${gpu}"} 1`);
    const scanned = lines.map((line) => scanExpositionLine(line, cache));
    expect(scanned.map((line) => labelSetOf(line)?.id)).toEqual([0, 1, undefined, 0, undefined]);
    expect(scanned.map(plain)).toEqual(lines.map((line) => plain(scanExpositionLine(line))));
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';
import { DEFAULT_INPUT_LIMITS, INPUT_LIMIT_ROWS, inputLimitsOf, labelsProblem, limitHint, parseInputLimit } from '../../src/sources/input-limits.js';

describe('input limits', () => {
  it('has one row per cap, each with its default', () => {
    expect(INPUT_LIMIT_ROWS.map((row) => row.name)).toEqual(['labels', 'label-chars', 'series', 'files']);
    expect(DEFAULT_INPUT_LIMITS).toEqual({ labelsPerSeries: 256, labelValueChars: 4096, seriesPerAnswer: 500_000, filesPerRun: 20_000 });
    expect(limitHint('seriesPerAnswer')).toBe('--input-limit series=N');
  });

  it('reads NAME=N, each over the ones before, the rest at their defaults', () => {
    const given = parseInputLimit('files=50000', parseInputLimit('labels=512'));
    expect(given).toEqual({ filesPerRun: 50_000, labelsPerSeries: 512 });
    expect(parseInputLimit(' files=7 ', given).filesPerRun).toBe(7);
    expect(inputLimitsOf(given)).toEqual({ ...DEFAULT_INPUT_LIMITS, filesPerRun: 50_000, labelsPerSeries: 512 });
    expect(inputLimitsOf(undefined)).toEqual(DEFAULT_INPUT_LIMITS);
  });

  it('refuses an unknown name, a value below 1, a fraction or a value too large to count, listing the names', () => {
    const expected = 'expected NAME=N with N a whole number of at least 1 and NAME one of labels, label-chars, series, files';
    for (const text of ['lines=5', 'files=0', 'files=1.5', 'files=-1', 'files', `files=${'9'.repeat(20)}`, 'FILES=5']) {
      expect(() => parseInputLimit(text), text).toThrow(expected);
    }
  });

  it('says which label cap a series passes: the count past the cap, or the first value too long', () => {
    const caps = { labelsPerSeries: 2, labelValueChars: 4 };
    expect(labelsProblem([['gpu', '0'], ['pod', 'ab']], caps)).toBeUndefined();
    expect(labelsProblem([['gpu', '0'], ['pod', 'ab'], ['x', 'y']], caps)).toBe('more than 2 labels (--input-limit labels=N reads more)');
    expect(labelsProblem([['pod', 'abcde']], caps)).toBe('label pod has a value of 5 characters (at most 4 are read; --input-limit label-chars=N reads more)');
    // A long label name is cut in the message.
    expect(labelsProblem([['n'.repeat(100), 'abcde']], caps)).toContain(`label ${'n'.repeat(64)} has`);
  });
});

describe('input limits in the docs', () => {
  it('docs/inputs.md lists every cap with its default, as the table here', () => {
    const text = readFileSync(path.join(repoRoot, 'docs/inputs.md'), 'utf8');
    const rows = [...text.matchAll(/^\| `([a-z-]+)` \| (\d+) \|/gmu)].map((match) => [match[1], Number(match[2])]);
    expect(rows).toEqual(INPUT_LIMIT_ROWS.map((row) => [row.name, row.default]));
  });
});

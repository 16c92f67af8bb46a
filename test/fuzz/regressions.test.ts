/**
 * Inputs the fuzzer once broke a reader with, kept in test/fixtures/fuzz-regressions/ as
 * `<reader>--<what>.<ext>` (the reader named as in FUZZ_TARGETS). Each must now end in one of
 * the two allowed outcomes (test/fuzz/harness.ts).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FUZZ_TARGETS, outcomeProblem } from './harness.js';
import { repoRoot } from '../helpers/corpus.js';

const FOLDER = path.join(repoRoot, 'test/fixtures/fuzz-regressions');
const fixtures = readdirSync(FOLDER).filter((name) => name.includes('--')).sort();

describe('fuzz regressions', () => {
  it('every fixture names a known reader', () => {
    for (const name of fixtures) expect(FUZZ_TARGETS.map((target) => target.name)).toContain(name.split('--')[0]);
  });

  it.each(fixtures)('%s', async (name) => {
    const target = FUZZ_TARGETS.find((candidate) => candidate.name === name.split('--')[0])!;
    expect(await outcomeProblem(target.read, path.join(FOLDER, name))).toBeUndefined();
  });
});

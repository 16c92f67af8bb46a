/**
 * Inputs the fuzzer once broke a reader with. Each is kept in test/fixtures/fuzz-regressions/
 * as a recipe, not as bytes (the damaged file is a corpus file, which stays in the shared
 * corpus): `{ target, seed, found, mutations }`, the reader as named in FUZZ_TARGETS, the seed
 * file relative to the corpus (or `repo:` and relative to the project), what went wrong, and the mutations that rebuild the input.
 * Each must now end in one of the two allowed outcomes (test/fuzz/harness.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, repoRoot } from '../helpers/corpus.js';
import { FUZZ_TARGETS, outcomeProblem } from './harness.js';
import { applyMutations, type Mutation } from './mutations.js';

interface Regression {
  target: string;
  seed: string;
  found: string;
  mutations: Mutation[];
}

const FOLDER = path.join(repoRoot, 'test/fixtures/fuzz-regressions');
const fixtures = readdirSync(FOLDER).filter((name) => name.endsWith('.json')).sort();
const workDir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-fuzz-regression-'));

function load(name: string): Regression {
  return JSON.parse(readFileSync(path.join(FOLDER, name), 'utf8')) as Regression;
}

describe('fuzz regressions', () => {
  it('every recipe names a known reader and says what it found', () => {
    expect(fixtures.length).toBeGreaterThan(0);
    for (const name of fixtures) {
      const regression = load(name);
      expect(FUZZ_TARGETS.map((target) => target.name)).toContain(regression.target);
      expect(regression.found).not.toBe('');
    }
  });

  it.each(fixtures)('%s', async (name) => {
    const regression = load(name);
    const target = FUZZ_TARGETS.find((candidate) => candidate.name === regression.target)!;
    const file = path.join(workDir, path.basename(regression.seed));
    const seed = regression.seed.startsWith('repo:') ? path.join(repoRoot, regression.seed.slice('repo:'.length)) : corpusPath(regression.seed);
    writeFileSync(file, applyMutations(readFileSync(seed), regression.mutations));
    expect(await outcomeProblem(target.read, file)).toBeUndefined();
  });
});

/**
 * Property: every reader, given a real input file damaged in the ways real files are damaged
 * (test/fuzz/mutations.ts), answers within RUN_TIME_BOUND_MS with a valid report or an
 * InputError naming the file (test/fuzz/harness.ts), and a few hundred runs do not grow the
 * heap past HEAP_GROWTH_BOUND_BYTES. Seeded, so `npm test` is reproducible; `npm run fuzz`
 * runs many more (FUZZ_RUNS, FUZZ_SEED). A failure prints the damaged input and its recipe: keep
 * the recipe in test/fixtures/fuzz-regressions/ (see regressions.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusRoot, repoRoot } from '../helpers/corpus.js';
import { FUZZ_RUNS, FUZZ_SEED, FUZZ_TARGETS, HEAP_GROWTH_BOUND_BYTES, outcomeProblem } from './harness.js';
import { applyMutations, mutationsArbitrary } from './mutations.js';

/** The seed as a recipe names it: relative to the corpus, or `repo:` and relative to the project. */
function seedName(file: string): string {
  const inCorpus = path.relative(corpusRoot, file);
  return inCorpus.startsWith('..') ? `repo:${path.relative(repoRoot, file)}` : inCorpus;
}

const workDir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-fuzz-'));
const failuresDir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-fuzz-failures-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe.each(FUZZ_TARGETS)('$name reader on mutated inputs', (target) => {
  it('answers with a report or an InputError naming the file, in bounded time and memory', async () => {
    const seeds = await target.seeds();
    expect(seeds.length).toBeGreaterThan(0);
    const seedBytes = seeds.map((file) => ({ file, bytes: readFileSync(file) }));
    const heapBefore = process.memoryUsage().heapUsed;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: seedBytes.length - 1 }), mutationsArbitrary, async (seedIndex, mutations) => {
        const seed = seedBytes[seedIndex]!;
        // The seed's own name: the extension is part of what a user's file looks like.
        const file = path.join(workDir, `${run++}-${path.basename(seed.file)}`);
        const bytes = applyMutations(seed.bytes, mutations);
        writeFileSync(file, bytes);
        const problem = await outcomeProblem(target.read, file);
        rmSync(file, { force: true });
        if (problem !== undefined) {
          const kept = path.join(failuresDir, `${target.name}--${path.basename(file)}`);
          writeFileSync(kept, bytes);
          const recipe = { target: target.name, seed: seedName(seed.file), found: problem.split('\n')[0], mutations };
          throw new Error(`${problem}\ninput kept at ${kept}\nregression recipe for test/fixtures/fuzz-regressions/${target.name}--<what>.json:\n${JSON.stringify(recipe)}`);
        }
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS, endOnFailure: true },
    );
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(HEAP_GROWTH_BOUND_BYTES);
  }, 120_000 + FUZZ_RUNS * 50); // ~10 ms a run here; room for slow CI machines
});

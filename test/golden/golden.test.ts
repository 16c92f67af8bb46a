/**
 * Every format's output, byte for byte, against the golden files (./cases.ts). A difference
 * is either a bug or a change to review: `npm run golden:update` rewrites them, and the diff
 * of test/golden/ shows what a user would now see.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GOLDEN_CASES, goldenPath, runGolden } from './cases.js';

describe.each(GOLDEN_CASES.map((goldenCase) => [goldenCase.name, goldenCase] as const))('golden outputs: %s', (_name, goldenCase) => {
  it.each(goldenCase.outputs.map((output) => [output.file, output] as const))('%s', (_file, output) => {
    const result = runGolden(output);
    expect(result.status, result.stderr).toBe(output.status);
    const expected = readFileSync(goldenPath(goldenCase, output), 'utf8');
    // Compared as lines first, for a readable failure; then as bytes.
    expect(result.stdout.split('\n')).toEqual(expected.split('\n'));
    expect(result.stdout).toBe(expected);
  });
});

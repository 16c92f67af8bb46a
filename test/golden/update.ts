/**
 * `npm run golden:update`: writes every golden output anew from the built CLI (run
 * `npm run build` first). Review the diff as code: each changed byte is a changed output.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GOLDEN_CASES, goldenPath, runGolden } from './cases.js';

let failed = false;
for (const goldenCase of GOLDEN_CASES) {
  for (const output of goldenCase.outputs) {
    const result = runGolden(output);
    if (result.status !== output.status) {
      process.stderr.write(`${goldenCase.name}/${output.file}: exit ${result.status}, expected ${output.status}\n${result.stderr}`);
      failed = true;
      continue;
    }
    const file = goldenPath(goldenCase, output);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, result.stdout);
  }
}
process.exitCode = failed ? 1 : 0;

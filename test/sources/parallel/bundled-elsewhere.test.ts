/**
 * A program that bundles gpu-audit's library into a file of its own has no parse-worker beside
 * it: a file that would go to a worker is then parsed in the calling thread, with the same report.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusFiles, repoRoot } from '../../helpers/corpus.js';

// Inside the repository, so that the packages left out of the bundle resolve from its node_modules.
const cacheDir = path.join(repoRoot, 'node_modules', '.cache');
mkdirSync(cacheDir, { recursive: true });
const directory = mkdtempSync(path.join(cacheDir, 'gpu-audit-bundled-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('gpu-audit bundled into another program', () => {
  it('parses in the calling thread when parse-worker is not beside the bundle, with the same report', async () => {
    const entry = path.join(directory, 'program.ts');
    writeFileSync(
      entry,
      [
        `import { runAudit } from ${JSON.stringify(path.join(repoRoot, 'src/engine/run-audit.ts'))};`,
        `import { parseWorkerInstalled } from ${JSON.stringify(path.join(repoRoot, 'src/sources/parallel/parse-in-worker.ts'))};`,
        `const [file, parseWorkers] = process.argv.slice(2);`,
        `const { report } = await runAudit({ inputs: [file], performance: { parseWorkers }, timeZone: 'UTC', idleThresholdPct: 5, keepGoing: false, pricing: 'on-demand', now: () => new Date('2026-06-01T00:00:00Z') });`,
        `process.stdout.write(JSON.stringify({ installed: parseWorkerInstalled(), sources: report.sources, gpus: report.gpus }));`,
      ].join('\n'),
    );
    const bundle = path.join(directory, 'program.mjs');
    await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'error' });
    const file = corpusFiles('nvidia-smi-csv').find((candidate) => candidate.endsWith('h100-80gb-hbm3-590.48.01-query-gpu-load.csv'))!;
    const run = (mode: string): { installed: boolean; sources: unknown; gpus: unknown } => {
      const result = spawnSync(process.execPath, [bundle, file, mode], { encoding: 'utf8' });
      expect(result.stderr).toBe('');
      return JSON.parse(result.stdout) as { installed: boolean; sources: unknown; gpus: unknown };
    };
    const always = run('always');
    expect(always.installed).toBe(false);
    const never = run('never');
    expect(always.sources).toEqual(never.sources);
    expect(always.gpus).toEqual(never.gpus);
  });
});

/**
 * Fast start: bin/gpu-audit.js compiles the CLI bundle with the V8 code cache that
 * `npm run build` (scripts/bundle.ts) wrote beside it. The cache must belong to the bundle
 * beside it, and a cache that does not (a bundle rebuilt without it, a copy from elsewhere)
 * must change nothing but the speed: the CLI then compiles the bundle from source.
 *
 * The fallback runs in a copy of the installed layout (bin/, dist/bundle/, package.json) in a
 * temporary folder, so that the shared dist/ is never touched.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, repoRoot } from '../helpers/corpus.js';

const BUNDLE = path.join(repoRoot, 'dist/bundle/gpu-audit.cjs');
const CACHE = `${BUNDLE}.v8cache`;
/** The cache starts with the SHA-256 of the bundle it was made from (bin/gpu-audit.js). */
const DIGEST_BYTES = 32;
const INPUT = corpusPath('nvidia-smi-xml', 'telegraf-tesla-t4.xml');

let copy: string;
beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), 'gpu-audit-code-cache-'));
  mkdirSync(path.join(copy, 'bin'));
  mkdirSync(path.join(copy, 'dist/bundle'), { recursive: true });
  copyFileSync(path.join(repoRoot, 'bin/gpu-audit.js'), path.join(copy, 'bin/gpu-audit.js'));
  copyFileSync(BUNDLE, path.join(copy, 'dist/bundle/gpu-audit.cjs'));
  copyFileSync(path.join(repoRoot, 'package.json'), path.join(copy, 'package.json'));
});
afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

function run(bin: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '1' }, timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The JSON report without the one field that differs from run to run. */
function reportOf(stdout: string): unknown {
  const report = JSON.parse(stdout) as Record<string, unknown>;
  delete report.generatedAt;
  return report;
}

describe('the code cache of the CLI bundle', () => {
  it('was written by the build for the bundle beside it', () => {
    const cache = readFileSync(CACHE);
    const digest = createHash('sha256').update(readFileSync(BUNDLE, 'utf8')).digest();
    expect(cache.subarray(0, DIGEST_BYTES).equals(digest)).toBe(true);
    expect(cache.length).toBeGreaterThan(DIGEST_BYTES);
  });

  it('is the one the CLI compiles with: V8 accepts it (a V8 flag set before the bundle compiles would make it turn it down)', () => {
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), '--version'], {
      encoding: 'utf8',
      env: { ...process.env, GPU_AUDIT_REPORT_CODE_CACHE: '1' },
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe('code cache: used\n');
  });

  it.each([
    ['no cache at all', (): void => rmSync(path.join(copy, 'dist/bundle/gpu-audit.cjs.v8cache'), { force: true })],
    ['a cache made for another bundle', (): void => {
      const cache = readFileSync(CACHE);
      cache.fill(0, 0, DIGEST_BYTES);
      writeFileSync(path.join(copy, 'dist/bundle/gpu-audit.cjs.v8cache'), cache);
    }],
  ])('with %s, the CLI compiles the bundle from source and answers the same', (_case, prepare) => {
    prepare();
    const bin = path.join(copy, 'bin/gpu-audit.js');
    const version = run(bin, ['--version']);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toBe(`${(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version}\n`);

    const withoutCache = run(bin, ['audit', INPUT, '--format', 'json']);
    const withCache = run(path.join(repoRoot, 'bin/gpu-audit.js'), ['audit', INPUT, '--format', 'json']);
    expect(withoutCache.status, withoutCache.stderr).toBe(0);
    expect(withCache.status, withCache.stderr).toBe(0);
    expect(reportOf(withoutCache.stdout)).toEqual(reportOf(withCache.stdout));
  });
});

/**
 * Fast start (issue "Performance", item 3): the heavy dependencies (cloud SDKs, the
 * interactive prompts) load only in the commands that need them. The built CLI runs as a
 * user runs it, with a module-resolve hook (NODE_OPTIONS=--import) that writes every module
 * URL the process resolves to a file; the test then reads which packages were loaded.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, repoRoot } from '../helpers/corpus.js';

/** Registers, in the loader thread, a resolve hook that appends each resolved URL to RECORD_MODULES_TO. */
const RECORDING_HOOK = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\\\n');
  return resolved;
}\`), { data: { log: process.env.RECORD_MODULES_TO } });
`;

/** Packages that cost hundreds of milliseconds to load and that only some commands use. */
const HEAVY_PACKAGES = /\/node_modules\/(@aws-sdk|@azure|@inquirer)\//;

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-lazy-'));
  writeFileSync(path.join(directory, 'record-modules.mjs'), RECORDING_HOOK);
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Runs the built CLI and returns the `node_modules` packages it loaded (`@scope/name` or `name`). */
function packagesLoadedBy(args: string[]): { status: number | null; stderr: string; packages: string[]; heavy: string[] } {
  const log = path.join(directory, `modules-${args.join('-').replace(/[^\w-]/g, '_')}.txt`);
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: `--import ${path.join(directory, 'record-modules.mjs')}`, RECORD_MODULES_TO: log, NO_COLOR: '1', CI: '1' },
    timeout: 60_000,
  });
  const urls = readFileSync(log, 'utf8').split('\n').filter((line) => line !== '');
  const packages = new Set<string>();
  for (const url of urls) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match !== null) packages.add(match[1]!);
  }
  return { status: run.status, stderr: run.stderr, packages: [...packages].sort(), heavy: urls.filter((url) => HEAVY_PACKAGES.test(url)) };
}

describe('heavy dependencies load lazily', () => {
  it('the hook records what the CLI loads (commander parses every command line)', () => {
    const run = packagesLoadedBy(['--version']);
    expect(run.status).toBe(0);
    expect(run.packages).toContain('commander');
  });

  it('gpu-audit --version loads no cloud SDK and no prompt library', () => {
    const run = packagesLoadedBy(['--version']);
    expect(run.status).toBe(0);
    expect(run.heavy).toEqual([]);
  });

  it('an audit of one small nvidia-smi XML loads no cloud SDK and no prompt library', () => {
    const run = packagesLoadedBy(['audit', corpusPath('nvidia-smi-xml', 'telegraf-tesla-t4.xml'), '--format', 'json']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.heavy).toEqual([]);
  });

  it('catalog list loads no cloud SDK and no prompt library (the bundled snapshot needs neither)', () => {
    const run = packagesLoadedBy(['catalog', 'list', '--provider', 'aws']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.heavy).toEqual([]);
  });
});

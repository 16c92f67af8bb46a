/**
 * Fast start (issue "Performance", item 3): the heavy dependencies (cloud SDKs, the
 * interactive prompts) load only in the commands that need them. The built CLI runs as a
 * user runs it, with a recording preload (NODE_OPTIONS=--import) that writes every module
 * the process loads to a file: what the ES loader resolves (a resolve hook) and what require()
 * loaded (the CommonJS module cache, at exit). The test then reads which packages were loaded.
 *
 * The CLI is one CommonJS bundle (scripts/bundle.ts): what every start needs is inside it,
 * while what it imports on demand (cloud SDKs, prompts, execa, ora, zod) stays outside and
 * loads from node_modules when a command imports it, where the recording sees it. The first
 * test shows both: nothing from node_modules at start, a cloud SDK when a command uses one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, repoRoot } from '../helpers/corpus.js';

/**
 * Registers, in the loader thread, a resolve hook that appends each resolved URL to
 * RECORD_MODULES_TO, and appends at exit every file that require() loaded, which no resolve
 * hook sees (what the CommonJS bundle requires: zod, for one).
 */
const RECORDING_HOOK = `
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
const log = process.env.RECORD_MODULES_TO;
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\\\n');
  return resolved;
}\`), { data: { log } });
const requireCache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  appendFileSync(log, Object.keys(requireCache).map((file) => pathToFileURL(file).href + '\\n').join(''));
});
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

interface LoadedModules {
  status: number | null;
  stderr: string;
  /** Every module URL the process resolved. */
  urls: string[];
  /** The `node_modules` packages among them (`@scope/name` or `name`). */
  packages: string[];
  heavy: string[];
}

/** Runs the built CLI and returns what it loaded. */
function packagesLoadedBy(args: string[], env: NodeJS.ProcessEnv = {}): LoadedModules {
  const log = path.join(directory, `modules-${args.join('-').replace(/[^\w-]/g, '_')}.txt`);
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: `--import ${path.join(directory, 'record-modules.mjs')}`, RECORD_MODULES_TO: log, NO_COLOR: '1', CI: '1', ...env },
    timeout: 60_000,
  });
  const urls = readFileSync(log, 'utf8').split('\n').filter((line) => line !== '');
  const packages = new Set<string>();
  for (const url of urls) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match !== null) packages.add(match[1]!);
  }
  return { status: run.status, stderr: run.stderr, urls, packages: [...packages].sort(), heavy: urls.filter((url) => HEAVY_PACKAGES.test(url)) };
}

describe('heavy dependencies load lazily', () => {
  it('the recording sees what the CLI loads: nothing from node_modules at start, a cloud SDK when a command imports one', async () => {
    const version = packagesLoadedBy(['--version']);
    expect(version.status).toBe(0);
    expect(version.urls.some((url) => url.endsWith('/bin/gpu-audit.js'))).toBe(true);
    // Everything a start needs is inside the bundle: nothing comes from node_modules.
    expect(version.packages).toEqual([]);

    // `catalog refresh --aws` imports the AWS SDK, then fails fast: its endpoint is a local port
    // nobody listens on (taken from the system, then closed), so the run needs no network.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const refresh = packagesLoadedBy(['catalog', 'refresh', '--aws', '--region', 'us-east-1'], {
      GPU_AUDIT_AWS_ENDPOINT: `http://127.0.0.1:${port}`,
      GPU_AUDIT_CACHE_DIR: directory,
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    expect(refresh.status, refresh.stderr).toBe(3);
    expect(refresh.packages).toEqual(expect.arrayContaining(['@aws-sdk/client-ec2', '@aws-sdk/client-pricing']));
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

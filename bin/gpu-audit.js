#!/usr/bin/env node
/**
 * Starts the CLI: dist/bundle/gpu-audit.cjs, one CommonJS file written by `npm run build`
 * (scripts/bundle.ts), compiled with the V8 code cache that the build wrote beside it
 * (gpu-audit.cjs.v8cache), which spares most of the parsing and compiling of a start.
 *
 * The cache starts with the SHA-256 of the bundle it was made from; V8 itself checks only the
 * source's length, its own version and its flags. A cache made for another bundle, another
 * Node.js or other flags is not used (or V8 rejects it) and the bundle compiles from source:
 * slower, never different.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const bundle = fileURLToPath(new URL('../dist/bundle/gpu-audit.cjs', import.meta.url));
const cacheFile = `${bundle}.v8cache`;
const DIGEST_BYTES = 32;

if (!existsSync(bundle)) {
  // A clone installed without its dev dependencies (scripts/prepare.mjs said so): nothing to run yet.
  process.stderr.write('gpu-audit: not built (dist/bundle/gpu-audit.cjs is missing): run npm install and npm run build in the gpu-audit checkout\n');
  process.exit(4);
}

// The bundle's import() of what it loads on demand (execa, ora, zod, the cloud SDKs), made here:
// on Node 20 an import() inside code compiled by vm.Script fails (scripts/bundle.ts).
globalThis[Symbol.for('gpu-audit.import-on-demand')] = (specifier) => import(specifier);

if (process.argv.includes('--debug')) {
  // --debug prints stack traces: load the bundle plainly, with its source map, so that they
  // name the lines of src/ rather than of the bundle.
  process.setSourceMapsEnabled(true);
  createRequire(import.meta.url)(bundle);
} else {
  runBundle();
}

function runBundle() {
  const bytes = readFileSync(bundle);
  const digest = createHash('sha256').update(bytes).digest();
  const source = bytes.toString('utf8');
  const cachedData = readCache(digest);
  // The wrapper of require() itself, so that the bundle sees the same five names.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (process.env.GPU_AUDIT_WRITE_CODE_CACHE === '1') {
    // scripts/bundle.ts runs one audit this way: at exit the cache also holds every function that
    // run compiled, not only the top level.
    process.on('exit', () => {
      try {
        writeFileSync(cacheFile, Buffer.concat([digest, script.createCachedData()]));
      } catch {
        // A read-only install: the build reports the missing cache; a run goes on without one.
      }
    });
  }
  if (process.env.GPU_AUDIT_REPORT_CODE_CACHE === '1') {
    // For the build's tests: a cache V8 turns down (other flags) costs start-up time and nothing else.
    process.stderr.write(`code cache: ${cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'used'}\n`);
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
}

function readCache(digest) {
  let cache;
  try {
    cache = readFileSync(cacheFile);
  } catch {
    return undefined; // not built, or not shipped: compile from source
  }
  return cache.subarray(0, DIGEST_BYTES).equals(digest) ? cache.subarray(DIGEST_BYTES) : undefined;
}

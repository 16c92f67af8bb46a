/**
 * Bundles the CLI into one file for a fast start; `npm run build` runs it before tsc.
 *
 *   npx tsx scripts/bundle.ts      writes dist/bundle/gpu-audit.cjs, which bin/gpu-audit.js loads,
 *                                  and its V8 code cache, gpu-audit.cjs.v8cache; and
 *                                  dist/bundle/parse-worker.cjs, the thread that parses a large
 *                                  file while the CLI analyses it (src/sources/parallel)
 *
 * Why: run from tsc's output, every command resolved, read, compiled and linked about 450
 * modules (ours, and those of commander, yaml, chalk, fast-xml-parser...), which was most of
 * the start-up time. tsc's dist/ stays the library (`exports["."]`) and its type declarations;
 * the bundle is only the CLI.
 *
 * Why one CommonJS file rather than ES modules with code splitting: measured on an audit of one
 * small document, the split ES build loaded 8 to 24 chunk files (esbuild makes a chunk for each
 * set of lazy entry points that share code) and each module costs the ES loader a read, a
 * resolve and a link; the single file started faster. It keeps what is loaded on demand lazy:
 *   - the dependencies gpu-audit imports on demand (cloud SDKs, prompts, execa, ora, zod) are
 *     not bundled: `await import()` stays an import() and a static import inside a module that
 *     is itself imported on demand becomes a require() that runs only when that module does,
 *     so each loads from node_modules, as before, only when used
 *     (test/perf/lazy-loading.test.ts watches that);
 *   - our own modules behind an `await import()` (the saved-report reader, the config loader,
 *     the catalog cache and refresh, init) are wrapped by esbuild so that their top-level code
 *     runs only when the import does.
 *
 * The code cache: bin/gpu-audit.js compiles the bundle with it, which spares most of the
 * parsing and compiling of each start. It is made here by one audit of the demo fleet, so that
 * it holds the functions an audit compiles, and it is only good for the Node.js that made it
 * (another one compiles from source, as without a cache).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const outdir = path.join(repoRoot, 'dist/bundle');

/** Dependencies gpu-audit imports only on demand, each in the few commands that need it. */
const LOADED_ON_DEMAND = ['@aws-sdk/*', '@aws-crypto/*', '@smithy/*', '@azure/*', '@inquirer/*', 'execa', 'ora', 'zod'];

/**
 * CommonJS has no import.meta: its one use in our code (src/support/package-root.ts) and in fdir's
 * `createRequire(import.meta.url)` get the bundle file's own URL instead.
 */
const MODULE_URL = '__gpuAuditModuleUrl';

/**
 * The `import()` of a dependency loaded on demand goes through a function that
 * bin/gpu-audit.js provides, an import() of its own ES module: on Node 20 an import() inside
 * code that vm.Script compiled fails ("A dynamic import callback was not specified"), and
 * vm.Script (which takes the code cache) can only be given its own loader under
 * --experimental-vm-modules, or the main one with an ExperimentalWarning on stderr.
 * Without that function (the bundle required plainly, as for --debug) a plain import() serves.
 */
const IMPORT_ON_DEMAND = '__gpuAuditImport';
const IMPORT_HOOK = "Symbol.for('gpu-audit.import-on-demand')";
/**
 * How esbuild prints such an import() before this script points it at IMPORT_ON_DEMAND:
 * `import("on-demand:execa")` becomes `__gpuAuditImport("execa")`, of the same length, so that
 * the source map still holds for the rest of the line.
 */
const ON_DEMAND_PREFIX = 'on-demand:';
if (`import("${ON_DEMAND_PREFIX}`.length !== `${IMPORT_ON_DEMAND}("`.length) throw new Error('the on-demand prefix must keep the length of the line');

const BANNER = [
  // First, or the "use strict" that esbuild prints after the banner would not apply: the code was
  // written as ES modules, which are strict.
  "'use strict';",
  `const ${MODULE_URL} = require('node:url').pathToFileURL(__filename).href;`,
  `const ${IMPORT_ON_DEMAND} = globalThis[${IMPORT_HOOK}] ?? ((specifier) => import(specifier));`,
].join('\n');

const onDemandImports: Plugin = {
  name: 'on-demand-imports',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || !LOADED_ON_DEMAND.some((pattern) => matches(pattern, args.path))) return undefined;
      return { path: `${ON_DEMAND_PREFIX}${args.path}`, external: true };
    });
  },
};

function matches(pattern: string, specifier: string): boolean {
  return pattern.endsWith('/*') ? specifier.startsWith(pattern.slice(0, -1)) : specifier === pattern;
}

rmSync(outdir, { recursive: true, force: true });

const result = await build({
  absWorkingDir: repoRoot,
  // The parse worker (src/sources/parallel) is an entry of its own, parse-worker.cjs beside the CLI's:
  // a worker thread that parses a large file loads the parsers, not the whole CLI.
  entryPoints: { 'gpu-audit': 'src/cli/main.ts', 'parse-worker': 'src/sources/parallel/parse-worker.ts' },
  outdir,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: LOADED_ON_DEMAND,
  define: { 'import.meta.url': MODULE_URL },
  banner: { js: BANNER },
  plugins: [onDemandImports],
  // Less text to parse at every start. Identifiers are not minified, so names stay readable; no
  // keepNames: its __name() wrapper runs at every closure creation, measurable on hot paths.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});

const printedImport = `import("${ON_DEMAND_PREFIX}`;
// Each output file (the CLI and the parse worker) is routed on its own.
for (const [outputPath, output] of Object.entries(result.metafile.outputs)) {
  if (!outputPath.endsWith('.cjs')) continue;
  const bundleFile = path.join(repoRoot, outputPath);
  const printed = readFileSync(bundleFile, 'utf8');
  const onDemand = output.imports.filter((entry) => entry.path.startsWith(ON_DEMAND_PREFIX));
  const found = printed.split(printedImport).length - 1;
  // Each one must be routed: one left as esbuild printed it would fail at run time.
  if (found !== onDemand.length) throw new Error(`${bundleFile}: ${onDemand.length} imports on demand, but ${found} printed as ${printedImport}...`);
  const routed = printed.replaceAll(printedImport, `${IMPORT_ON_DEMAND}("`);
  // Nor may any other import() be left but the banner's fallback (a dependency's own, say).
  if (routed.split('import(').length - 1 !== 1) throw new Error(`${bundleFile}: an import() other than those of LOADED_ON_DEMAND: make it one of them, or bundle what it imports`);
  writeFileSync(bundleFile, routed);
  process.stdout.write(`bundle: ${path.relative(repoRoot, bundleFile)}, ${(routed.length / 1e6).toFixed(2)} MB, ${onDemand.length} imports on demand\n`);
}

const cacheRun = spawnSync(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), 'audit', '--demo', '--format', 'json'], {
  cwd: repoRoot,
  env: { ...process.env, GPU_AUDIT_WRITE_CODE_CACHE: '1', NO_COLOR: '1' },
  stdio: ['ignore', 'ignore', 'pipe'],
  encoding: 'utf8',
});
const cacheFile = path.join(outdir, 'gpu-audit.cjs.v8cache');
if (existsSync(cacheFile)) {
  process.stdout.write(`code cache: ${path.relative(repoRoot, cacheFile)}\n`);
} else {
  // The CLI works without it, only starts slower: say so, but do not fail the build.
  process.stderr.write(`warning: no code cache written (the demo audit exited ${cacheRun.status}): ${cacheRun.stderr.trim()}\n`);
}

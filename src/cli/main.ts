import { processIo } from './io.js';
import { runCli } from './program.js';

// No top-level await: the installed CLI is this module bundled as CommonJS (scripts/bundle.ts).
void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});

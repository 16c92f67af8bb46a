/** Writes docs/cli.md from the commands' definitions (scripts/cli-reference.ts): `npm run docs`. */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CLI_REFERENCE_FILE, cliReference } from './cli-reference.js';

await writeFile(fileURLToPath(new URL(`../${CLI_REFERENCE_FILE}`, import.meta.url)), await cliReference());
console.log(`wrote ${CLI_REFERENCE_FILE}`);

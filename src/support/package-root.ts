import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of gpu-audit's own package.json, where package.json, fixtures/ and schema/ sit.
 * Found by walking up from this module rather than by a fixed `../`: the same code runs from
 * src/ (tests), dist/ (tsc output, the library) and dist/bundle/ (the CLI's esbuild bundle, where
 * this code lands in whichever chunk uses it), each at a different depth below the root.
 */
export function packageRoot(): string {
  // Found on first use: a module that merely imports this one (a parse worker) reads nothing.
  root ??= findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
  return root;
}

let root: string | undefined;

function findPackageRoot(start: string): string {
  for (let folder = start; ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, 'package.json'))) return folder;
    if (path.dirname(folder) === folder) throw new Error(`gpu-audit: no package.json in ${start} or any folder above it`);
  }
}

import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root (tests run from anywhere). */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** `../shared/corpus` beside the project: real outputs of real tools (read-only). */
export const corpusRoot = path.resolve(repoRoot, '../shared/corpus');

export function corpusPath(...parts: string[]): string {
  return path.join(corpusRoot, ...parts);
}

/** Files of one corpus folder, sorted, optionally filtered by a name test. */
export function corpusFiles(folder: string, test: (name: string) => boolean = () => true): string[] {
  return readdirSync(corpusPath(folder)).filter(test).sort().map((name) => corpusPath(folder, name));
}

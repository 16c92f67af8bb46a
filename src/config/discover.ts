/**
 * Where gpu-audit.yaml is: the file named with --config, else the first of CONFIG_FILE_NAMES in
 * the working directory or the nearest parent that has one. The walk stops at the filesystem
 * root, and after checking a directory that holds `.git` (a repository's root): a config above
 * the repository belongs to something else.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathExists } from '../support/index.js';

export const CONFIG_FILE_NAMES = ['gpu-audit.yaml', 'gpu-audit.yml', '.gpu-audit.yaml'] as const;

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The config file that applies in `startDirectory`, or undefined when there is none. */
export async function discoverConfigFile(startDirectory: string): Promise<string | undefined> {
  let directory = path.resolve(startDirectory);
  for (;;) {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = path.join(directory, name);
      if (await isFile(candidate)) return candidate;
    }
    const parent = path.dirname(directory);
    if (parent === directory || (await pathExists(path.join(directory, '.git')))) return undefined;
    directory = parent;
  }
}

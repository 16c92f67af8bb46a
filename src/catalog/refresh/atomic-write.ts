/**
 * Replace a file so that readers see the old content or the new, never a mix: write a temp
 * file in the same directory (a rename across file systems is not atomic), fsync it, rename
 * it over the target, then fsync the directory so the rename itself survives a crash.
 * A run killed before the rename leaves the old file untouched and a `*.tmp` beside it.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';

const TEMP_SUFFIX = '.tmp';

export async function writeFileAtomically(target: string, data: string): Promise<void> {
  const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(path.dirname(target));
}

/** Best effort: some platforms (Windows) cannot open or fsync a directory. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The data is already renamed into place; only durability across a power cut is weaker.
  }
}

/**
 * Removes temp files a killed writer left beside `target`. Call it only while holding the
 * lock that serialises writers of `target`, or a live writer's temp file could go.
 */
export async function removeLeftoverTempFiles(target: string): Promise<void> {
  const directory = path.dirname(target);
  const prefix = `${path.basename(target)}.`;
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return;
  }
  await Promise.all(names.filter((name) => name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX)).map((name) => rm(path.join(directory, name), { force: true })));
}

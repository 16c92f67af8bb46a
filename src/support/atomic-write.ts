/**
 * Nothing gpu-audit writes (a report, the catalog cache, a collect bundle's manifest, a
 * config from `init`) may be left half-written: a reader (a CI step, a dashboard,
 * `check --baseline`, the next audit) sees either the previous file or the complete new one.
 * The data goes to a temporary file beside the target (same directory, so the same file
 * system and rename is atomic), is flushed to disk, and then renamed over the target.
 *
 * Only a regular file, or a path where nothing is yet, is replaced so. A device (`/dev/null`,
 * a terminal), a FIFO or a link to one (`/dev/stdout`, `/proc/self/fd/1`) is opened and
 * written in place: renaming a file over it would destroy it for every other user.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, type Stats } from 'node:fs';
import { open, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from './errors.js';

/** What the usual failures mean to someone who typed `-o some/path`. */
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'the directory does not exist',
  ENOTDIR: 'a parent of the path is not a directory',
  EISDIR: 'the path is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links in the path',
};

export function describeFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && REASONS[code] !== undefined) return `${REASONS[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

/** Writing through a symbolic link updates the file it points to instead of replacing the link. */
async function resolveTarget(target: string): Promise<string> {
  try {
    return await realpath(target);
  } catch {
    return target; // does not exist yet (or a dangling link): write the path as given
  }
}

/** Keep the permissions of a file we replace (a rename would otherwise reset them to the defaults). */
async function existingMode(target: string): Promise<number | undefined> {
  try {
    const stats = await stat(target);
    return stats.isFile() ? stats.mode & 0o7777 : undefined;
  } catch {
    return undefined;
  }
}

const TEMPORARY_SUFFIX = '.tmp';
const TEMPORARY_ID_BYTES = 6;
const TEMPORARY_ID = new RegExp(`^[0-9a-f]{${TEMPORARY_ID_BYTES * 2}}$`, 'u');

/** Hidden, and named after the target so that leftovers of a killed writer can be found. */
function temporaryPrefix(target: string): string {
  return `.${path.basename(target)}.`;
}

/** Exactly the names this module makes beside `target`: `.NAME.<12 hex digits>.tmp`. */
function isTemporaryOf(target: string, name: string): boolean {
  const prefix = temporaryPrefix(target);
  if (!name.startsWith(prefix) || !name.endsWith(TEMPORARY_SUFFIX)) return false;
  return TEMPORARY_ID.test(name.slice(prefix.length, -TEMPORARY_SUFFIX.length));
}

/**
 * Temporary files being written now. A process that ends in the middle (process.exit from a
 * broken pipe, an error elsewhere) removes them at exit; a signal is handled by the CLI
 * (src/cli/output.ts), and a SIGKILL leaves them to the next run's sweep.
 */
const live = new Set<string>();
let exitCleanupInstalled = false;

function track(temporary: string): void {
  if (!exitCleanupInstalled) {
    exitCleanupInstalled = true;
    process.on('exit', () => {
      for (const file of live) rmSync(file, { force: true });
    });
  }
  live.add(temporary);
}

/** The target's own kind: a regular file (or nothing yet) is replaced; anything else is written in place. */
async function targetKind(target: string): Promise<'replace' | 'in-place'> {
  let info: Stats;
  try {
    info = await stat(target); // through links: `/dev/stdout` is the terminal or pipe it names
  } catch {
    return 'replace';
  }
  if (info.isDirectory()) throw new InputError(`cannot write this file: ${REASONS.EISDIR} (EISDIR)`, { file: target });
  return info.isFile() ? 'replace' : 'in-place';
}

export interface AtomicWriteHooks {
  /** Told the temporary file's path before it is created, so a signal handler can remove it if the process is stopped mid-write. */
  onTemporary?: (temporary: string) => void;
}

/**
 * Writes `data` (UTF-8) to `target` atomically. On any failure the temporary file is
 * removed, the target is left as it was, and an InputError names the path and the reason.
 * `data` may be pieces (a generator of a large report's text): each is encoded and written
 * as it comes, so the whole text is never copied into one Buffer. When making the pieces
 * fails, the temporary file goes as well and that error is thrown as it is: a bug is not a
 * path the user typed wrong.
 */
export async function writeFileAtomic(target: string, data: string | Iterable<string>, hooks: AtomicWriteHooks = {}): Promise<void> {
  if ((await targetKind(target)) === 'in-place') {
    await writeInPlace(target, data);
    return;
  }
  const destination = await resolveTarget(target);
  const temporary = path.join(path.dirname(destination), `${temporaryPrefix(destination)}${randomBytes(TEMPORARY_ID_BYTES).toString('hex')}${TEMPORARY_SUFFIX}`);
  let handle: FileHandle | undefined;
  hooks.onTemporary?.(temporary);
  track(temporary);
  try {
    const mode = await existingMode(destination);
    // `wx`: never follow or reuse something already at the temporary name.
    handle = await open(temporary, 'wx', mode ?? 0o666);
    if (mode !== undefined) await handle.chmod(mode); // the umask applied to `open` must not narrow a mode we keep
    if (typeof data === 'string') await handle.writeFile(data, 'utf8');
    // writeFile on a handle writes from its current position, to the end of the piece (a short write is retried).
    else for (const piece of piecesOf(data)) await handle.writeFile(piece, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, destination);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temporary, { force: true }).catch(() => undefined);
    if (error instanceof PiecesFailed) throw error.cause;
    throw new InputError(`cannot write this file: ${describeFailure(error)}`, { file: target, cause: error });
  } finally {
    live.delete(temporary);
  }
  await syncDirectory(path.dirname(destination));
}

/** A device, FIFO or socket: opened for writing as it is (never truncated, created or replaced) and written piece by piece. */
async function writeInPlace(target: string, data: string | Iterable<string>): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(target, 'a');
    if (typeof data === 'string') await handle.writeFile(data, 'utf8');
    else for (const piece of piecesOf(data)) await handle.writeFile(piece, 'utf8');
  } catch (error) {
    if (error instanceof PiecesFailed) throw error.cause;
    throw new InputError(`cannot write this file: ${describeFailure(error)}`, { file: target, cause: error });
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** An error of the code making the pieces, told apart from the file system's. */
class PiecesFailed extends Error {}

function* piecesOf(data: Iterable<string>): Generator<string, void, undefined> {
  const iterator = data[Symbol.iterator]();
  for (;;) {
    let next: IteratorResult<string>;
    try {
      next = iterator.next();
    } catch (error) {
      throw new PiecesFailed('making the data failed', { cause: error });
    }
    if (next.done === true) return;
    yield next.value;
  }
}

/**
 * Makes the rename itself durable across a power loss. Best effort: some platforms
 * (Windows) and file systems cannot open or fsync a directory, and the data is already safe.
 */
async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // nothing to do: see above
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Removes temporary files that a killed writer left beside `target`. Call it only while
 * holding a lock that serialises the writers of `target`, or a live writer's file could go.
 */
export async function removeLeftoverTempFiles(target: string): Promise<void> {
  const directory = path.dirname(target);
  const prefix = temporaryPrefix(target);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return;
  }
  const leftovers = names.filter((name) => name.startsWith(prefix) && name.endsWith(TEMPORARY_SUFFIX));
  await Promise.all(leftovers.map((name) => rm(path.join(directory, name), { force: true })));
}

/**
 * Removes the temporary files that a writer killed with SIGKILL (which no handler sees) left
 * beside `target`: only names of this module's own pattern, and only those last changed before
 * `olderThanMs` (the start of this run), so a concurrent run's file being written is kept.
 */
export async function sweepStaleTemporaries(target: string, olderThanMs: number): Promise<string[]> {
  const destination = await resolveTarget(target);
  const directory = path.dirname(destination);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!isTemporaryOf(destination, name)) continue;
    const file = path.join(directory, name);
    const info = await stat(file).catch(() => undefined);
    if (info === undefined || !info.isFile() || info.mtimeMs >= olderThanMs) continue;
    await rm(file, { force: true }).catch(() => undefined);
    removed.push(file);
  }
  return removed;
}

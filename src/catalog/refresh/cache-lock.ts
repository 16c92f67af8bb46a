/**
 * A lock file so that two refreshes of one provider's cache cannot interleave. Created with
 * O_EXCL (`wx`), so exactly one process wins; it holds the owner's pid, host and start time.
 * A lock is stale, and taken over, when it is older than `staleAfterMs` or its owner is a
 * process of this host that no longer exists (a refresh that was killed).
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { InputError } from '../../support/index.js';

export const DEFAULT_LOCK_STALE_MS = 10 * 60 * 1000;
const POLL_MS = 200;

interface LockRecord {
  pid: number;
  hostname: string;
  createdAt: string;
  /** Tells this holder's lock from a successor's after a stale takeover. */
  token: string;
}

export interface LockOptions {
  /** How long to wait for a running refresh to finish; 0 (default) fails at once. */
  waitMs?: number;
  staleAfterMs?: number;
  now?: () => Date;
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return !isErrno(error, 'ESRCH');
  }
}

async function readLock(lockPath: string): Promise<LockRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(lockPath, 'utf8')) as Partial<LockRecord>;
    if (typeof parsed.pid === 'number' && typeof parsed.hostname === 'string' && typeof parsed.createdAt === 'string') {
      return { pid: parsed.pid, hostname: parsed.hostname, createdAt: parsed.createdAt, token: String(parsed.token ?? '') };
    }
  } catch {
    // Unreadable or half-written: judged by its age below.
  }
  return undefined;
}

async function isStale(lockPath: string, staleAfterMs: number, now: Date): Promise<boolean> {
  const record = await readLock(lockPath);
  if (record !== undefined) {
    if (now.getTime() - Date.parse(record.createdAt) > staleAfterMs) return true;
    return record.hostname === hostname() && !processExists(record.pid);
  }
  try {
    return now.getTime() - (await stat(lockPath)).mtimeMs > staleAfterMs;
  } catch {
    return true;
  }
}

async function tryCreate(lockPath: string, record: LockRecord): Promise<boolean> {
  try {
    await writeFile(lockPath, `${JSON.stringify(record)}\n`, { flag: 'wx', mode: 0o644 });
    return true;
  } catch (error) {
    if (isErrno(error, 'EEXIST')) return false;
    throw error;
  }
}

/** Moves a stale lock aside (atomic, so two takers cannot both remove a fresh successor). */
async function removeStale(lockPath: string): Promise<void> {
  const aside = `${lockPath}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
    await rm(aside, { force: true });
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
}

async function describeHolder(lockPath: string): Promise<string> {
  const record = await readLock(lockPath);
  return record === undefined ? 'another process' : `process ${record.pid} on ${record.hostname}, since ${record.createdAt}`;
}

export interface HeldLock {
  release(): Promise<void>;
}

/** Takes the lock or throws InputError naming the holder and the lock file. */
export async function acquireLock(lockPath: string, what: string, options: LockOptions = {}): Promise<HeldLock> {
  const now = options.now ?? (() => new Date());
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_LOCK_STALE_MS;
  const deadline = Date.now() + (options.waitMs ?? 0);
  const record: LockRecord = { pid: process.pid, hostname: hostname(), createdAt: now().toISOString(), token: randomBytes(8).toString('hex') };

  for (;;) {
    if (await tryCreate(lockPath, record)) break;
    if (await isStale(lockPath, staleAfterMs, now())) {
      await removeStale(lockPath);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new InputError(`another ${what} is running (${await describeHolder(lockPath)}); wait for it to finish, or delete the lock file if that process is gone`, { file: lockPath });
    }
    await sleep(POLL_MS);
  }

  return {
    async release() {
      // Only our own lock: after a stale takeover the file may be a successor's.
      const current = await readLock(lockPath);
      if (current?.token === record.token) await rm(lockPath, { force: true });
    },
  };
}

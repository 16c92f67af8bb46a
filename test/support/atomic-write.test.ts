/**
 * writeFileAtomic against the real file system (a fresh temporary directory per test):
 * readers see the old file or the new one, never a part; failures leave nothing behind.
 */
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/support/errors.js';
import { removeLeftoverTempFiles, writeFileAtomic } from '../../src/support/atomic-write.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'gpu-audit-write-'));
});

afterEach(async () => {
  await chmod(directory, 0o700).catch(() => undefined);
  await rm(directory, { recursive: true, force: true });
});

/** What a failed write must leave: no `.name.xxxx.tmp` beside the target. */
async function leftovers(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => name.endsWith('.tmp'));
}

async function failure(promise: Promise<unknown>): Promise<InputError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}

describe('writeFileAtomic', () => {
  it('creates the file with the data, leaving no temporary file', async () => {
    const target = path.join(directory, 'report.json');
    await writeFileAtomic(target, '{"schemaVersion":1}\n');
    expect(await readFile(target, 'utf8')).toBe('{"schemaVersion":1}\n');
    expect(await readdir(directory)).toEqual(['report.json']);
  });

  it('replaces an existing file and keeps its permissions', async () => {
    const target = path.join(directory, 'report.md');
    await writeFile(target, 'old');
    await chmod(target, 0o640);
    await writeFileAtomic(target, 'new ✓');
    expect(await readFile(target, 'utf8')).toBe('new ✓');
    expect((await stat(target)).mode & 0o777).toBe(0o640);
  });

  it('never shows a reader a partly written file while writes race', async () => {
    const target = path.join(directory, 'report.json');
    // 4 MiB each: large enough that a non-atomic write would be seen half done.
    const versions = ['a', 'b'].map((letter) => letter.repeat(4 * 1024 * 1024));
    await writeFileAtomic(target, versions[0]!);
    let writing = true;
    const writes = (async () => {
      for (let round = 0; round < 20; round += 1) await writeFileAtomic(target, versions[round % 2]!);
      writing = false;
    })();
    const seen = new Set<string>();
    while (writing) {
      const content = await readFile(target, 'utf8');
      seen.add(content.length === versions[0]!.length && (content === versions[0] || content === versions[1]) ? content[0]! : `torn (${content.length} bytes)`);
    }
    await writes;
    expect([...seen].filter((kind) => kind.startsWith('torn'))).toEqual([]);
    expect(await leftovers(directory)).toEqual([]);
  });

  it('writes through a symbolic link to the file it points to', async () => {
    const real = path.join(directory, 'real.json');
    const link = path.join(directory, 'latest.json');
    await writeFile(real, 'old');
    await symlink('real.json', link);
    await writeFileAtomic(link, 'new');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe('real.json');
    expect(await readFile(real, 'utf8')).toBe('new');
  });

  it('names the path when the directory does not exist', async () => {
    const target = path.join(directory, 'missing', 'report.json');
    const error = await failure(writeFileAtomic(target, 'x'));
    expect(error.file).toBe(target);
    expect(error.describe()).toBe(`${target}: cannot write this file: the directory does not exist (ENOENT)`);
  });

  it('names the path when a parent is a file', async () => {
    await writeFile(path.join(directory, 'plain-file'), 'keep me');
    const target = path.join(directory, 'plain-file', 'report.json');
    const error = await failure(writeFileAtomic(target, 'x'));
    expect(error.describe()).toBe(`${target}: cannot write this file: a parent of the path is not a directory (ENOTDIR)`);
    expect(await readFile(path.join(directory, 'plain-file'), 'utf8')).toBe('keep me');
    expect(await leftovers(directory)).toEqual([]);
  });

  it('removes its temporary file when the final rename fails (the target is a directory)', async () => {
    // The temporary file is created and written before the rename fails: this is the cleanup path.
    const target = path.join(directory, 'out');
    await mkdir(target);
    await writeFile(path.join(target, 'inside.txt'), 'untouched');
    const error = await failure(writeFileAtomic(target, 'x'));
    expect(error.file).toBe(target);
    // POSIX rename() refuses to put a file over a directory with EISDIR (Windows says EPERM).
    const reason = process.platform === 'win32' ? 'operation not permitted (EPERM)' : 'the path is a directory (EISDIR)';
    expect(error.describe()).toBe(`${target}: cannot write this file: ${reason}`);
    expect(await leftovers(directory)).toEqual([]);
    expect(await readFile(path.join(target, 'inside.txt'), 'utf8')).toBe('untouched');
  });

  // Root ignores directory permissions, so this runs only as an ordinary user (as in CI).
  it.skipIf(process.getuid?.() === 0)('leaves the old file intact when the directory is read-only', async () => {
    const target = path.join(directory, 'report.json');
    await writeFile(target, 'old');
    await chmod(directory, 0o500);
    const error = await failure(writeFileAtomic(target, 'new'));
    expect(error.describe()).toBe(`${target}: cannot write this file: permission denied (EACCES)`);
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await leftovers(directory)).toEqual([]);
  });
});

describe('writeFileAtomic with the data in pieces', () => {
  it('writes the pieces in order as one file (UTF-8, multi-byte characters included)', async () => {
    const target = path.join(directory, 'report.json');
    await writeFile(target, 'previous');
    function* pieces(): Generator<string> {
      yield '{"host": "nœud-';
      yield 'é'.repeat(100_000);
      yield '"}\n';
    }
    await writeFileAtomic(target, pieces());
    expect(await readFile(target, 'utf8')).toBe(`{"host": "nœud-${'é'.repeat(100_000)}"}\n`);
    expect(await readdir(directory)).toEqual(['report.json']);
  });

  it('keeps the old file, removes the temporary one and throws the error as it is when making a piece fails', async () => {
    const target = path.join(directory, 'report.json');
    await writeFile(target, 'previous');
    const bug = new TypeError('renderer bug');
    function* pieces(): Generator<string> {
      yield 'half of a report';
      throw bug;
    }
    await expect(writeFileAtomic(target, pieces())).rejects.toBe(bug);
    expect(await readFile(target, 'utf8')).toBe('previous');
    expect(await readdir(directory)).toEqual(['report.json']);
  });
});

describe('removeLeftoverTempFiles', () => {
  it("removes only the target's own leftovers, never the target or its neighbours", async () => {
    const target = path.join(directory, 'catalog-aws.json');
    await writeFile(target, 'current');
    await writeFile(path.join(directory, '.catalog-aws.json.0a1b2c3d4e5f.tmp'), '{"half":');
    await writeFile(path.join(directory, '.catalog-azure.json.0a1b2c3d4e5f.tmp'), 'another writer');
    await writeFile(path.join(directory, 'catalog-aws.json.bak'), 'a user file');
    await removeLeftoverTempFiles(target);
    expect((await readdir(directory)).sort()).toEqual(['.catalog-azure.json.0a1b2c3d4e5f.tmp', 'catalog-aws.json', 'catalog-aws.json.bak']);
  });

  it('does nothing when the directory does not exist yet', async () => {
    await expect(removeLeftoverTempFiles(path.join(directory, 'missing', 'catalog-aws.json'))).resolves.toBeUndefined();
  });
});

describe('writeFileAtomic onto what is not a regular file', () => {
  it('writes a FIFO in place instead of renaming a file over it', async () => {
    const fifo = path.join(directory, 'fifo');
    const { spawn, spawnSync } = await import('node:child_process');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('cat', [fifo]);
    let read = '';
    reader.stdout.on('data', (chunk: Buffer) => (read += chunk.toString()));
    const done = new Promise((resolve) => reader.on('exit', resolve));
    await writeFileAtomic(fifo, ['one ', 'two'].values());
    await done;
    expect(read).toBe('one two');
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    expect(await leftovers(directory)).toEqual([]);
  });

  it('refuses a directory in one line, naming it', async () => {
    const error = await failure(writeFileAtomic(directory, 'x'));
    expect(error.describe()).toBe(`${directory}: cannot write this file: the path is a directory (EISDIR)`);
  });
});

describe('sweepStaleTemporaries', () => {
  it('removes only this module\'s own temporary names beside the target, and only those older than the run', async () => {
    const { utimes } = await import('node:fs/promises');
    const { sweepStaleTemporaries } = await import('../../src/support/atomic-write.js');
    const target = path.join(directory, 'report.json');
    const names = ['.report.json.0123456789ab.tmp', '.report.json.0123456789abcd.tmp', '.report.json.XYZ.tmp', '.other.json.0123456789ab.tmp', 'report.json.0123456789ab.tmp'];
    for (const name of names) await writeFile(path.join(directory, name), '');
    const past = new Date(Date.now() - 60_000);
    for (const name of names) await utimes(path.join(directory, name), past, past);
    const fresh = '.report.json.aaaaaaaaaaaa.tmp';
    await writeFile(path.join(directory, fresh), '');
    const removed = await sweepStaleTemporaries(target, Date.now() - 10_000);
    expect(removed).toEqual([path.join(directory, '.report.json.0123456789ab.tmp')]);
    expect((await readdir(directory)).sort()).toEqual([...names.slice(1), fresh].sort());
  });
});

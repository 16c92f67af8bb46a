/**
 * A full disk while `-o FILE` is written: the write error is injected at the file layer
 * (node:fs/promises, the module writeFileAtomic writes through), after part of the data has
 * reached the temporary file, as a disk that fills up mid-write does. The user gets one
 * clear line naming the path and the reason; FILE keeps its previous content and no partial
 * file is left.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type * as FsPromises from 'node:fs/promises';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  return {
    ...actual,
    open: async (...args: Parameters<typeof actual.open>) => {
      const handle = await actual.open(...args);
      if (args[1] !== 'wx') return handle; // only the temporary file of writeFileAtomic fills the disk
      return new Proxy(handle, {
        get(target, property, receiver) {
          if (property === 'writeFile') {
            return async (data: string) => {
              await target.writeFile(data.slice(0, Math.floor(data.length / 2))); // half made it to disk
              throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
            };
          }
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
});

const { writeFileAtomic } = await import('../../src/support/atomic-write.js');
const { InputError } = await import('../../src/support/errors.js');

describe('-o FILE on a full disk', () => {
  it('fails with the path and "no space left", keeps the old file, leaves no partial file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-full-disk-'));
    const file = path.join(dir, 'report.json');
    writeFileSync(file, '{"previous": true}\n');
    const failure = await writeFileAtomic(file, JSON.stringify({ big: 'x'.repeat(100_000) })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InputError);
    expect((failure as InstanceType<typeof InputError>).describe()).toBe(`${file}: cannot write this file: no space left on the device (ENOSPC)`);
    expect(readFileSync(file, 'utf8')).toBe('{"previous": true}\n');
    expect(readdirSync(dir)).toEqual(['report.json']);
  });

  it('fails the same way when the data comes in pieces (a streamed JSON report)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-full-disk-'));
    const file = path.join(dir, 'report.json');
    writeFileSync(file, '{"previous": true}\n');
    const pieces = ['{"big": "', 'x'.repeat(100_000), '"}\n'];
    const failure = await writeFileAtomic(file, pieces.values()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InputError);
    expect((failure as InstanceType<typeof InputError>).describe()).toBe(`${file}: cannot write this file: no space left on the device (ENOSPC)`);
    expect(readFileSync(file, 'utf8')).toBe('{"previous": true}\n');
    expect(readdirSync(dir)).toEqual(['report.json']);
  });

  it('leaves nothing at all when there was no previous file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-full-disk-'));
    await expect(writeFileAtomic(path.join(dir, 'new.json'), '{}')).rejects.toThrow(/no space left on the device/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

/**
 * emitOutput: a rendered report to stdout or, with -o, atomically to a file; a large JSON
 * report comes as pieces, which go out one by one and make the same bytes as the whole text.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { emitOutput } from '../../src/cli/output.js';

function capturingIo(): CliIo & { written: string[] } {
  const written: string[] = [];
  return { written, stdout: (text) => written.push(text), stderr: () => undefined, stdoutIsTty: false, stderrIsTty: false, env: {}, stdin: Readable.from([]) };
}

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'gpu-audit-output-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('emitOutput', () => {
  it('writes a text to stdout in one write, and pieces one write each, as they come', async () => {
    const io = capturingIo();
    await emitOutput(io, 'whole\n', undefined);
    await emitOutput(io, ['{\n', '  "a": 1\n', '}\n'].values(), '-');
    expect(io.written).toEqual(['whole\n', '{\n', '  "a": 1\n', '}\n']);
  });

  it('writes pieces to -o FILE as one file, with no temporary file left', async () => {
    const io = capturingIo();
    const target = path.join(directory, 'report.json');
    await emitOutput(io, ['{\n', '  "a": 1\n', '}\n'].values(), target);
    expect(await readFile(target, 'utf8')).toBe('{\n  "a": 1\n}\n');
    expect(await readdir(directory)).toEqual(['report.json']);
    expect(io.written).toEqual([]);
  });
});

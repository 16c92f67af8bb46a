/**
 * emitOutput: a rendered report to stdout or, with -o, atomically to a file; a large JSON
 * report comes as pieces, which go out one by one and make the same bytes as the whole text.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { drained, type CliIo } from '../../src/cli/io.js';
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

  it('makes the next piece only once stdout has taken the last: a slow pipe does not queue the whole output', async () => {
    const io = capturingIo();
    const waiting: (() => void)[] = [];
    io.stdoutDrained = () => new Promise<void>((resolve) => waiting.push(resolve));
    let made = 0;
    function* pieces(): Generator<string> {
      for (const piece of ['{\n', '  "a": 1\n', '}\n']) {
        made += 1;
        yield piece;
      }
    }
    const writing = emitOutput(io, pieces(), undefined);
    for (let taken = 1; taken <= 3; taken += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      expect([made, io.written.length, waiting.length]).toEqual([taken, taken, taken]);
      waiting[taken - 1]!();
    }
    await writing;
    expect(io.written.join('')).toBe('{\n  "a": 1\n}\n');
  });

  it('waits for a stream that needs draining until it drains or closes, and not at all for one that does not', async () => {
    const pipe = new PassThrough({ highWaterMark: 4 });
    await drained(pipe); // nothing written: at once
    pipe.write('more than four bytes');
    let done = false;
    const waiting = drained(pipe).then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    pipe.read(); // the reader takes it: 'drain'
    await waiting;
    expect(done).toBe(true);

    const closing = new PassThrough({ highWaterMark: 4 });
    closing.write('more than four bytes');
    const closed = drained(closing);
    closing.destroy();
    await closed;
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

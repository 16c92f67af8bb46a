import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/support/errors.js';
import { READ_CHUNK_BYTES, TEXT_PIECE_BYTES, hostForInput, openInput, rereadOf, resolveInputs } from '../../src/sources/inputs.js';

function tempTree(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'gpu-audit-inputs-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), content);
  }
  return root;
}

async function readAll(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

describe('resolveInputs', () => {
  it('walks directories recursively in name order, skipping hidden files, and marks them discovered', async () => {
    const root = tempTree({ 'b.xml': 'b', 'a/z.csv': 'z', 'a/y.csv': 'y', '.hidden': 'h' });
    const inputs = await resolveInputs([root]);
    expect(inputs.map((input) => path.relative(root, input.ref))).toEqual(['a/y.csv', 'a/z.csv', 'b.xml']);
    expect(inputs.every((input) => input.discovered)).toBe(true);
  });

  it('follows symbolic links to files and directories, enters no directory twice on one path and skips broken links', async () => {
    const root = tempTree({ 'logs/real.csv': 'r', 'elsewhere/n1.xml': '1', 'elsewhere/sub/n2.xml': '2' });
    const logs = path.join(root, 'logs');
    symlinkSync(path.join(root, 'elsewhere/n1.xml'), path.join(logs, 'link.xml'));
    symlinkSync(path.join(root, 'elsewhere'), path.join(logs, 'more'));
    symlinkSync(logs, path.join(logs, 'loop')); // logs/loop -> logs
    symlinkSync(path.join(root, 'missing.xml'), path.join(logs, 'broken.xml'));
    const inputs = await resolveInputs([logs]);
    expect(inputs.map((input) => path.relative(logs, input.ref))).toEqual(['link.xml', 'more/n1.xml', 'more/sub/n2.xml', 'real.csv']);
  });

  it('names a directory that holds no file when nothing else was given', async () => {
    const root = tempTree({ 'empty/.hidden': 'h', 'full/a.xml': 'a' });
    const empty = path.join(root, 'empty');
    await expect(resolveInputs([empty])).rejects.toThrow(new InputError('no files in this directory (hidden files are skipped)', { file: empty }));
    // Beside other inputs an empty directory is no error.
    expect((await resolveInputs([empty, path.join(root, 'full')])).map((input) => path.basename(input.ref))).toEqual(['a.xml']);
  });

  it('keeps a named file as named and not discovered, and drops repeats', async () => {
    const root = tempTree({ 'node.xml': 'x' });
    const file = path.join(root, 'node.xml');
    const inputs = await resolveInputs([file, root, file]);
    expect(inputs).toEqual([{ ref: file, path: file, discovered: false }]);
  });

  it('expands globs', async () => {
    const root = tempTree({ 'n1.csv': '1', 'n2.csv': '2', 'n3.xml': '3' });
    const inputs = await resolveInputs([path.join(root, '*.csv')]);
    expect(inputs.map((input) => path.basename(input.ref))).toEqual(['n1.csv', 'n2.csv']);
  });

  it('names the missing file or the empty pattern', async () => {
    const root = tempTree({});
    await expect(resolveInputs([path.join(root, 'nope.xml')])).rejects.toThrow(InputError);
    await expect(resolveInputs([path.join(root, 'nope.xml')])).rejects.toThrow('no such file or directory');
    await expect(resolveInputs([path.join(root, '*.xml')])).rejects.toThrow('no file matches this pattern');
  });

  it('refuses more files than the cap, naming the first past it, whether walked or globbed', async () => {
    const root = tempTree({ 'a/1.csv': '1', 'a/2.csv': '2', 'b/3.csv': '3' });
    await expect(resolveInputs([root], {}, 2)).rejects.toThrow(new InputError(
      'more than 2 input files (directories and globs expanded); nothing was read: audit fewer at once, or read more with --input-limit files=N',
      { file: path.join(root, 'b/3.csv') },
    ));
    await expect(resolveInputs([path.join(root, '*/*.csv')], {}, 2)).rejects.toThrow('more than 2 input files');
    // A repeat is not a file more.
    expect(await resolveInputs([root, root], {}, 3)).toHaveLength(3);
  });

  it('reads - as stdin', async () => {
    expect(await resolveInputs(['-'])).toEqual([{ ref: '-', path: undefined, discovered: false }]);
  });
});

describe('hostForInput', () => {
  it('takes the host from the file name without its extensions', () => {
    expect(hostForInput({ ref: 'x', path: '/logs/gpu-node-07.xml.gz', discovered: false }, undefined)).toBe('gpu-node-07');
    expect(hostForInput({ ref: 'x', path: 'dgx-a.csv', discovered: false }, undefined)).toBe('dgx-a');
    expect(hostForInput({ ref: 'x', path: 'trainer', discovered: false }, undefined)).toBe('trainer');
  });

  it('prefers --host, and calls stdin stdin', () => {
    expect(hostForInput({ ref: 'x', path: 'a.xml', discovered: false }, 'h1')).toBe('h1');
    expect(hostForInput({ ref: '-', path: undefined, discovered: false }, undefined)).toBe('stdin');
  });
});

describe('openInput', () => {
  it('knows the size of a regular file (compressed, for gzip), to plan its parse; not that of stdin', async () => {
    const text = 'index, utilization.gpu [%]\n0, 5 %\n';
    const root = tempTree({ 'plain.csv': text, 'packed.csv.gz': gzipSync(text.repeat(1000)) });
    const plain = await openInput({ ref: 'p', path: path.join(root, 'plain.csv'), discovered: false });
    expect([plain.bytes, plain.head]).toEqual([text.length, text]);
    const packed = await openInput({ ref: 'g', path: path.join(root, 'packed.csv.gz'), discovered: false });
    expect(packed.bytes).toBe(gzipSync(text.repeat(1000)).length);
    expect(await readAll(packed.chunks)).toBe(text.repeat(1000));
    const stdin = await openInput({ ref: '-', path: undefined, discovered: false }, Readable.from([Buffer.from(text)]));
    expect([stdin.bytes, stdin.head]).toEqual([undefined, text]);
  });

  it('recognises gzip by its magic bytes, whatever the name', async () => {
    const text = '<nvidia_smi_log>é</nvidia_smi_log>\n'.repeat(5000);
    const root = tempTree({ 'plain-name.xml': gzipSync(text) });
    const opened = await openInput({ ref: 'p', path: path.join(root, 'plain-name.xml'), discovered: false });
    expect(opened.head.startsWith('<nvidia_smi_log>é')).toBe(true);
    expect(await readAll(opened.chunks)).toBe(text);
  });

  it('decodes a multi-byte character split across chunks and drops a BOM', async () => {
    const bytes = Buffer.from('\uFEFFname, memory.used [MiB]\nGPU é, 5\n', 'utf8');
    const split = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
    const stdin = Readable.from([bytes.subarray(0, split), bytes.subarray(split)]);
    const opened = await openInput({ ref: '-', path: undefined, discovered: false }, stdin);
    expect(await readAll(opened.chunks)).toBe('name, memory.used [MiB]\nGPU é, 5\n');
  });

  it('decodes ASCII chunks and chunks that finish a character the same as one decoder would', async () => {
    // Chunks: ASCII, ASCII ending in the first byte of "é", the second byte alone, ASCII,
    // a three-byte "€" split 1 + 2, an invalid byte, then a lead byte cut off by an ASCII chunk
    // (each invalid piece one U+FFFD, as Buffer#toString gives).
    const text = 'timestamp, name\n2026/01/01, GPU é, €, ok\n';
    const bytes = Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0xff, 0xc3]), Buffer.from('\nend\n')]);
    const e = bytes.indexOf(0xc3);
    const euro = bytes.indexOf(0xe2);
    const cuts = [0, 10, e + 1, e + 2, euro + 1, bytes.length - 5, bytes.length];
    const chunks = cuts.slice(1).map((end, i) => bytes.subarray(cuts[i], end));
    const stdin = Readable.from(chunks);
    const opened = await openInput({ ref: '-', path: undefined, discovered: false }, stdin);
    expect(await readAll(opened.chunks)).toBe(bytes.toString('utf8'));
  });

  it('hands text on in pieces of at most TEXT_PIECE_BYTES, or in whole reads where the parser asks', async () => {
    const text = 'y'.repeat(3 * READ_CHUNK_BYTES + 5);
    const root = tempTree({ 'big.txt': text });
    const lengths = async (pieceBytes?: number): Promise<number[]> => {
      const opened = await openInput({ ref: 'b', path: path.join(root, 'big.txt'), discovered: false });
      if (pieceBytes !== undefined) opened.setTextPieceBytes(pieceBytes);
      const seen: number[] = [];
      for await (const chunk of opened.chunks) seen.push(chunk.length);
      return seen;
    };
    const pieces = await lengths();
    expect(pieces.reduce((sum, length) => sum + length, 0)).toBe(text.length);
    expect(Math.max(...pieces)).toBe(TEXT_PIECE_BYTES);
    // The first read was cut for the head before the parser was known; the later ones are whole.
    expect((await lengths(READ_CHUNK_BYTES)).slice(-3)).toEqual([READ_CHUNK_BYTES, READ_CHUNK_BYTES, 5]);
  });

  it('hands the head to detection and replays it in the stream', async () => {
    const big = 'x'.repeat(200 * 1024);
    const root = tempTree({ 'big.txt': big });
    const opened = await openInput({ ref: 'b', path: path.join(root, 'big.txt'), discovered: false });
    expect(opened.head.length).toBe(64 * 1024);
    expect((await readAll(opened.chunks)).length).toBe(big.length);
  });

  it('reports corrupt gzip as an input error naming the file', async () => {
    const corrupt = Buffer.concat([gzipSync('a'.repeat(100000)).subarray(0, 40)]);
    const root = tempTree({ 'bad.gz': corrupt });
    const read = async (): Promise<string> => {
      const opened = await openInput({ ref: 'bad.gz', path: path.join(root, 'bad.gz'), discovered: false });
      return readAll(opened.chunks);
    };
    await expect(read()).rejects.toThrow(/bad.gz|gzip/);
    await expect(read()).rejects.toBeInstanceOf(InputError);
  });
});

describe('rereadOf', () => {
  it('reads a file, plain or gzipped, again from its start in the pieces of the first read, as often as asked', async () => {
    const text = `${'0123456789'.repeat(20_000)}\n`;
    const root = tempTree({ 'plain.json': text, 'packed.json.gz': gzipSync(text) });
    const piecesOf = async (chunks: AsyncIterable<string>): Promise<number[]> => {
      const lengths: number[] = [];
      for await (const chunk of chunks) lengths.push(chunk.length);
      return lengths;
    };
    for (const name of ['plain.json', 'packed.json.gz']) {
      const input = { ref: name, path: path.join(root, name), discovered: false };
      const first = await openInput(input);
      first.setTextPieceBytes(1000);
      const reread = rereadOf(input, first, 1000)!;
      expect(await piecesOf(reread())).toEqual(await piecesOf(first.chunks));
      expect(await readAll(reread())).toBe(text);
    }
  });

  it('is absent for standard input, and for anything not opened as a regular file, which can be read once', async () => {
    const stdin = { ref: '-', path: undefined, discovered: false };
    expect(rereadOf(stdin, await openInput(stdin, Readable.from([Buffer.from('{}')])), undefined)).toBeUndefined();
    expect(rereadOf({ ref: 'a.json', path: 'a.json', discovered: false }, { bytes: undefined }, undefined)).toBeUndefined();
  });
});

/**
 * Turns what the user named (files, directories, globs, `-`) into a list of inputs,
 * and opens one as a stream of decoded text: gzip is recognised by its magic bytes,
 * never by the name, and UTF-8 is decoded across chunk boundaries.
 */
import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { InputError } from '../support/index.js';
import { DEFAULT_INPUT_LIMITS, limitHint } from './input-limits.js';
import { bundleAuditFiles, bundleManifestOfFile, readBundleManifest } from './bundle.js';

export interface InputRef {
  /** As the user named it (`-` for stdin), or the path found under a named directory. */
  ref: string;
  /** Filesystem path; undefined for stdin. */
  path: string | undefined;
  /** Found by walking a directory or expanding a glob: an unrecognised format is skipped, not fatal. */
  discovered: boolean;
  /** The host a `gpu-audit collect` bundle's manifest names for this file. */
  bundleHost?: string;
}

export const STDIN_REF = '-';

/**
 * Expands the user's arguments, in the order given; files under a directory are sorted.
 * `refs` names a file argument otherwise than as given (the bundled demo's files: `demo/<file>`,
 * not the install's path).
 */
export async function resolveInputs(args: string[], refs: Readonly<Record<string, string>> = {}, maxFiles = DEFAULT_INPUT_LIMITS.filesPerRun): Promise<InputRef[]> {
  const inputs: InputRef[] = [];
  const seen = new Set<string>();
  /** A directory named that holds no file: the reason when nothing at all is found. */
  let emptyDirectory: string | undefined;
  const add = (input: InputRef): void => {
    const key = input.path === undefined ? STDIN_REF : path.resolve(input.path);
    if (seen.has(key)) return;
    if (inputs.length === maxFiles) {
      throw new InputError(`more than ${maxFiles} input files (directories and globs expanded); nothing was read: audit fewer at once, or read more with ${limitHint('filesPerRun')}`, { file: input.ref });
    }
    seen.add(key);
    inputs.push(input);
  };

  for (const arg of args) {
    if (arg === STDIN_REF) {
      add({ ref: STDIN_REF, path: undefined, discovered: false });
      continue;
    }
    const info = await stat(arg).catch(() => undefined);
    if (info?.isDirectory()) {
      // A collect bundle: its manifest lists the audit inputs and names their host.
      const bundle = await readBundleManifest(arg);
      if (bundle !== undefined) {
        for (const file of bundleAuditFiles(arg, bundle)) add({ ref: file, path: file, discovered: false, bundleHost: bundle.host });
        continue;
      }
      let found = 0;
      await walk(arg, (file) => {
        found += 1;
        add({ ref: file, path: file, discovered: true });
      });
      if (found === 0) emptyDirectory ??= arg;
    } else if (info?.isFile()) {
      const bundle = await bundleManifestOfFile(arg);
      const ref = Object.hasOwn(refs, arg) ? refs[arg]! : arg;
      add(bundle === undefined ? { ref, path: arg, discovered: false } : { ref, path: arg, discovered: false, bundleHost: bundle.host });
    } else {
      // Loaded only here, for an argument that is neither a file nor a directory: tinyglobby
      // brings picomatch with it, which an audit of named files does not need at start-up.
      const { glob, isDynamicPattern } = await import('tinyglobby');
      if (isDynamicPattern(arg)) {
        const matches = (await glob(arg, { onlyFiles: true, dot: false, expandDirectories: false })).sort();
        if (matches.length === 0) throw new InputError('no file matches this pattern', { file: arg });
        for (const file of matches) add({ ref: file, path: file, discovered: true });
      } else if (info === undefined) {
        throw new InputError('no such file or directory', { file: arg });
      } else {
        throw new InputError('not a regular file or directory', { file: arg });
      }
    }
  }
  if (inputs.length === 0 && emptyDirectory !== undefined) throw new InputError('no files in this directory (hidden files are skipped)', { file: emptyDirectory });
  return inputs;
}

/**
 * Calls `onFile` for each file under `directory`, in name order, as it is found (so that the
 * files cap stops a walk of a huge tree early). Symbolic links are followed (log directories are
 * often links into rotated or mounted files); a link to a directory already on the way down is
 * not entered again, and a broken link is skipped.
 */
async function walk(directory: string, onFile: (file: string) => void, ancestors: ReadonlySet<string> = new Set()): Promise<void> {
  const entries = await readdir(directory, { withFileTypes: true }).catch((error: unknown) => {
    throw new InputError(`cannot read directory (${errorCode(error)})`, { file: directory, cause: error });
  });
  const real = await realpath(directory).catch(() => directory);
  const above = new Set(ancestors).add(real);
  // Code-point order: the same on every machine, whatever its locale.
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(directory, entry.name);
    const target = entry.isSymbolicLink() ? await stat(full).catch(() => undefined) : entry;
    if (target?.isDirectory() === true) {
      if (!above.has(await realpath(full).catch(() => full))) await walk(full, onFile, above);
    } else if (target?.isFile() === true) onFile(full);
  }
}

/** The errno code of a failed read (`ENOENT`), for messages. */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}

/**
 * The host an input's devices belong to: the explicit one, else the one its collect
 * bundle names, else the file's name without its extensions (`node-07.xml.gz` -> `node-07`),
 * else `stdin`.
 */
export function hostForInput(input: InputRef, explicitHost: string | undefined): string {
  if (explicitHost !== undefined && explicitHost !== '') return explicitHost;
  if (input.bundleHost !== undefined) return input.bundleHost;
  if (input.path === undefined) return 'stdin';
  let name = path.basename(input.path);
  name = name.replace(/\.gz$/i, '');
  name = name.replace(/\.(xml|csv|txt|log|prom|json|out)$/i, '');
  return name === '' ? path.basename(input.path) : name;
}

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;
export const HEAD_CHARS = 64 * 1024;
/**
 * Large reads: with Node's 64 KiB reads and 16 KiB inflate chunks, stream overhead and the
 * garbage of many small buffers cost more than inflating itself on day-long gzipped logs. The
 * text is handed on in smaller pieces (TEXT_PIECE_BYTES) unless the parser asks for whole reads.
 */
export const READ_CHUNK_BYTES = 1024 * 1024;
const GUNZIP_CHUNK_BYTES = 256 * 1024;

export interface OpenedInput {
  /** Decoded text from the start of the input, at most 64 KiB: what format detection sees. */
  head: string;
  /** The whole input as decoded text chunks, the head first. Iterate once. */
  chunks: AsyncIterable<string>;
  /** Releases the underlying stream when the caller stops early. */
  close(): void;
  /** Whether the bytes are gzip (the text is what they inflate to). */
  compressed: boolean;
  /** The file's size in bytes when it is a regular file (compressed, for gzip); undefined for stdin and pipes. */
  bytes: number | undefined;
  /** From the next chunk read on, hands the text on in pieces of at most this many bytes (see TEXT_PIECE_BYTES); undefined: no change. */
  setTextPieceBytes(bytes: number | undefined): void;
}

/** Opens an input for reading; errors name the file and say what went wrong. */
export async function openInput(input: InputRef, stdin: NodeJS.ReadableStream = process.stdin): Promise<OpenedInput> {
  const ref = input.ref;
  const size = input.path === undefined ? undefined : await regularFileBytes(input.path);
  // A small file is read whole, in one buffer of its size: a directory of a thousand host
  // snapshots would otherwise make a stream and a megabyte read buffer for each.
  const whole = input.path !== undefined && size !== undefined && size < READ_CHUNK_BYTES ? await readWhole(input.path, ref) : undefined;
  const raw: NodeJS.ReadableStream | undefined = whole !== undefined ? undefined : input.path === undefined ? stdin : createReadStream(input.path, { highWaterMark: READ_CHUNK_BYTES });
  const readRaw = raw === undefined ? bufferOnce(whole) : streamReads(raw, ref);
  const destroy = (): void => {
    (raw as (NodeJS.ReadableStream & { destroy?: () => void }) | undefined)?.destroy?.();
  };

  const first = await readRaw();
  const isGzip = first !== undefined && first.length >= 2 && first[0] === GZIP_MAGIC_0 && first[1] === GZIP_MAGIC_1;
  const decoder = new Utf8Chunks();
  const decodedChunks = isGzip ? gunzipChunks(first, readRaw, ref, decoder) : plainChunks(first, readRaw, decoder);

  // Read ahead until the head is long enough for detection; those chunks are replayed first.
  const buffered: string[] = [];
  let headLength = 0;
  const iterator = decodedChunks[Symbol.asyncIterator]();
  let exhausted = false;
  while (headLength < HEAD_CHARS) {
    const next = await iterator.next();
    if (next.done === true) {
      exhausted = true;
      break;
    }
    buffered.push(next.value);
    headLength += next.value.length;
  }
  const head = buffered.join('').slice(0, HEAD_CHARS);

  async function* all(): AsyncIterable<string> {
    yield* buffered;
    if (exhausted) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return;
      yield next.value;
    }
  }
  return { head, chunks: all(), close: destroy, compressed: isGzip, bytes: size, setTextPieceBytes: (bytes) => (decoder.pieceBytes = bytes ?? decoder.pieceBytes) };
}

/**
 * SourceContext.reread of an opened input: the file opened again, its text in pieces of
 * `textPieceBytes` (SourceParser.textPieceBytes). Undefined unless it was opened as a regular
 * file (`opened.bytes`): standard input is read once.
 */
export function rereadOf(input: InputRef, opened: Pick<OpenedInput, 'bytes'>, textPieceBytes: number | undefined): (() => AsyncIterable<string>) | undefined {
  if (input.path === undefined || opened.bytes === undefined) return undefined;
  return async function* reread() {
    const again = await openInput(input);
    again.setTextPieceBytes(textPieceBytes);
    try {
      yield* again.chunks;
    } finally {
      again.close();
    }
  };
}

/** The size of a regular file; undefined for anything else, or a file that cannot be looked at (its read says why). */
async function regularFileBytes(file: string): Promise<number | undefined> {
  return stat(file).then((info) => (info.isFile() ? info.size : undefined), () => undefined);
}

/** `buffer` at the first call, then the end. */
function bufferOnce(buffer: Buffer | undefined): () => Promise<Buffer | undefined> {
  let left = buffer;
  return async () => {
    const next = left;
    left = undefined;
    return next;
  };
}

/** The stream's chunks one call at a time, as Buffers, then undefined; a failed read names the input. */
function streamReads(raw: NodeJS.ReadableStream, ref: string): () => Promise<Buffer | undefined> {
  const bytes = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  return async () => {
    try {
      const next = await bytes.next();
      if (next.done === true) return undefined;
      return typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    } catch (error) {
      throw new InputError(`cannot read (${errorCode(error)})`, { file: ref, cause: error });
    }
  };
}

async function readWhole(file: string, ref: string): Promise<Buffer> {
  return readFile(file).catch((error: unknown) => {
    throw new InputError(`cannot read (${errorCode(error)})`, { file: ref, cause: error });
  });
}

async function* plainChunks(first: Buffer | undefined, readRaw: () => Promise<Buffer | undefined>, decoder: Utf8Chunks): AsyncIterable<string> {
  let chunk = first;
  while (chunk !== undefined) {
    yield* decoder.pieces(chunk);
    chunk = await readRaw();
  }
  const rest = decoder.end();
  if (rest !== '') yield rest;
}

/**
 * Bytes decoded into one string at most, unless the parser asks for other pieces
 * (SourceParser.textPieceBytes): 64 KiB of ASCII, a read in 16 pieces, give strings well under
 * V8's largest ordinary heap object (128 KiB). A longer string is made in its own memory
 * mapping, several times dearer to allocate and unmap (bench/MEASUREMENTS.md), and one of more
 * than 1,031,913 characters Node makes external to the heap, where dead ones pile up before
 * they count towards a collection.
 */
export const TEXT_PIECE_BYTES = 64 * 1024;

/**
 * UTF-8 decoding across chunk boundaries, without the byte order mark. Logs are nearly always
 * ASCII: such a chunk is copied as Latin-1, which is the same text several times faster than
 * decoding it, unless the decoder still holds the start of a character from the chunk before.
 */
export class Utf8Chunks {
  private readonly decoder = new StringDecoder('utf8');
  /** Whether the decoder may hold an incomplete character: the last chunk it read ended in a non-ASCII byte. */
  private pending = false;
  pieceBytes = TEXT_PIECE_BYTES;

  /** `atStart`: the bytes start the file, so a byte order mark there is dropped (one further in is text). */
  constructor(private atStart = true) {}

  /** The text of `chunk`, in pieces of at most pieceBytes bytes (empty ones left out). */
  *pieces(chunk: Buffer): Generator<string, void, undefined> {
    const pieceBytes = this.pieceBytes;
    for (let start = 0; start < chunk.length; start += pieceBytes) {
      const text = this.write(chunk.subarray(start, start + pieceBytes));
      if (text !== '') yield text;
    }
  }

  private write(chunk: Buffer): string {
    let text: string;
    if (!this.pending && isAscii(chunk)) {
      text = chunk.toString('latin1');
    } else {
      text = this.decoder.write(chunk);
      this.pending = chunk.length > 0 && chunk[chunk.length - 1]! >= ASCII_LIMIT;
    }
    if (this.atStart && text !== '') {
      this.atStart = false;
      if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
    }
    return text;
  }

  end(): string {
    return this.decoder.end();
  }
}

const ASCII_LIMIT = 0x80;
const BYTE_ORDER_MARK = 0xfeff;

async function* gunzipChunks(
  first: Buffer,
  readRaw: () => Promise<Buffer | undefined>,
  ref: string,
  decoder: Utf8Chunks,
): AsyncIterable<string> {
  const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
  // Feed compressed bytes in the background; errors surface through the gunzip stream.
  const feed = (async () => {
    let chunk: Buffer | undefined = first;
    while (chunk !== undefined) {
      if (!gunzip.write(chunk)) await new Promise((resolve) => gunzip.once('drain', resolve));
      chunk = await readRaw();
    }
    gunzip.end();
  })().catch((error: unknown) => gunzip.destroy(error as Error));

  try {
    for await (const piece of gunzip as AsyncIterable<Buffer>) {
      yield* decoder.pieces(piece);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`corrupt or truncated gzip data (${errorCode(error)})`, { file: ref, cause: error });
  }
  await feed;
  const rest = decoder.end();
  if (rest !== '') yield rest;
}

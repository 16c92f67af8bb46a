/**
 * A plain file cut into blocks of whole lines, for reading several at once
 * (sources/parallel/parse-in-blocks.ts). A block starts at a line that begins with the format's marker
 * (any line for a CSV, `<?xml` for an XML log, whose documents are independent): block i holds
 * the lines from the first such line that starts in bytes [i * blockBytes, (i + 1) * blockBytes)
 * to the first such line at or after (i + 1) * blockBytes. So every line belongs to exactly one
 * block whoever reads it, a block in which no such line starts is empty, and the first block
 * starts at the file's start, marker or not. The last block runs to the end of the file, however
 * long it has grown.
 *
 * Blocks start after a newline byte, never inside a UTF-8 character.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { InputError } from '../../support/index.js';
import type { ObservationSink } from '../../model/index.js';
import { errorCode, READ_CHUNK_BYTES, Utf8Chunks } from '../inputs.js';
import type { BlockParsing, BlockResult, SourceContext } from '../types.js';

/** How many blocks a file of `fileBytes` makes (at least one). */
export function blockCountOf(fileBytes: number, blockBytes: number): number {
  return Math.max(1, Math.ceil(fileBytes / blockBytes));
}

export interface FileBlock {
  path: string;
  /** The input as the user named it, for messages. */
  ref: string;
  index: number;
  blockBytes: number;
  /** Whether this is the file's last block (it then reads to the end). */
  last: boolean;
  /** What a line must begin with to start a block ('' for any line). */
  marker: string;
  /** SourceParser.textPieceBytes: pieces of at most this many bytes; undefined: inputs.ts TEXT_PIECE_BYTES. */
  pieceBytes: number | undefined;
}

/** Where a block lies in its file: bytes [start, end); Infinity: no line of it starts there, or it runs to the file's end. */
export interface BlockRange {
  start: number;
  end: number;
}

/**
 * Whether the block holds the end of the file: the last block, or one that runs to the end
 * because no line after it begins with the marker (the blocks after it are empty).
 */
export function holdsFileEnd(block: FileBlock, range: BlockRange): boolean {
  return block.last || (range.start !== Infinity && range.end === Infinity);
}

/** What parsing a block gave, and whether it held the file's end (see holdsFileEnd). */
export interface FileBlockResult {
  result: BlockResult;
  endOfFile: boolean;
}

/**
 * Parses one block with `parsing`, from `state`, telling it whether the block holds the file's end;
 * `through` may wrap the text on its way (the worker posts batches between pieces).
 */
export async function parseFileBlock(
  parsing: BlockParsing,
  block: FileBlock,
  context: SourceContext,
  sink: ObservationSink,
  state: string | undefined,
  through: (text: AsyncIterable<string>) => AsyncIterable<string> = (text) => text,
): Promise<FileBlockResult> {
  const range = await blockRange(block);
  const endOfFile = holdsFileEnd(block, range);
  return { result: await parsing.parseBlock(through(blockText(block, range)), context, sink, { state, last: endOfFile }), endOfFile };
}

/** Finds where `block` lies in its file (reading a little of it). */
export async function blockRange(block: FileBlock): Promise<BlockRange> {
  const handle = await openFile(block);
  try {
    return await rangeIn(handle, block);
  } finally {
    await handle.close();
  }
}

/** The text of one block, decoded as openInput decodes the file (the first block without a byte order mark). */
export async function* blockText(block: FileBlock, range?: BlockRange): AsyncIterable<string> {
  const handle = await openFile(block);
  try {
    const { start, end } = range ?? (await rangeIn(handle, block));
    if (start === Infinity) return;
    const decoder = new Utf8Chunks(start === 0);
    if (block.pieceBytes !== undefined) decoder.pieceBytes = block.pieceBytes;
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (let position = start; position < end;) {
      const bytesRead = await readAt(handle, buffer, position, Math.min(buffer.length, end - position), block.ref);
      if (bytesRead === 0) break;
      yield* decoder.pieces(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
    const rest = decoder.end();
    if (rest !== '') yield rest;
  } finally {
    await handle.close();
  }
}

async function openFile(block: FileBlock): Promise<FileHandle> {
  return await open(block.path, 'r').catch((error: unknown) => {
    throw cannotRead(error, block.ref);
  });
}

async function rangeIn(handle: FileHandle, block: FileBlock): Promise<BlockRange> {
  const pattern = Buffer.from(`\n${block.marker}`, 'utf8');
  const nominalStart = block.index * block.blockBytes;
  const nominalEnd = nominalStart + block.blockBytes;
  const start = block.index === 0 ? 0 : await markedLineAtOrAfter(handle, nominalStart, pattern, block.ref);
  // No such line starts in this block.
  if (start === Infinity || (start >= nominalEnd && !block.last)) return { start: Infinity, end: Infinity };
  const end = block.last ? Infinity : await markedLineAtOrAfter(handle, nominalEnd, pattern, block.ref);
  return { start, end };
}

/**
 * Where the first line at or after byte `from` that begins with the marker starts: the byte after
 * the first `pattern` (a newline and the marker) that starts at or after `from - 1`; Infinity
 * when there is none.
 */
async function markedLineAtOrAfter(handle: FileHandle, from: number, pattern: Buffer, ref: string): Promise<number> {
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  for (let position = from - 1; ;) {
    const bytesRead = await readAt(handle, buffer, position, buffer.length, ref);
    const at = buffer.subarray(0, bytesRead).indexOf(pattern);
    if (at !== -1) return position + at + 1;
    if (bytesRead < buffer.length) return Infinity;
    // The next read starts early enough to find a pattern this one cut.
    position += bytesRead - (pattern.length - 1);
  }
}

async function readAt(handle: FileHandle, buffer: Buffer, position: number, length: number, ref: string): Promise<number> {
  try {
    return (await handle.read(buffer, 0, length, position)).bytesRead;
  } catch (error) {
    throw cannotRead(error, ref);
  }
}

/** As openInput says it. */
function cannotRead(error: unknown, ref: string): InputError {
  return new InputError(`cannot read (${errorCode(error)})`, { file: ref, cause: error });
}

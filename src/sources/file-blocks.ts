/**
 * A plain file cut into blocks of whole lines, for reading several at once
 * (worker/parse-in-blocks.ts). Block i holds the lines that start in bytes
 * [i * blockBytes, (i + 1) * blockBytes): it starts after the first newline at or after byte
 * i * blockBytes - 1 and ends after the first newline at or after (i + 1) * blockBytes - 1, so
 * every line belongs to exactly one block whoever reads it, and a block that no line starts in
 * is empty. The last block runs to the end of the file, however long it has grown.
 *
 * Blocks start and end on a newline byte, never inside a UTF-8 character.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { InputError } from '../model/errors.js';
import { errorCode, READ_CHUNK_BYTES, Utf8Chunks } from './inputs.js';

const NEWLINE = 0x0a;

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
  /** SourceParser.textPieceBytes: pieces of at most this many bytes; undefined: inputs.ts TEXT_PIECE_BYTES. */
  pieceBytes: number | undefined;
}

/** The text of one block, decoded as openInput decodes the file (the first block without a byte order mark). */
export async function* blockText(block: FileBlock): AsyncIterable<string> {
  const start = block.index * block.blockBytes;
  const end = block.last ? Infinity : start + block.blockBytes;
  const handle = await open(block.path, 'r').catch((error: unknown) => {
    throw cannotRead(error, block.ref);
  });
  try {
    const decoder = new Utf8Chunks(start === 0);
    if (block.pieceBytes !== undefined) decoder.pieceBytes = block.pieceBytes;
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    // Position of buffer[0] in the file; before the first line start is found, `lineStart` is -1.
    let position = start === 0 ? 0 : start - 1;
    let lineStart = start === 0 ? 0 : -1;
    for (;;) {
      const bytesRead = await readAt(handle, buffer, position, block.ref);
      if (bytesRead === 0) break;
      const bytes = buffer.subarray(0, bytesRead);
      let from = 0;
      if (lineStart === -1) {
        const newline = bytes.indexOf(NEWLINE);
        if (newline === -1) {
          position += bytesRead;
          continue;
        }
        lineStart = position + newline + 1;
        if (lineStart >= end) return; // no line starts in this block
        from = newline + 1;
      }
      // The block ends with the line that holds byte end - 1, newline included.
      const endSearch = end - 1 - position;
      const newline = endSearch < bytesRead ? bytes.indexOf(NEWLINE, Math.max(from, endSearch)) : -1;
      yield* decoder.pieces(bytes.subarray(from, newline === -1 ? bytesRead : newline + 1));
      if (newline !== -1) return;
      position += bytesRead;
    }
    const rest = decoder.end();
    if (rest !== '') yield rest;
  } finally {
    await handle.close();
  }
}

async function readAt(handle: FileHandle, buffer: Buffer, position: number, ref: string): Promise<number> {
  try {
    return (await handle.read(buffer, 0, buffer.length, position)).bytesRead;
  } catch (error) {
    throw cannotRead(error, ref);
  }
}

/** As openInput says it. */
function cannotRead(error: unknown, ref: string): InputError {
  return new InputError(`cannot read (${errorCode(error)})`, { file: ref, cause: error });
}

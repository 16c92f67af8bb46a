/**
 * Writes a generated input in bounded pieces (the generators never hold a whole file) and
 * records what was written in a marker beside it, so that a later run reuses the file
 * instead of spending minutes regenerating the same bytes.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Text is gathered up to this many characters before one write(2). */
const FLUSH_CHARS = 4 * 1024 * 1024;

export class ChunkWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  private pendingBytes = 0;
  private written = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly fd: number) {}

  /** Bytes written so far, including what is still buffered (the generators stop on it). */
  get bytes(): number {
    return this.written + this.pendingBytes;
  }

  write(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    this.pendingBytes += Buffer.byteLength(text);
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const buffer = Buffer.from(this.pending.join(''), 'utf8');
    this.hash.update(buffer);
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(this.fd, buffer, offset);
    this.written += buffer.length;
    this.pending = [];
    this.pendingChars = 0;
    this.pendingBytes = 0;
  }

  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }
}

/** What the marker `<file>.json` says: the recipe (to know it is still the right file) and the result. */
export interface GeneratedMarker {
  recipe: Record<string, string | number>;
  bytes: number;
  sha256: string;
}

export function markerPath(file: string): string {
  return `${file}.json`;
}

/** The marker of `file` when it describes the same recipe and the file still has its size. */
export function readMarker(file: string, recipe: Record<string, string | number>): GeneratedMarker | undefined {
  if (!existsSync(file) || !existsSync(markerPath(file))) return undefined;
  try {
    const marker = JSON.parse(readFileSync(markerPath(file), 'utf8')) as GeneratedMarker;
    const sameRecipe = JSON.stringify(marker.recipe) === JSON.stringify(recipe);
    return sameRecipe && statSync(file).size === marker.bytes ? marker : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `produce` into `file` unless its marker shows the same recipe already made it.
 * Writes to a temporary name first: an interrupted run leaves no file that looks complete.
 */
export function generateOnce(file: string, recipe: Record<string, string | number>, produce: (out: ChunkWriter) => void): { marker: GeneratedMarker; reused: boolean } {
  const existing = readMarker(file, recipe);
  if (existing !== undefined) return { marker: existing, reused: true };
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  const fd = openSync(partial, 'w');
  let marker: GeneratedMarker;
  try {
    const out = new ChunkWriter(fd);
    produce(out);
    const sha256 = out.digest();
    marker = { recipe, bytes: out.bytes, sha256 };
  } finally {
    closeSync(fd);
  }
  renameSync(partial, file);
  writeFileSync(markerPath(file), `${JSON.stringify(marker, null, 2)}\n`);
  return { marker, reused: false };
}

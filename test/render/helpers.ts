/** Small readers for rendered text, shared by the renderer tests. */
import type { Report } from '../../src/model/report.js';

// eslint-disable-next-line no-control-regex -- looking for escape characters is the point
export const ANSI_OR_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

/** Display columns of a line of plain text (every glyph these renderers emit is one column wide). */
export function columns(line: string): number {
  return [...line].length;
}

export function linesOf(text: string): string[] {
  return text.replace(/\n$/u, '').split('\n');
}

/** The one line containing `needle`; fails loudly when there is none or more than one. */
export function lineWith(text: string, needle: string): string {
  const found = linesOf(text).filter((line) => line.includes(needle));
  if (found.length !== 1) throw new Error(`expected one line with ${JSON.stringify(needle)}, found ${found.length}:\n${text}`);
  return found[0]!;
}

/** A table row's cells as whitespace-separated tokens (figures never contain spaces). */
export function tokens(line: string): string[] {
  return line.trim().split(/\s+/u);
}

/**
 * The cells of a GFM table row, split the way GFM does: on `|` not escaped by a
 * backslash (an escaped backslash `\\` does not escape the pipe after it).
 */
export function markdownCells(row: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let index = 0; index < row.length; index += 1) {
    const character = row[index]!;
    if (character === '\\' && index + 1 < row.length) {
      cell += character + row[index + 1]!;
      index += 1;
    } else if (character === '|') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += character;
    }
  }
  cells.push(cell.trim());
  // A row starts and ends with a pipe: drop the empty strings outside them.
  return cells.slice(1, -1);
}

/** A deep copy to edit without touching the shared fixture. */
export function copyOf(report: Report): Report {
  return structuredClone(report);
}

/** The one line starting with `prefix`. */
export function lineStartingWith(text: string, prefix: string): string {
  const found = linesOf(text).filter((line) => line.startsWith(prefix));
  if (found.length !== 1) throw new Error(`expected one line starting with ${JSON.stringify(prefix)}, found ${found.length}:\n${text}`);
  return found[0]!;
}

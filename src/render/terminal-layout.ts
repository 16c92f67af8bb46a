/**
 * Fitting text into terminal columns. Widths count code points: the strings reaching
 * here are sanitised (no escapes, no controls), and wide CJK glyphs in hostnames are
 * rare enough that cli-table3's own measuring covers the table cells where they matter.
 */

const ELLIPSIS = '…';

function length(text: string): number {
  return [...text].length;
}

/** `a-very-long-name` -> `a-very-lo…` (keeps the start: process names, models, messages). */
export function truncateEnd(text: string, width: number): string {
  const characters = [...text];
  if (characters.length <= width) return text;
  if (width <= 1) return ELLIPSIS.slice(0, width);
  return `${characters.slice(0, width - 1).join('')}${ELLIPSIS}`;
}

/** `gke-prod-gpu-pool-1a2b-x7k9` -> `gke-prod…-x7k9` (keeps both ends: hostnames differ at the end). */
export function truncateMiddle(text: string, width: number): string {
  const characters = [...text];
  if (characters.length <= width) return text;
  if (width <= 1) return ELLIPSIS.slice(0, width);
  const tail = Math.floor((width - 1) / 2);
  const head = width - 1 - tail;
  return `${characters.slice(0, head).join('')}${ELLIPSIS}${characters.slice(characters.length - tail).join('')}`;
}

/**
 * Words of `text` in lines of at most `width` columns; lines after the first start
 * with `indent`. A word longer than a line is cut, never allowed to overflow.
 */
export function wrapWords(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  const room = (): number => width - (lines.length === 0 ? 0 : length(indent));
  const flush = (): void => {
    lines.push(lines.length === 0 ? line : `${indent}${line}`);
    line = '';
  };
  for (const word of text.split(' ').filter((part) => part !== '')) {
    let rest = word;
    const candidate = line === '' ? rest : `${line} ${rest}`;
    if (length(candidate) <= room()) {
      line = candidate;
      continue;
    }
    if (line !== '') flush();
    while (length(rest) > room()) {
      const characters = [...rest];
      const cut = Math.max(1, room());
      line = characters.slice(0, cut).join('');
      flush();
      rest = characters.slice(cut).join('');
    }
    line = rest;
  }
  if (line !== '' || lines.length === 0) flush();
  return lines;
}

export interface ColumnFit {
  /** Widest content of the column, header included. */
  natural: number;
  /** Flexible columns shrink (truncating their content) down to this; others never shrink. */
  minimum: number;
  flexible: boolean;
}

/**
 * Column widths that fit `available` columns: every column at its natural width if
 * that fits, else the widest flexible column gives up one column at a time until the
 * table fits or every flexible column is at its minimum.
 */
export function fitColumnWidths(columns: readonly ColumnFit[], available: number): number[] {
  const widths = columns.map((column) => column.natural);
  let excess = widths.reduce((sum, width) => sum + width, 0) - available;
  while (excess > 0) {
    let widest = -1;
    columns.forEach((column, index) => {
      const width = widths[index]!;
      if (column.flexible && width > column.minimum && (widest < 0 || width > widths[widest]!)) widest = index;
    });
    if (widest < 0) break;
    widths[widest] = widths[widest]! - 1;
    excess -= 1;
  }
  return widths;
}

/** Widest line of a (possibly multi-line) cell. */
export function cellWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map(length));
}

/**
 * `prefix` then the items joined by `separator`, continuing on lines that start with
 * `indent` when the next item would pass `width`. Items are never split; one longer
 * than a whole line is cut with `…`.
 */
export function wrapItems(items: readonly string[], width: number, prefix: string, indent: string, separator = ', '): string[] {
  const lines: string[] = [];
  let line = prefix;
  let lineHasItem = false;
  for (const [position, item] of items.entries()) {
    const piece = position < items.length - 1 ? `${item}${separator.trimEnd()}` : item;
    const candidate = lineHasItem ? `${line} ${piece}` : `${line}${piece}`;
    if (!lineHasItem || length(candidate) <= width) {
      line = candidate;
    } else {
      lines.push(line);
      line = `${indent}${piece}`;
    }
    lineHasItem = true;
  }
  lines.push(line);
  return lines.map((text) => truncateEnd(text, width));
}

/** Markdown building blocks every Markdown output shares: a table that escapes every cell, a fenced block, evidence as text. */
import type { RecommendationConfig } from '../model/index.js';
import { escapeMarkdown, toDisplayBlock } from '../support/index.js';

export interface Column<Row> {
  header: string;
  align: 'left' | 'right';
  /** Plain text: the table escapes it. */
  cell: (row: Row) => string;
}

/** A GFM table; every cell (headers included) is escaped here, so no caller can forget. */
export function markdownTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [
    line(columns.map((column) => escapeMarkdown(column.header))),
    line(columns.map((column) => (column.align === 'right' ? '---:' : '---'))),
    ...rows.map((row) => line(columns.map((column) => escapeMarkdown(column.cell(row))))),
  ].join('\n');
}

/** A fence longer than any backtick run in the text, so the text cannot close it. */
export function fencedBlock(format: string, text: string): string {
  const block = toDisplayBlock(text).replace(/\n+$/u, '');
  const longestRun = Math.max(0, ...(block.match(/`+/gu) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const language = format.replace(/[^A-Za-z0-9_+-]/gu, '');
  return `${fence}${language}\n${block}\n${fence}`;
}

/** A step's config, and the one to apply instead where there is one. */
export function configBlocks(config: RecommendationConfig | undefined): string[] {
  if (config === undefined) return [];
  const alternative = config.alternative;
  return ['', fencedBlock(config.format, config.text), ...(alternative === undefined ? [] : ['', `Instead: ${escapeMarkdown(alternative.note)}`, '', fencedBlock(alternative.format, alternative.text)])];
}

/**
 * Strings in a Report come from the inputs (hostnames, process names, file names,
 * warnings) and may hold anything a hostile or broken machine wrote. Nothing from
 * a Report reaches a terminal or a Markdown document without passing through here.
 */
import { stripVTControlCharacters } from 'node:util';

// C0 controls, DEL and C1 controls (U+0080-U+009F, which include the 8-bit CSI).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/gu;
// eslint-disable-next-line no-control-regex -- the same set, less newline and tab
const CONTROL_CHARACTERS_EXCEPT_NEWLINE_AND_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;
// eslint-disable-next-line no-control-regex -- the same set, less tab, newline and carriage return
const CONTROL_CHARACTERS_EXCEPT_TAB_AND_LINE_ENDS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/gu;
const LINE_BREAKS_AND_TABS = /[\t\n\v\f\r\u0085\u2028\u2029]+/gu;
// Bidirectional overrides and isolates reorder what a reader sees ("Trojan Source").
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** One line of plain text: escape sequences removed, line breaks and tabs become one space, other controls dropped. */
export function toDisplayText(value: string): string {
  return stripVTControlCharacters(value)
    .replace(LINE_BREAKS_AND_TABS, ' ')
    .replace(CONTROL_CHARACTERS, '')
    .replace(BIDI_CONTROLS, '');
}

/**
 * A field of a data file (CSV): escape sequences, controls and bidi overrides go, so that a
 * terminal or editor showing the file is not driven by them; tabs and line ends stay, quoted
 * by the format, as the data had them.
 */
export function toFieldText(value: string): string {
  return stripVTControlCharacters(value).replace(CONTROL_CHARACTERS_EXCEPT_TAB_AND_LINE_ENDS, '').replace(BIDI_CONTROLS, '');
}

/** Multi-line text (a generated config): keeps newlines and tabs, normalises CRLF, drops every other control. */
export function toDisplayBlock(value: string): string {
  return stripVTControlCharacters(value)
    .replace(/\r\n?/gu, '\n')
    .replace(CONTROL_CHARACTERS_EXCEPT_NEWLINE_AND_TAB, '')
    .replace(BIDI_CONTROLS, '');
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
/**
 * Characters that start Markdown inline syntax anywhere in a line: emphasis, code, links,
 * table cells, strikethrough, and `$` (GitHub reads `$…$` as math). Line-start syntax
 * (`#`, `-`, `>`, `1.`) cannot occur: input never starts a line in our documents.
 */
const MARKDOWN_INLINE = /[\\`*_[\]|~$]/gu;

/**
 * Input text made inert for a Markdown table cell, list item or heading: one line,
 * no raw HTML (`<script>` becomes `&lt;script&gt;`), no emphasis, links or cell breaks.
 */
export function escapeMarkdown(value: string): string {
  return toDisplayText(value)
    .replace(/[&<>]/gu, (character) => HTML_ENTITIES[character] ?? character)
    .replace(MARKDOWN_INLINE, '\\$&');
}

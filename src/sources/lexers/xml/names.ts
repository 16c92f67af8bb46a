/**
 * Element names as the scanner keeps them: one object per distinct name, so the stack of
 * open elements holds no per-tag strings, and each name remembers what followed it last
 * time, so the next tag can be confirmed with one comparison instead of being read
 * character by character.
 *
 * nvidia-smi prints the same elements in the same order in every document: after
 * `</total>` comes `<reserved>`, the first child of `<fb_memory_usage>` is `<total>`.
 * Names are shared between places (`total` is also in `<bar1_memory_usage>`), so a guess
 * can be wrong; it is always checked against the text, and then corrected.
 *
 * The corpus captures use 291 distinct names together; the table stops growing at
 * `MAX_INTERNED_NAMES` so that hostile input with millions of distinct names costs a small
 * object per tag, as a plain parser would, and no more.
 */
import { detached } from '../../../support/index.js';

export interface XmlName {
  readonly text: string;
  /**
   * fast-xml-parser reads the name exactly as the scanner does: ASCII name characters only
   * (it ends a name at any Unicode space, which the scanner counts as a name character
   * above U+007F) and not an `Object.prototype` member, which it rejects or renames.
   */
  readonly plain: boolean;
  /** The element that last started right after this one ended (its next sibling). */
  successor: XmlName | undefined;
  /** The element that last started right after this one's start tag (its first child). */
  firstChild: XmlName | undefined;
}

export const MAX_INTERNED_NAMES = 4096;

const PLAIN_NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]*$/;

function isPlain(text: string): boolean {
  return PLAIN_NAME.test(text) && !(text in Object.prototype) && text !== 'prototype';
}

export class NameTable {
  private readonly names = new Map<string, XmlName>();

  /** The name, if it has been seen before: `text` may be any string, e.g. all of `<...>`. */
  known(text: string): XmlName | undefined {
    return this.names.get(text);
  }

  /** The name read by the caller (a valid XML name). */
  intern(text: string): XmlName {
    const known = this.names.get(text);
    if (known !== undefined) return known;
    const name: XmlName = { text: detached(text), plain: isPlain(text), successor: undefined, firstChild: undefined };
    if (this.names.size < MAX_INTERNED_NAMES) this.names.set(name.text, name);
    return name;
  }
}

/**
 * HTML (and inline SVG) built only through the `html` tagged template: every interpolated
 * string is escaped for text and for quoted attribute values alike, so input from a Report
 * (hostnames, process names, pod names, messages) can never open a tag, close an attribute
 * or start a script. Only SafeHtml - what `html` itself returned - is inserted as is.
 * Templates always quote their attributes (`x="${x}"`): the escaping covers that context.
 */
import { toDisplayBlock, toDisplayText } from '../../support/index.js';

export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

export type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** One line of input made inert for HTML text and quoted attributes (controls and bidi overrides removed too). */
export function escapeHtml(value: string): string {
  return toDisplayText(value).replace(/[&<>"']/gu, (character) => ENTITIES[character] ?? character);
}

/** Multi-line input (a generated config for a <pre>): keeps newlines, escapes the rest. */
export function escapeHtmlBlock(value: string): SafeHtml {
  return new SafeHtml(toDisplayBlock(value).replace(/[&<>"']/gu, (character) => ENTITIES[character] ?? character));
}

function interpolate(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(interpolate).join('');
  if (value === null || value === undefined || value === false || value === true) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  return escapeHtml(value as string);
}

export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += interpolate(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** A coordinate for SVG: two decimals are finer than any screen needs and keep the file small. */
export function px(value: number): number {
  return Math.round(value * 100) / 100;
}

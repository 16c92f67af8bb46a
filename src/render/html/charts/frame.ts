/**
 * The frame every chart shares: an <svg> with an accessible name (<title>) and description
 * (<desc>), a visible title, and a legend. Sizes are in CSS pixels of the viewBox; the page
 * lets a chart shrink to the column width (max-width: 100%) and keep its aspect.
 */
import { html, px, type SafeHtml } from '../escape.js';
import { PALETTE } from './colour.js';

export const FONT_SIZE = 12;
export const TITLE_SIZE = 14;
/** Average advance of a character at FONT_SIZE in the system sans-serif, for fitting labels without measuring. */
export const CHARACTER_WIDTH = 7.2;
export const TITLE_HEIGHT = 28;

export interface ChartFrame {
  /** Unique in the document: the <title> and <desc> ids derive from it. */
  id: string;
  title: string;
  /** What the chart shows, for screen readers and as the tooltip of the whole chart. */
  description: string;
  width: number;
  height: number;
}

export function chartSvg(frame: ChartFrame, body: SafeHtml | readonly SafeHtml[]): SafeHtml {
  const titleId = `${frame.id}-title`;
  const descId = `${frame.id}-desc`;
  return html`<svg class="chart" id="${frame.id}" role="img" aria-labelledby="${titleId} ${descId}" width="${frame.width}" height="${frame.height}" viewBox="0 0 ${frame.width} ${frame.height}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif" font-size="${FONT_SIZE}"><title id="${titleId}">${frame.title}</title><desc id="${descId}">${frame.description}</desc><text class="chart-title" x="0" y="${TITLE_SIZE + 2}" font-size="${TITLE_SIZE}" font-weight="600" fill="${PALETTE.text}">${frame.title}</text>${body}</svg>`;
}

/** A label cut to `maxWidth` pixels with an ellipsis; the full text stays in a <title> tooltip. */
export function fittedLabel(text: string, maxWidth: number, attributes: { x: number; y: number; anchor: 'start' | 'end' | 'middle'; fill?: string }): SafeHtml {
  const maxCharacters = Math.max(1, Math.floor(maxWidth / CHARACTER_WIDTH));
  const shown = text.length > maxCharacters ? `${text.slice(0, maxCharacters - 1)}…` : text;
  return html`<text x="${px(attributes.x)}" y="${px(attributes.y)}" text-anchor="${attributes.anchor}" dominant-baseline="middle" fill="${attributes.fill ?? PALETTE.text}"><title>${text}</title>${shown}</text>`;
}

export interface LegendItem {
  colour: string;
  label: string;
}

/** A row of swatches and labels from (x, y), left to right. */
export function legend(items: readonly LegendItem[], x: number, y: number): SafeHtml {
  let cursor = x;
  const parts = items.map((item) => {
    const part = html`<rect x="${px(cursor)}" y="${px(y - 5)}" width="10" height="10" fill="${item.colour}" stroke="${PALETTE.axis}" stroke-width="0.5"/><text x="${px(cursor + 14)}" y="${px(y)}" dominant-baseline="middle" fill="${PALETTE.muted}">${item.label}</text>`;
    cursor += 14 + item.label.length * CHARACTER_WIDTH + 16;
    return part;
  });
  return html`<g class="legend">${parts}</g>`;
}

/**
 * Axes with tick labels and a unit in the axis title ("Idle time (h)"), drawn with light grid
 * lines across the plot so values can be read off.
 */
import { html, px, type SafeHtml } from '../escape.js';
import { PALETTE } from './colour.js';
import type { LinearScale } from './scale.js';

export interface Tick {
  value: number;
  label: string;
}

export interface PlotArea {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A horizontal axis under the plot, with vertical grid lines, and its title (which names the unit). */
export function bottomAxis(scale: LinearScale, ticks: readonly Tick[], plot: PlotArea, title: string): SafeHtml {
  const bottom = plot.top + plot.height;
  const marks = ticks.map((tick) => {
    const x = px(scale(tick.value));
    return html`<line x1="${x}" x2="${x}" y1="${px(plot.top)}" y2="${px(bottom)}" stroke="${PALETTE.grid}"/><line x1="${x}" x2="${x}" y1="${px(bottom)}" y2="${px(bottom + 4)}" stroke="${PALETTE.axis}"/><text x="${x}" y="${px(bottom + 16)}" text-anchor="middle" fill="${PALETTE.muted}">${tick.label}</text>`;
  });
  return html`<g class="axis axis-x">${marks}<line x1="${px(plot.left)}" x2="${px(plot.left + plot.width)}" y1="${px(bottom)}" y2="${px(bottom)}" stroke="${PALETTE.axis}"/><text class="axis-title" x="${px(plot.left + plot.width / 2)}" y="${px(bottom + 34)}" text-anchor="middle" fill="${PALETTE.text}">${title}</text></g>`;
}

/** A vertical axis left of the plot, with horizontal grid lines, its title rotated along it. */
export function leftAxis(scale: LinearScale, ticks: readonly Tick[], plot: PlotArea, title: string): SafeHtml {
  const marks = ticks.map((tick) => {
    const y = px(scale(tick.value));
    return html`<line x1="${px(plot.left)}" x2="${px(plot.left + plot.width)}" y1="${y}" y2="${y}" stroke="${PALETTE.grid}"/><text x="${px(plot.left - 6)}" y="${y}" text-anchor="end" dominant-baseline="middle" fill="${PALETTE.muted}">${tick.label}</text>`;
  });
  const middle = px(plot.top + plot.height / 2);
  const titleX = px(plot.left - 38);
  return html`<g class="axis axis-y">${marks}<line x1="${px(plot.left)}" x2="${px(plot.left)}" y1="${px(plot.top)}" y2="${px(plot.top + plot.height)}" stroke="${PALETTE.axis}"/><text class="axis-title" x="${titleX}" y="${middle}" text-anchor="middle" transform="rotate(-90 ${titleX} ${middle})" fill="${PALETTE.text}">${title}</text></g>`;
}

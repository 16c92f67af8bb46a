/**
 * Heatmaps: rows of cells placed on a shared horizontal domain (time for GPU timelines, hours
 * for the week grid), coloured on the percent ramp. A row's background shows "no data", so a
 * gap reads as a gap and not as idleness. Only cells with a value are drawn: one <rect> each.
 */
import { html, px, type SafeHtml } from '../escape.js';
import { bottomAxis, type PlotArea, type Tick } from './axes.js';
import { NO_DATA_COLOUR, PALETTE, percentColour } from './colour.js';
import { chartSvg, fittedLabel, TITLE_HEIGHT } from './frame.js';
import { linearScale } from './scale.js';

export interface HeatCell {
  /** Start and end on the x domain. */
  from: number;
  to: number;
  /** Percent; null where nothing was observed (not drawn). */
  value: number | null;
  tooltip: string;
}

export interface HeatRow {
  label: string;
  cells: readonly HeatCell[];
}

export interface HeatmapSpec {
  id: string;
  title: string;
  description: string;
  rows: readonly HeatRow[];
  domain: readonly [number, number];
  ticks: readonly Tick[];
  /** Axis title with its unit or zone: "Time (UTC)". */
  axisTitle: string;
  /** Legend caption naming the unit of the colours: "Compute (%)". */
  valueTitle: string;
  width?: number;
  rowHeight?: number;
  labelWidth?: number;
  /** Draw the colour key above the rows (default); small multiples share one `colourKeyChart` instead. */
  legend?: boolean;
}

const AXIS_HEIGHT = 44;
const LEGEND_HEIGHT = 30;
const LEGEND_STOPS = [0, 25, 50, 75, 100];

/** The colour key: the ramp at 0, 25, 50, 75 and 100 % and the no-data swatch. */
function percentLegend(x: number, y: number, title: string): SafeHtml {
  const swatches = LEGEND_STOPS.map((stop, i) => html`<rect x="${px(x + i * 44)}" y="${px(y)}" width="40" height="10" fill="${percentColour(stop)}"/><text x="${px(x + i * 44 + 20)}" y="${px(y + 22)}" text-anchor="middle" fill="${PALETTE.muted}">${`${stop}`}</text>`);
  const noDataX = x + LEGEND_STOPS.length * 44 + 16;
  return html`<g class="legend"><text x="${px(x - 8)}" y="${px(y + 5)}" text-anchor="end" dominant-baseline="middle" fill="${PALETTE.text}">${title}</text>${swatches}<rect x="${px(noDataX)}" y="${px(y)}" width="20" height="10" fill="${NO_DATA_COLOUR}" stroke="${PALETTE.axis}" stroke-width="0.5"/><text x="${px(noDataX + 26)}" y="${px(y + 5)}" dominant-baseline="middle" fill="${PALETTE.muted}">no data</text></g>`;
}

export function heatmap(spec: HeatmapSpec): SafeHtml {
  const width = spec.width ?? 960;
  const rowHeight = spec.rowHeight ?? 16;
  const labelWidth = spec.labelWidth ?? 190;
  const showLegend = spec.legend ?? true;
  const plot: PlotArea = {
    left: labelWidth,
    top: TITLE_HEIGHT + (showLegend ? LEGEND_HEIGHT : 0),
    width: width - labelWidth - 16,
    height: Math.max(1, spec.rows.length) * rowHeight,
  };
  const height = plot.top + plot.height + AXIS_HEIGHT;
  const x = linearScale(spec.domain, [plot.left, plot.left + plot.width]);
  const clampX = (value: number): number => Math.min(plot.left + plot.width, Math.max(plot.left, x(value)));

  const rows = spec.rows.map((row, index) => {
    const y = plot.top + index * rowHeight;
    const cells = row.cells.filter((cell) => cell.value !== null).map((cell) => {
      const left = clampX(cell.from);
      // Cells overlap by a hair so that no seam shows between neighbours.
      const cellWidth = Math.max(0.5, clampX(cell.to) - left + 0.3);
      return html`<rect class="heat-cell" x="${px(left)}" y="${px(y)}" width="${px(cellWidth)}" height="${px(rowHeight - 1)}" fill="${percentColour(cell.value!)}"><title>${cell.tooltip}</title></rect>`;
    });
    return html`<g class="heat-row">${fittedLabel(row.label, labelWidth - 10, { x: labelWidth - 8, y: y + rowHeight / 2, anchor: 'end' })}<rect x="${px(plot.left)}" y="${px(y)}" width="${px(plot.width)}" height="${px(rowHeight - 1)}" fill="${NO_DATA_COLOUR}"/>${cells}</g>`;
  });
  const axis = bottomAxis(x, spec.ticks, plot, spec.axisTitle);
  return chartSvg({ id: spec.id, title: spec.title, description: spec.description, width, height }, [
    showLegend ? percentLegend(plot.left + 110, TITLE_HEIGHT + 4, spec.valueTitle) : html``,
    axis,
    html`${rows}`,
  ]);
}

/** The colour key alone, for a set of heatmaps drawn as small multiples. */
export function colourKeyChart(spec: { id: string; title: string; description: string; valueTitle: string }): SafeHtml {
  return chartSvg({ ...spec, width: 480, height: TITLE_HEIGHT + LEGEND_HEIGHT + 4 }, percentLegend(110, TITLE_HEIGHT + 4, spec.valueTitle));
}

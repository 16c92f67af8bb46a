/**
 * Horizontal bar charts: one row per item, its label left, a zero-based value axis below.
 * A row is a stack of segments (busy + idle cost), optionally drawn over a lighter bar of a
 * capacity it is measured against (VRAM peak used over VRAM total). Bar lengths are
 * proportional to the values: length = value / axis maximum x plot width.
 */
import { html, px, type SafeHtml } from '../escape.js';
import { bottomAxis, type PlotArea } from './axes.js';
import { PALETTE } from './colour.js';
import { chartSvg, fittedLabel, legend, type LegendItem, TITLE_HEIGHT } from './frame.js';
import { bandScale, linearScale, zeroBasedTicks } from './scale.js';

export interface BarSegment {
  value: number;
  colour: string;
  /** Tooltip of the segment: what it is and its value with unit. */
  tooltip: string;
}

export interface BarRow {
  label: string;
  segments: readonly BarSegment[];
  /** A lighter bar behind the segments (the capacity they are part of). */
  capacity?: BarSegment;
  /** Printed right of the bar: the row's figure with its unit. */
  valueLabel: string;
}

export interface BarChartSpec {
  id: string;
  title: string;
  description: string;
  /** Axis title, naming the unit: "Idle time (h)". */
  axisTitle: string;
  rows: readonly BarRow[];
  tickLabel: (value: number) => string;
  legend?: readonly LegendItem[];
  width?: number;
}

const ROW_HEIGHT = 22;
const LABEL_WIDTH = 240;
const VALUE_LABEL_WIDTH = 160;
const AXIS_HEIGHT = 44;
const LEGEND_HEIGHT = 22;

/** The end of the longest bar: the largest stack or capacity. */
function largestValue(rows: readonly BarRow[]): number {
  let largest = 0;
  for (const row of rows) {
    const stacked = row.segments.reduce((total, segment) => total + Math.max(0, segment.value), 0);
    largest = Math.max(largest, stacked, row.capacity?.value ?? 0);
  }
  return largest;
}

export function barChart(spec: BarChartSpec): SafeHtml {
  const width = spec.width ?? 960;
  const legendHeight = spec.legend === undefined ? 0 : LEGEND_HEIGHT;
  const plot: PlotArea = {
    left: LABEL_WIDTH,
    top: TITLE_HEIGHT + legendHeight,
    width: width - LABEL_WIDTH - VALUE_LABEL_WIDTH,
    height: Math.max(1, spec.rows.length) * ROW_HEIGHT,
  };
  const height = plot.top + plot.height + AXIS_HEIGHT;
  const ticks = zeroBasedTicks(largestValue(spec.rows));
  const x = linearScale([0, ticks.at(-1)!], [plot.left, plot.left + plot.width]);
  const bands = bandScale(spec.rows.length, [plot.top, plot.top + plot.height], 0.25);

  const rows = spec.rows.map((row, index) => {
    const y = bands.start(index);
    const middle = y + bands.bandwidth / 2;
    const capacity = row.capacity === undefined ? null
      : html`<rect class="bar-capacity" x="${px(x(0))}" y="${px(y)}" width="${px(x(row.capacity.value) - x(0))}" height="${px(bands.bandwidth)}" fill="${row.capacity.colour}"><title>${row.capacity.tooltip}</title></rect>`;
    let start = 0;
    const segments = row.segments.map((segment) => {
      const value = Math.max(0, segment.value);
      const rect = html`<rect class="bar" x="${px(x(start))}" y="${px(y)}" width="${px(x(start + value) - x(start))}" height="${px(bands.bandwidth)}" fill="${segment.colour}"><title>${segment.tooltip}</title></rect>`;
      start += value;
      return rect;
    });
    const end = Math.max(x(start), row.capacity === undefined ? 0 : x(row.capacity.value));
    return html`<g class="bar-row">${fittedLabel(row.label, LABEL_WIDTH - 10, { x: LABEL_WIDTH - 8, y: middle, anchor: 'end' })}${capacity}${segments}${fittedLabel(row.valueLabel, VALUE_LABEL_WIDTH - 8, { x: end + 6, y: middle, anchor: 'start', fill: PALETTE.muted })}</g>`;
  });
  const axis = bottomAxis(x, ticks.map((value) => ({ value, label: spec.tickLabel(value) })), plot, spec.axisTitle);
  const key = spec.legend === undefined ? null : legend(spec.legend, plot.left, TITLE_HEIGHT + 6);
  return chartSvg({ id: spec.id, title: spec.title, description: spec.description, width, height }, [axis, html`${key}${rows}`]);
}


/**
 * A line over time with the area under it shaded: one small chart per GPU. Buckets become
 * points at their middle; a bucket without a value breaks the line, so gaps stay visible.
 */
import { html, px, type SafeHtml } from '../escape.js';
import { bottomAxis, leftAxis, type PlotArea, type Tick } from './axes.js';
import { PALETTE } from './colour.js';
import { chartSvg, TITLE_HEIGHT } from './frame.js';
import { linearScale } from './scale.js';

export interface LinePoint {
  from: number;
  to: number;
  value: number | null;
}

export interface LineChartSpec {
  id: string;
  title: string;
  description: string;
  points: readonly LinePoint[];
  domain: readonly [number, number];
  /** Value range of the y axis, e.g. [0, 100] for percent. */
  valueDomain: readonly [number, number];
  xTicks: readonly Tick[];
  yTicks: readonly Tick[];
  xTitle: string;
  yTitle: string;
  width?: number;
  height?: number;
}

/** Consecutive points with values, as runs: each run is drawn as one line. */
export function runsOf<T extends { value: number | null }>(points: readonly T[]): T[][] {
  const runs: T[][] = [];
  let current: T[] = [];
  for (const point of points) {
    if (point.value === null) {
      if (current.length > 0) runs.push(current);
      current = [];
    } else {
      current.push(point);
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

export function lineChart(spec: LineChartSpec): SafeHtml {
  const width = spec.width ?? 460;
  const height = spec.height ?? 200;
  const plot: PlotArea = { left: 56, top: TITLE_HEIGHT + 4, width: width - 56 - 12, height: height - TITLE_HEIGHT - 4 - 44 };
  const x = linearScale(spec.domain, [plot.left, plot.left + plot.width]);
  const y = linearScale(spec.valueDomain, [plot.top + plot.height, plot.top]);
  const baseline = y(spec.valueDomain[0]);

  const paths = runsOf(spec.points).map((run) => {
    // A run of one bucket is drawn across its width, so a lone value is not an invisible dot.
    const coordinates = run.length === 1
      ? [[x(run[0]!.from), y(run[0]!.value!)], [x(run[0]!.to), y(run[0]!.value!)]]
      : run.map((point) => [x((point.from + point.to) / 2), y(point.value!)]);
    const line = coordinates.map(([px0, py0], i) => `${i === 0 ? 'M' : 'L'}${px(px0!)},${px(py0!)}`).join('');
    const area = `${line}L${px(coordinates.at(-1)![0]!)},${px(baseline)}L${px(coordinates[0]![0]!)},${px(baseline)}Z`;
    return html`<path class="area" d="${area}" fill="${PALETTE.area}" fill-opacity="0.6"/><path class="line" d="${line}" fill="none" stroke="${PALETTE.line}" stroke-width="1.5" stroke-linejoin="round"/>`;
  });
  return chartSvg({ id: spec.id, title: spec.title, description: spec.description, width, height }, [
    leftAxis(y, spec.yTicks, plot, spec.yTitle),
    bottomAxis(x, spec.xTicks, plot, spec.xTitle),
    html`<g class="series">${paths}</g>`,
  ]);
}

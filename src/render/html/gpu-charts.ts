/**
 * The report's charts, each drawn from Report fields only. What happens to a number here is
 * layout: scaling to pixels, choosing a colour, MiB shown as GiB, and a GPU's hourly price
 * drawn with its idle part as the GPU's idleFraction of the bar (the same split the fleet's
 * monthlyWasteUsd sums; the monthly fleet figures come from the summary).
 */
import type { GpuEntry, Report } from '../../model/index.js';
import { displayTimeZone, formatGib, formatHours, formatInstant, formatNumber, formatPercent, formatUsd, fractionAsPercent, mibAsGib } from '../format.js';
import { gpuRows, type GpuNames } from '../gpu-labels.js';
import { barChart, type BarRow } from './charts/bars.js';
import { PALETTE } from './charts/colour.js';
import { colourKeyChart, heatmap, type HeatRow } from './charts/heatmap.js';
import { lineChart } from './charts/line.js';
import { html, type SafeHtml } from './escape.js';
import { timeTicks } from './time-axis.js';

/** Up to this many GPUs get one small line chart each; more get one heatmap row each. */
export const SMALL_MULTIPLES_MAX = 12;
/** Rows drawn in one chart; the tables list every GPU. */
export const CHART_ROWS_MAX = 100;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const PERCENT_TICKS = [0, 25, 50, 75, 100].map((value) => ({ value, label: `${value}` }));

export interface ChartSection {
  id: string;
  heading: string;
  /** One sentence on how to read the chart. */
  note: string;
  body: SafeHtml;
}

function capped<T>(items: readonly T[]): { shown: readonly T[]; note: string } {
  if (items.length <= CHART_ROWS_MAX) return { shown: items, note: '' };
  return { shown: items.slice(0, CHART_ROWS_MAX), note: ` The first ${CHART_ROWS_MAX} of ${items.length} are drawn; the tables list all.` };
}

function orderedGpus(report: Report): GpuEntry[] {
  return gpuRows(report.gpus).map((row) => row.gpu);
}

function bucketEdges(timeline: NonNullable<GpuEntry['timeline']>, index: number): { from: number; to: number } {
  const bucketMs = timeline.bucketSeconds * 1000;
  const from = Date.parse(timeline.start) + index * bucketMs;
  return { from, to: from + bucketMs };
}

/**
 * Neighbouring buckets that show the same percentage (to the tenth) drawn as one cell, in the
 * colour of the first: a long idle stretch is one rectangle, not hundreds. Nothing is averaged;
 * the buckets merged differ by less than the 0.1 % the tooltip shows, far below a visible
 * step of the colour ramp.
 */
export function mergeEqualCells(cells: readonly { from: number; to: number; value: number | null }[]): { from: number; to: number; value: number | null }[] {
  const merged: { from: number; to: number; value: number | null }[] = [];
  for (const cell of cells) {
    const last = merged.at(-1);
    if (last !== undefined && last.to === cell.from && last.value !== null && cell.value !== null
      && formatPercent(last.value) === formatPercent(cell.value)) {
      last.to = cell.to;
    } else {
      merged.push({ ...cell });
    }
  }
  return merged;
}

function computeOverTime(report: Report, names: GpuNames, zone: string): ChartSection | null {
  const { start, end } = report.window;
  const withTimeline = orderedGpus(report).filter((gpu) => gpu.timeline !== null);
  if (start === null || end === null || withTimeline.length === 0) return null;
  const domain = [Date.parse(start), Date.parse(end)] as const;
  const basisNote = 'Compute is each GPU\'s compute basis signal (see the GPU table), averaged over each time bucket';
  const axisTitle = `Time (${zone})`;

  if (withTimeline.length <= SMALL_MULTIPLES_MAX) {
    const charts = withTimeline.map((gpu, index) => {
      const timeline = gpu.timeline!;
      return lineChart({
        id: `compute-gpu-${index}`,
        title: names.full(gpu),
        description: `Compute of ${names.full(gpu)} (${gpu.computeBasis}) in ${timeline.computeMeanPct.length} buckets of ${formatNumber(timeline.bucketSeconds / 60, 0)} min, percent.`,
        points: timeline.computeMeanPct.map((value, i) => ({ ...bucketEdges(timeline, i), value })),
        domain,
        valueDomain: [0, 100],
        xTicks: timeTicks(domain[0], domain[1], zone, 4),
        yTicks: PERCENT_TICKS,
        xTitle: axisTitle,
        yTitle: 'Compute (%)',
      });
    });
    return { id: 'chart-compute', heading: 'Compute over time', note: `${basisNote}; a break in the line means no sample covered that time.`, body: html`<div class="small-multiples">${charts}</div>` };
  }

  const { shown, note } = capped(withTimeline);
  const rows: HeatRow[] = shown.map((gpu) => {
    const timeline = gpu.timeline!;
    const cells = mergeEqualCells(timeline.computeMeanPct.map((value, i) => ({ ...bucketEdges(timeline, i), value })));
    const time = (ms: number): string => formatInstant(new Date(ms).toISOString(), zone);
    return {
      label: names.full(gpu),
      cells: cells.map((cell) => ({ ...cell, tooltip: `${time(cell.from)} to ${time(cell.to)}: ${formatPercent(cell.value)}` })),
    };
  });
  const body = heatmap({
    id: 'compute-heatmap',
    title: 'Compute over time, per GPU',
    description: `One row per GPU (${shown.length}), one cell per time bucket, coloured by the mean compute in the bucket from 0 % (dark) to 100 % (yellow); grey where no sample covered the time.`,
    rows,
    domain,
    ticks: timeTicks(domain[0], domain[1], zone, 8),
    axisTitle,
    valueTitle: 'Compute (%)',
    labelWidth: 240,
  });
  return { id: 'chart-compute', heading: 'Compute over time', note: `${basisNote}; grey means no sample covered that time.${note}`, body };
}

function vramPeaks(report: Report, names: GpuNames): ChartSection | null {
  const gpus = orderedGpus(report).filter((gpu) => gpu.memoryTotalMiB !== null || gpu.memoryUsedMiB !== null);
  if (gpus.length === 0) return null;
  const { shown, note } = capped(gpus);
  const rows: BarRow[] = shown.map((gpu) => {
    const peakGib = mibAsGib(gpu.memoryUsedMiB?.max) ?? 0;
    const totalGib = mibAsGib(gpu.memoryTotalMiB);
    return {
      label: names.full(gpu),
      capacity: totalGib === null ? undefined : { value: totalGib, colour: PALETTE.total, tooltip: `VRAM total ${formatGib(gpu.memoryTotalMiB)}` },
      segments: [{ value: peakGib, colour: PALETTE.used, tooltip: `Peak used ${formatGib(gpu.memoryUsedMiB?.max)}` }],
      valueLabel: `${formatGib(gpu.memoryUsedMiB?.max)} of ${formatGib(gpu.memoryTotalMiB)}`,
    };
  });
  const body = barChart({
    id: 'vram-peaks',
    title: 'VRAM: peak used vs total, per GPU',
    description: 'Horizontal bars: the dark bar is the largest memory-used reading, the light bar behind it the device total, in GiB.',
    axisTitle: 'VRAM (GiB)',
    rows,
    tickLabel: (value) => formatNumber(value, 0),
    legend: [{ colour: PALETTE.used, label: 'peak used' }, { colour: PALETTE.total, label: 'total' }],
  });
  return { id: 'chart-vram', heading: 'VRAM peak vs total', note: `Headroom is the light part of each bar.${note}`, body };
}

function idleHours(report: Report, names: GpuNames): ChartSection | null {
  const gpus = orderedGpus(report);
  if (gpus.length === 0) return null;
  const { shown, note } = capped(gpus);
  const rows: BarRow[] = shown.map((gpu) => ({
    label: names.full(gpu),
    segments: [{ value: gpu.idleHours, colour: PALETTE.idleHours, tooltip: `Idle ${formatHours(gpu.idleHours)} of ${formatHours(gpu.gpuHours)}` }],
    valueLabel: gpu.gpuHours > 0 ? `${formatHours(gpu.idleHours)} (${formatPercent(fractionAsPercent(gpu.idleFraction))})` : 'no time observed',
  }));
  const body = barChart({
    id: 'idle-hours',
    title: 'Idle time per GPU',
    description: `Horizontal bars of each GPU's idle hours in the window (compute below ${formatPercent(report.settings.idleThresholdPct, null)}), with the idle share of its observed time.`,
    axisTitle: 'Idle time (h)',
    rows,
    tickLabel: (value) => formatNumber(value, null),
  });
  return { id: 'chart-idle', heading: 'Idle hours', note: `Idle means the compute signal stayed below ${formatPercent(report.settings.idleThresholdPct, null)}.${note}`, body };
}

function monthlyCost(report: Report, names: GpuNames): ChartSection | null {
  // Boards only: a MIG device's price is its share of its board's, whose bar holds it.
  const priced = orderedGpus(report).filter((gpu) => gpu.parentId === null && gpu.hourlyCostUsd !== null);
  if (priced.length === 0) return null;
  const { shown, note } = capped(priced);
  const rows: BarRow[] = shown.map((gpu) => {
    const hourly = gpu.hourlyCostUsd!;
    const idle = gpu.idleFraction;
    const segments = idle === null
      ? [{ value: hourly, colour: PALETTE.unknown, tooltip: `${formatUsd(hourly, 2)}/h, idleness unknown` }]
      : [
          { value: hourly * (1 - idle), colour: PALETTE.busy, tooltip: `Busy share ${formatPercent(fractionAsPercent(1 - idle))} of ${formatUsd(hourly, 2)}/h` },
          { value: hourly * idle, colour: PALETTE.idle, tooltip: `Idle share ${formatPercent(fractionAsPercent(idle))} of ${formatUsd(hourly, 2)}/h` },
        ];
    return { label: names.full(gpu), segments, valueLabel: `${formatUsd(hourly, 2)}/h, ${idle === null ? 'idle ?' : `${formatPercent(fractionAsPercent(idle), 0)} idle`}` };
  });
  const body = barChart({
    id: 'monthly-cost',
    title: 'Price per hour and its idle part, per GPU',
    description: 'Stacked horizontal bars: each GPU\'s price per hour, split into the share of time it was busy and the share it was idle, in US dollars.',
    axisTitle: 'Cost (USD per hour)',
    rows,
    tickLabel: (value) => formatUsd(value, 2),
    legend: [{ colour: PALETTE.busy, label: 'busy' }, { colour: PALETTE.idle, label: 'idle' }, { colour: PALETTE.unknown, label: 'idleness unknown' }],
  });
  return {
    id: 'chart-cost',
    heading: 'Cost vs idle cost',
    note: `MIG devices are paid for through their parent GPU. Fleet: ${formatUsd(report.summary.monthlyCostUsd, 0)}/month (730 h), of which ${formatUsd(report.summary.monthlyWasteUsd, 0)} idle.${note}`,
    body,
  };
}

function hourOfWeek(report: Report, names: GpuNames, zone: string): ChartSection | null {
  const gpus = orderedGpus(report).filter((gpu) => gpu.hourOfWeekComputePct !== null);
  if (gpus.length === 0) return null;
  const { shown, note } = capped(gpus);
  const grids = shown.map((gpu, index) => {
    const hours = gpu.hourOfWeekComputePct!;
    const clock = (hour: number): string => `${String(hour).padStart(2, '0')}:00`;
    const rows: HeatRow[] = WEEKDAYS.map((day, dayIndex) => ({
      label: day,
      cells: mergeEqualCells(Array.from({ length: 24 }, (_, hour) => ({ from: hour, to: hour + 1, value: hours[dayIndex * 24 + hour] ?? null })))
        .map((cell) => ({ ...cell, tooltip: `${day} ${clock(cell.from)} to ${clock(cell.to)}: ${formatPercent(cell.value)}` })),
    }));
    return heatmap({
      id: `hour-of-week-${index}`,
      title: names.full(gpu),
      description: `Mean compute of ${names.full(gpu)} for each hour of the week (${zone}): rows Monday to Sunday, columns 00:00 to 23:00, percent.`,
      rows,
      domain: [0, 24],
      ticks: [0, 6, 12, 18, 24].map((value) => ({ value, label: String(value).padStart(2, '0') })),
      axisTitle: `Hour of day (${zone})`,
      valueTitle: '',
      width: 300,
      rowHeight: 13,
      labelWidth: 40,
      legend: false,
    });
  });
  const key = colourKeyChart({
    id: 'hour-of-week-key',
    title: 'Colour key',
    description: 'Colours of the hour-of-week grids: mean compute from 0 % (dark) to 100 % (yellow); grey where that hour was not observed.',
    valueTitle: 'Compute (%)',
  });
  return {
    id: 'chart-hour-of-week',
    heading: 'Hour-of-week profile',
    note: `Mean compute for each hour of the week in ${zone}, per GPU: a row per weekday, a column per hour. Regular idle hours are candidates for scheduling or autoscaling.${note}`,
    body: html`${key}<div class="small-multiples grids">${grids}</div>`,
  };
}

/** The charts that have data to show, in reading order. */
export function gpuCharts(report: Report, names: GpuNames): ChartSection[] {
  const zone = displayTimeZone(report.window.timezone);
  return [
    computeOverTime(report, names, zone),
    vramPeaks(report, names),
    idleHours(report, names),
    monthlyCost(report, names),
    hourOfWeek(report, names, zone),
  ].filter((section): section is ChartSection => section !== null);
}

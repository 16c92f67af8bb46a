/**
 * The Serving section of the HTML report: the ten columns every text format has and the pool
 * table (src/render/serving-figures.ts), each value through `html`, which escapes it; then, per
 * server with intervals (up to SMALL_MULTIPLES_MAX), its request rate and p95 end-to-end
 * latency over time, from `serving[].series`.
 */
import type { Report, ServingEntry } from '../../model/index.js';
import { displayTimeZone, formatNumber } from '../format.js';
import { POOL_COLUMNS, POOL_NOTE, SERVING_COLUMNS, SERVING_NOTE, servingPools } from '../serving-figures.js';
import { lineChart, type LinePoint } from './charts/line.js';
import { zeroBasedTicks } from './charts/scale.js';
import { SMALL_MULTIPLES_MAX } from './gpu-charts.js';
import { html, type SafeHtml } from './escape.js';
import { table } from './sections.js';
import { timeTicks } from './time-axis.js';

function pointsOf(entry: ServingEntry, value: (point: NonNullable<ServingEntry['series']>[number]) => number | null): LinePoint[] {
  const widthMs = (entry.intervalSeconds ?? 0) * 1000;
  return (entry.series ?? []).map((point) => {
    const from = Date.parse(point.start);
    return { from, to: from + widthMs, value: value(point) };
  });
}

function ticksOf(values: readonly (number | null)[], floor = 0): { max: number; ticks: { value: number; label: string }[] } {
  const max = Math.max(floor, ...values.filter((value): value is number => value !== null)) || 1;
  const ticks = zeroBasedTicks(max * 1.1).map((value) => ({ value, label: formatNumber(value, value < 10 ? 1 : 0) }));
  return { max: Math.max(max * 1.1, ticks.at(-1)?.value ?? 0), ticks };
}

function latencyCharts(report: Report): SafeHtml | null {
  const charted = (report.serving ?? []).filter((entry) => (entry.series ?? []).length > 0).slice(0, SMALL_MULTIPLES_MAX);
  const { start, end } = report.window;
  if (charted.length === 0 || start === null || end === null) return null;
  const zone = displayTimeZone(report.window.timezone);
  const sloOf = new Map(report.workloads.map((workload) => [workload.name, workload.serving?.sloP95Ms ?? null]));
  const counts = new Map<string, number>();
  for (const entry of charted) {
    const short = entry.workload ?? entry.pod ?? entry.model ?? entry.server;
    counts.set(short, (counts.get(short) ?? 0) + 1);
  }
  const charts = charted.flatMap((entry, index) => {
    const points = entry.series!;
    const domain = [Date.parse(points[0]!.start), Date.parse(points.at(-1)!.start) + (entry.intervalSeconds ?? 0) * 1000] as const;
    const xTicks = timeTicks(domain[0], domain[1], zone, 4);
    const slo = entry.workload === null ? null : (sloOf.get(entry.workload) ?? null);
    const rates = ticksOf(points.map((point) => point.requestsPerSecond));
    // Seconds, not ms: four-digit tick labels would run into the axis title.
    const latency = ticksOf(points.map((point) => point.e2eP95Seconds), slo === null ? 0 : slo / 1000);
    // Titles must fit the chart: the workload (or pod) names it, numbered where it has several servers; the description names the instance.
    const short = entry.workload ?? entry.pod ?? entry.model ?? entry.server;
    const name = (counts.get(short) ?? 0) > 1 ? `${short} #${charted.filter((other, at) => at <= index && (other.workload ?? other.pod ?? other.model ?? other.server) === short).length}` : short;
    return [
      lineChart({
        id: `serving-rate-${index}`, title: `${name}, requests/s`,
        description: `Requests per second of ${entry.instance} in ${points.length} intervals of ${formatNumber((entry.intervalSeconds ?? 0) / 60, 0)} min.`,
        points: pointsOf(entry, (point) => point.requestsPerSecond), domain, valueDomain: [0, rates.max], xTicks, yTicks: rates.ticks, xTitle: `Time (${zone})`, yTitle: 'Requests/s',
      }),
      lineChart({
        id: `serving-latency-${index}`, title: `${name}, e2e p95 s${slo === null ? '' : ` (SLO ${formatNumber(slo / 1000, 3)})`}`,
        description: `End-to-end p95 latency of ${entry.instance} by interval, seconds${slo === null ? '' : `; the SLO is ${formatNumber(slo, 0)} ms`}; a break means no request finished in the interval.`,
        points: pointsOf(entry, (point) => point.e2eP95Seconds), domain, valueDomain: [0, latency.max], xTicks, yTicks: latency.ticks, xTitle: `Time (${zone})`, yTitle: 'p95 (s)',
      }),
    ];
  });
  const more = (report.serving ?? []).filter((entry) => (entry.series ?? []).length > 0).length - charted.length;
  return html`<figure id="chart-serving"><h3>Load and latency over time</h3><figcaption>Each server's requests per second and end-to-end p95 by interval${more > 0 ? `; the first ${charted.length} servers are drawn, the table lists all` : ''}.</figcaption><div class="small-multiples">${charts}</div></figure>`;
}

export function servingSection(report: Report): SafeHtml | null {
  const entries = report.serving ?? [];
  if (entries.length === 0) return null;
  const headers = SERVING_COLUMNS.map((column) => ({ label: column.documentHeader, numeric: column.align === 'right' }));
  const pools = servingPools(report.workloads);
  const poolTable = pools.length === 0
    ? null
    : html`<h3>Serving pools</h3><p class="muted">${POOL_NOTE}</p>${table(POOL_COLUMNS.map((column) => ({ label: column.documentHeader, numeric: column.align === 'right' })), pools.map((pool) => POOL_COLUMNS.map((column) => column.cell(pool))))}`;
  return html`<section id="serving"><h2>Serving</h2><p class="muted">${SERVING_NOTE}</p>${table(headers, entries.map((entry) => SERVING_COLUMNS.map((column) => column.cell(entry))))}${poolTable}${latencyCharts(report)}</section>`;
}

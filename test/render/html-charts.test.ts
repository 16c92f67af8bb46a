/**
 * The chart module of the HTML report: scales, bars, heatmaps, lines, colours and time ticks.
 * Charts are SVG strings; the tests read the drawn shapes back with small regular expressions.
 */
import { describe, expect, it } from 'vitest';
import { barChart } from '../../src/render/html/charts/bars.js';
import { NO_DATA_COLOUR, percentColour } from '../../src/render/html/charts/colour.js';
import { heatmap } from '../../src/render/html/charts/heatmap.js';
import { lineChart, runsOf } from '../../src/render/html/charts/line.js';
import { bandScale, linearScale, niceStep, zeroBasedTicks } from '../../src/render/html/charts/scale.js';
import { timeTicks } from '../../src/render/html/time-axis.js';

/** The values of `attribute` on every element matching `selector` (`rect class="bar"`). */
function attributeValues(svg: string, opening: string, attribute: string): number[] {
  return [...svg.matchAll(new RegExp(`<${opening}[^>]*? ${attribute}="([^"]+)"`, 'gu'))].map((match) => Number(match[1]));
}

describe('scales', () => {
  it('map the domain linearly onto the range', () => {
    const scale = linearScale([0, 100], [10, 210]);
    // 10 + 50 / 100 x 200 = 110
    expect(scale(50)).toBe(110);
    expect(scale(0)).toBe(10);
    expect(scale(100)).toBe(210);
    // An inverted range (y grows downwards): 0 at the bottom (200), 100 at the top (0).
    expect(linearScale([0, 100], [200, 0])(25)).toBe(150);
  });

  it('map a domain without width to the start of the range', () => {
    expect(linearScale([5, 5], [10, 210])(5)).toBe(10);
  });

  it('choose steps of 1, 2, 2.5 or 5 times a power of ten', () => {
    // 26 / 5 = 5.2 -> 10; 140.4 / 5 = 28.08 -> 50; 0.9 / 5 = 0.18 -> 0.2; 1000 / 4 = 250 -> 250
    expect(niceStep(26, 5)).toBe(10);
    expect(niceStep(140.4, 5)).toBe(50);
    expect(niceStep(0.9, 5)).toBe(0.2);
    expect(niceStep(1000, 4)).toBe(250);
  });

  it('start value axes at zero and end them at the first step at or above the largest value', () => {
    expect(zeroBasedTicks(26)).toEqual([0, 10, 20, 30]);
    expect(zeroBasedTicks(140.4)).toEqual([0, 50, 100, 150]);
    expect(zeroBasedTicks(30)).toEqual([0, 10, 20, 30]);
    expect(zeroBasedTicks(0)).toEqual([0, 1]);
  });

  it('split a range into equal bands with padding', () => {
    // 100 px in 4 steps of 25; bands of 20 (20 % padding) start 2.5 px into their step.
    const bands = bandScale(4, [0, 100], 0.2);
    expect(bands.step).toBe(25);
    expect(bands.bandwidth).toBe(20);
    expect(bands.start(2)).toBe(52.5);
  });
});

describe('bar charts', () => {
  const chart = barChart({
    id: 'bars',
    title: 'Idle time per GPU',
    description: 'Idle hours per GPU.',
    axisTitle: 'Idle time (h)',
    rows: [
      { label: 'gpu a', segments: [{ value: 10, colour: '#000', tooltip: 'a' }], valueLabel: '10 h' },
      { label: 'gpu b', segments: [{ value: 30, colour: '#000', tooltip: 'b' }], valueLabel: '30 h' },
      { label: 'gpu c', segments: [{ value: 5, colour: '#111', tooltip: 'busy' }, { value: 15, colour: '#222', tooltip: 'idle' }], valueLabel: '20 h' },
    ],
    tickLabel: String,
  });

  it('draw bars with lengths proportional to their values', () => {
    // Axis 0-30 (ticks 0 10 20 30) over a plot 960 - 240 - 160 = 560 px wide: 10 -> 186.67 px, 30 -> 560 px;
    // the stacked row: 5 -> 93.33 px from the axis, then 15 -> 280 px after it.
    expect(attributeValues(chart.value, 'rect class="bar"', 'width')).toEqual([186.67, 560, 93.33, 280]);
    expect(attributeValues(chart.value, 'rect class="bar"', 'x')).toEqual([240, 240, 240, 333.33]);
  });

  it('label the axis with its unit and every tick', () => {
    expect(chart.value).toContain('>Idle time (h)</text>');
    for (const tick of ['0', '10', '20', '30']) expect(chart.value).toContain(`>${tick}</text>`);
  });

  it('carry an accessible name and description', () => {
    expect(chart.value).toMatch(/^<svg class="chart" id="bars" role="img" aria-labelledby="bars-title bars-desc"/u);
    expect(chart.value).toContain('<title id="bars-title">Idle time per GPU</title><desc id="bars-desc">Idle hours per GPU.</desc>');
  });

  it('draw a capacity bar behind the value it holds', () => {
    const vram = barChart({
      id: 'vram',
      title: 'VRAM',
      description: 'Peak vs total.',
      axisTitle: 'VRAM (GiB)',
      rows: [{ label: 'gpu', capacity: { value: 80, colour: '#ccc', tooltip: 'total' }, segments: [{ value: 20, colour: '#333', tooltip: 'peak' }], valueLabel: '20 of 80' }],
      tickLabel: String,
    }).value;
    // Axis 0-80 (step 20): total 560 px, peak 20 / 80 x 560 = 140 px.
    expect(attributeValues(vram, 'rect class="bar-capacity"', 'width')).toEqual([560]);
    expect(attributeValues(vram, 'rect class="bar"', 'width')).toEqual([140]);
    expect(vram.indexOf('bar-capacity')).toBeLessThan(vram.indexOf('class="bar"'));
  });
});

describe('heatmaps', () => {
  const chart = heatmap({
    id: 'heat',
    title: 'Compute over time',
    description: 'Rows of GPUs.',
    rows: [
      { label: 'a', cells: [{ from: 0, to: 1, value: 0, tooltip: '0' }, { from: 1, to: 2, value: null, tooltip: '-' }, { from: 2, to: 3, value: 100, tooltip: '100' }] },
      { label: 'b', cells: [{ from: 0, to: 1, value: 50, tooltip: '50' }, { from: 1, to: 2, value: 25, tooltip: '25' }] },
    ],
    domain: [0, 3],
    ticks: [{ value: 0, label: 'start' }, { value: 3, label: 'end' }],
    axisTitle: 'Time (UTC)',
    valueTitle: 'Compute (%)',
  });

  it('draw one cell per observed value, none for unobserved ones', () => {
    expect(chart.value.match(/class="heat-cell"/gu)).toHaveLength(4);
  });

  it('place cells on the shared domain', () => {
    // Plot from x = 190 over 960 - 190 - 16 = 754 px for 3 units: cells start at 190, 441.33, 692.67 (row a: 0 and 2; row b: 0 and 1).
    expect(attributeValues(chart.value, 'rect class="heat-cell"', 'x')).toEqual([190, 692.67, 190, 441.33]);
  });

  it('colour cells on the percent ramp and show unobserved time as no data', () => {
    expect(chart.value).toContain(`fill="${percentColour(100)}"`);
    expect(chart.value).toContain(`fill="${NO_DATA_COLOUR}"`);
    expect(chart.value).toContain('>no data</text>');
    expect(chart.value).toContain('>Compute (%)</text>');
  });
});

describe('line charts', () => {
  it('break the line where a bucket has no value', () => {
    const points = [1, 2, null, 4, 5, 6].map((value, i) => ({ from: i, to: i + 1, value }));
    expect(runsOf(points).map((run) => run.map((point) => point.value))).toEqual([[1, 2], [4, 5, 6]]);
    const chart = lineChart({
      id: 'line', title: 'gpu', description: 'Compute.', points, domain: [0, 6], valueDomain: [0, 100],
      xTicks: [], yTicks: [{ value: 0, label: '0' }, { value: 100, label: '100' }], xTitle: 'Time (UTC)', yTitle: 'Compute (%)',
    }).value;
    expect(chart.match(/class="line"/gu)).toHaveLength(2);
    expect(chart).toContain('>Compute (%)</text>');
  });
});

describe('the percent colour ramp', () => {
  it('runs from viridis dark purple to yellow', () => {
    expect(percentColour(0)).toBe('#440154');
    expect(percentColour(100)).toBe('#fde725');
    // 50 % sits halfway between stops 4 (38,130,142) and 5 (31,158,137): (34.5, 144, 139.5) -> #23908c.
    expect(percentColour(50)).toBe('#23908c');
    expect(percentColour(140)).toBe('#fde725');
  });
});

describe('time ticks', () => {
  const monday = Date.parse('2026-11-02T00:00:00Z');
  const end = monday + 26 * 3_600_000;

  it('choose a round step and label weekday and time', () => {
    // 26 h in at most 8 ticks: 3 h would need 9, so 6 h.
    expect(timeTicks(monday, end, 'UTC', 8).map((tick) => tick.label)).toEqual(['Mon 00:00', 'Mon 06:00', 'Mon 12:00', 'Mon 18:00', 'Tue 00:00']);
  });

  it('sit on round local times in the report zone', () => {
    // 00:00Z is 01:00 in Berlin (CET): the first 6-hour tick is 06:00 local = 05:00Z.
    const ticks = timeTicks(monday, end, 'Europe/Berlin', 8);
    expect(ticks[0]).toEqual({ value: Date.parse('2026-11-02T05:00:00Z'), label: 'Mon 06:00' });
    expect(ticks.map((tick) => tick.label)).toEqual(['Mon 06:00', 'Mon 12:00', 'Mon 18:00', 'Tue 00:00']);
  });

  it('switch to dates for long windows', () => {
    const ticks = timeTicks(monday, monday + 14 * 86_400_000, 'UTC', 8);
    expect(ticks.map((tick) => tick.label)).toEqual(['2 Nov', '4 Nov', '6 Nov', '8 Nov', '10 Nov', '12 Nov', '14 Nov', '16 Nov']);
  });
});

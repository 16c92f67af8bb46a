/**
 * The HTML report of the demo fleet in a real browser: headless Chromium opens the file,
 * DevTools reports what happened. The page must lay out every chart, log no error, load
 * nothing from the network, and leave no label outside its chart or on top of another.
 *
 * Chromium comes from scripts/install-system-deps.sh; without it the test is skipped and
 * says why. Set HTML_REPORT_SCREENSHOT=/path/shot.png to keep the full-page screenshot.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';
import { type Browser, CHROMIUM, chromiumAvailable, launchChromium } from './chromium.js';
import type { CdpEvent } from './devtools.js';

const available = chromiumAvailable();
if (!available) console.warn(`skipping the browser test: ${CHROMIUM} is not installed (scripts/install-system-deps.sh installs it)`);

interface ChartBox {
  id: string;
  width: number;
  height: number;
}

interface LayoutProbe {
  charts: ChartBox[];
  /** Labels that reach outside their chart's viewBox. */
  outside: string[];
  /** Pairs of labels in one chart whose boxes overlap. */
  overlapping: string[];
  expectedCharts: number;
}

// Runs in the page through Runtime.evaluate (not subject to the page's CSP, which forbids scripts).
const PROBE = `(() => {
  const charts = [...document.querySelectorAll('svg.chart')];
  const outside = [];
  const overlapping = [];
  for (const svg of charts) {
    const view = svg.viewBox.baseVal;
    // The rendered box in viewBox units: getBBox() would give a rotated axis title's box before its rotation.
    const frame = svg.getBoundingClientRect();
    const scale = view.width / frame.width;
    const boxOf = (text) => { const r = text.getBoundingClientRect(); return { x: (r.x - frame.x) * scale, y: (r.y - frame.y) * scale, width: r.width * scale, height: r.height * scale }; };
    const boxes = [...svg.querySelectorAll('text')].map((text) => ({ text: [...text.childNodes].filter((node) => node.nodeType === 3).map((node) => node.textContent).join(''), box: boxOf(text) }));
    for (const { text, box } of boxes) {
      if (box.x < -0.5 || box.y < -0.5 || box.x + box.width > view.width + 0.5 || box.y + box.height > view.height + 0.5) outside.push(svg.id + ': ' + text);
    }
    for (let i = 0; i < boxes.length; i += 1) {
      for (let j = i + 1; j < boxes.length; j += 1) {
        const a = boxes[i].box, b = boxes[j].box;
        const dx = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
        const dy = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
        if (dx > 1 && dy > 1) overlapping.push(svg.id + ': "' + boxes[i].text + '" / "' + boxes[j].text + '"');
      }
    }
  }
  return JSON.stringify({
    charts: charts.map((svg) => { const r = svg.getBoundingClientRect(); return { id: svg.id, width: r.width, height: r.height }; }),
    outside,
    overlapping,
    expectedCharts: document.querySelectorAll('figure svg').length,
  });
})()`;

interface Layout {
  width: number;
  documentWidth: number;
  /** Elements that reach past the right edge of the page (tables and code scroll inside their box instead, except in print). */
  offenders: string[];
  /** Tables whose box hides part of them. */
  clippedTables: number;
  sections: string[];
}

// On screen a wide table scrolls inside its .table-wrap; printed, nothing scrolls, so everything must fit.
const LAYOUT = `(() => {
  const width = document.documentElement.clientWidth;
  const printing = matchMedia('print').matches;
  const scrolls = (element) => !printing && element.closest('.table-wrap, pre') !== null;
  const offenders = [...document.querySelectorAll('main *')]
    .filter((element) => !(element instanceof SVGElement && !(element instanceof SVGSVGElement)) && !scrolls(element) && element.getBoundingClientRect().right > width + 1)
    .map((element) => element.tagName.toLowerCase() + (element.className && typeof element.className === 'string' ? '.' + element.className : '') + ': ' + (element.textContent || '').trim().slice(0, 50));
  const clippedTables = [...document.querySelectorAll('.table-wrap')].filter((wrap) => wrap.querySelector('table').getBoundingClientRect().right > wrap.getBoundingClientRect().right + 1).length;
  return JSON.stringify({ width, documentWidth: document.documentElement.scrollWidth, offenders: offenders.slice(0, 20), clippedTables, sections: [...document.querySelectorAll('main > section')].map((section) => section.id) });
})()`;

/** A4 less Chromium's default print margins, in CSS pixels (96 per inch): 210 mm - 2 x 0.4 in. */
const A4_PRINTABLE_WIDTH = Math.floor((210 / 25.4 - 0.8) * 96);

describe.skipIf(!available)('the HTML report in headless Chromium', () => {
  const layouts: Record<'wide' | 'narrow' | 'print', Layout> = {} as Record<'wide' | 'narrow' | 'print', Layout>;
  let pdf: Buffer;
  let directory: string;
  let browser: Browser | undefined;
  let fileUrl: string;
  let probe: LayoutProbe;
  let screenshot: string;
  let events: CdpEvent[];

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-html-'));
    // The demo's report as `gpu-audit audit --demo --format html` writes it (workloads and plan included), kept current by the golden test.
    const file = path.join(directory, 'report.html');
    copyFileSync(path.join(repoRoot, 'test/golden/demo/audit.html'), file);
    fileUrl = pathToFileURL(file).href;

    browser = await launchChromium();
    const { page } = browser;
    await Promise.all(['Page.enable', 'Runtime.enable', 'Log.enable', 'Network.enable'].map((method) => page.send(method)));
    const loaded = page.waitFor('Page.loadEventFired', 30_000);
    await page.send('Page.navigate', { url: fileUrl });
    await loaded;
    const evaluated = await page.send('Runtime.evaluate', { expression: PROBE, returnByValue: true });
    probe = JSON.parse((evaluated.result as { value: string }).value) as LayoutProbe;

    const metrics = await page.send('Page.getLayoutMetrics') as { cssContentSize: { width: number; height: number } };
    await page.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: Math.ceil(metrics.cssContentSize.height), deviceScaleFactor: 1, mobile: false });
    const shot = await page.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true }, 60_000);
    screenshot = path.join(directory, 'report.png');
    writeFileSync(screenshot, Buffer.from(shot.data as string, 'base64'));
    if (process.env.HTML_REPORT_SCREENSHOT !== undefined) copyFileSync(screenshot, process.env.HTML_REPORT_SCREENSHOT);
    events = [...page.events];

    const layoutAt = async (width: number, media: 'screen' | 'print'): Promise<Layout> => {
      await page.send('Emulation.setDeviceMetricsOverride', { width, height: 900, deviceScaleFactor: 1, mobile: false });
      await page.send('Emulation.setEmulatedMedia', { media });
      const result = await page.send('Runtime.evaluate', { expression: LAYOUT, returnByValue: true });
      return JSON.parse((result.result as { value: string }).value) as Layout;
    };
    layouts.wide = await layoutAt(1400, 'screen');
    layouts.narrow = await layoutAt(400, 'screen');
    layouts.print = await layoutAt(A4_PRINTABLE_WIDTH, 'print');
    await page.send('Emulation.clearDeviceMetricsOverride');
    await page.send('Emulation.setEmulatedMedia', { media: '' });
    const printed = await page.send('Page.printToPDF', { paperWidth: 210 / 25.4, paperHeight: 297 / 25.4 }, 60_000);
    pdf = Buffer.from(printed.data as string, 'base64');
  }, 120_000);

  afterAll(async () => {
    try {
      await browser?.close();
    } finally {
      if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    }
  });

  it('takes a full-page screenshot', () => {
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
  });

  it('lays out every chart with a size', () => {
    // Demo: 22 devices (> 12) -> one compute heatmap; VRAM, idle, cost bars; a colour key and 22 hour-of-week grids.
    expect(probe.charts.length).toBe(probe.expectedCharts);
    // And two serving servers: a rate and a latency chart each.
    expect(probe.charts.length).toBe(1 + 3 + 1 + 22 + 4);
    for (const chart of probe.charts) {
      expect(chart.width, chart.id).toBeGreaterThan(100);
      expect(chart.height, chart.id).toBeGreaterThan(30);
    }
  });

  it('keeps every label inside its chart and off the others', () => {
    expect(probe.outside).toEqual([]);
    expect(probe.overlapping).toEqual([]);
  });

  it('has a Plan and a Workloads section beside the GPUs', () => {
    expect(layouts.wide.sections).toEqual(expect.arrayContaining(['summary', 'plan', 'gpus', 'workloads', 'findings', 'methodology']));
  });

  it.each([['wide', 1400], ['narrow', 400]] as const)('fits a %s screen (%i px): nothing past the right edge, wide tables scroll in their box', (name, width) => {
    expect(layouts[name].width).toBe(width);
    expect(layouts[name].offenders).toEqual([]);
    expect(layouts[name].documentWidth).toBeLessThanOrEqual(width);
  });

  it('prints on A4 with every table whole: nothing clipped, nothing past the page', () => {
    expect(layouts.print.offenders).toEqual([]);
    expect(layouts.print.clippedTables).toBe(0);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.length).toBeGreaterThan(50_000);
  });

  it('logs no error', () => {
    const errors = events.filter((event) =>
      event.method === 'Runtime.exceptionThrown'
      || (event.method === 'Runtime.consoleAPICalled' && event.params.type === 'error')
      || (event.method === 'Log.entryAdded' && (event.params.entry as { level: string }).level === 'error'));
    expect(errors).toEqual([]);
  });

  it('requests nothing but the file itself', () => {
    const requested = events
      .filter((event) => event.method === 'Network.requestWillBeSent')
      .map((event) => (event.params.request as { url: string }).url);
    expect(requested.filter((url) => url !== fileUrl)).toEqual([]);
  });
});

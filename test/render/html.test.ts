/**
 * The HTML report: one self-contained file (inline CSS and SVG, no script, nothing loaded
 * from anywhere), every input string escaped, every chart drawn from Report fields.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { CONTENT_SECURITY_POLICY } from '../../src/render/html/page.js';
import { escapeHtml, html } from '../../src/render/html/escape.js';
import { mergeEqualCells } from '../../src/render/html/gpu-charts.js';
import { renderHtml, renderHtmlPieces } from '../../src/render/html/index.js';
import { renderReport, reportFormats } from '../../src/render/index.js';
import { auditDemoTelemetry } from '../helpers/audit.js';
import { BUSY_L4_ID, FINDINGS_AND_RECOMMENDATIONS, IDLE_L4_ID } from '../fixtures/reports/findings-and-recommendations.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { SNAPSHOT_ONLY } from '../fixtures/reports/snapshot-only.js';

const render = (report: Report): string => renderHtml(report, { color: false, width: 100 });

const SCRIPT = '<script>alert(1)</script>';
const ATTRIBUTE_BREAK = '"><img src=x onerror=alert(1)>';

/** The fixture with hostile strings wherever input reaches the report. */
function hostileReport(): Report {
  const report = structuredClone(FINDINGS_AND_RECOMMENDATIONS);
  report.gpus = report.gpus.map((gpu) => ({
    ...gpu,
    host: SCRIPT,
    model: ATTRIBUTE_BREAK,
    processes: gpu.processes.map((process) => ({ ...process, name: ATTRIBUTE_BREAK })),
  }));
  report.sources = [{ ref: ATTRIBUTE_BREAK, format: SCRIPT, records: 1, warnings: [SCRIPT] }];
  report.findings = report.findings.map((finding) => ({ ...finding, message: `${SCRIPT} ${ATTRIBUTE_BREAK}`, severity: ATTRIBUTE_BREAK as 'info' }));
  report.recommendations = report.recommendations.map((item) => ({
    ...item,
    current: SCRIPT,
    proposed: ATTRIBUTE_BREAK,
    targets: [SCRIPT, ...item.targets],
    ...(item.config === undefined ? {} : { config: { format: SCRIPT, text: `</code></pre>${SCRIPT}\nreplicas: 2` } }),
  }));
  report.window = { ...report.window, timezone: SCRIPT };
  report.settings = { ...report.settings, region: ATTRIBUTE_BREAK };
  return report;
}

describe('escaping', () => {
  it('escapes text and attribute characters, and drops control characters', () => {
    expect(escapeHtml(`a<b>&"c'\u001b[31m`)).toBe('a&lt;b&gt;&amp;&quot;c&#39;');
    expect(html`<p title="${ATTRIBUTE_BREAK}">${SCRIPT}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
  });

  const output = render(hostileReport());

  it('lets no tag from the input through', () => {
    expect(output).not.toMatch(/<script/iu);
    expect(output).not.toMatch(/<img/iu);
    expect(output).not.toMatch(/onerror=alert\(1\)>/u);
  });

  it('shows the hostile strings as text', () => {
    expect(output).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(output).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
  });

  it('keeps a generated config inside its <pre> block', () => {
    expect(output).toContain('<pre><code>&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;\nreplicas: 2</code></pre>');
  });

  it('gives an unknown severity no class of its own', () => {
    expect(output).toContain('class="badge severity-other"');
  });
});

describe('a self-contained page', () => {
  const output = render(FINDINGS_AND_RECOMMENDATIONS);

  it('forbids every network load in a Content-Security-Policy', () => {
    expect(CONTENT_SECURITY_POLICY).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    expect(output).toContain(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CONTENT_SECURITY_POLICY)}">`);
  });

  it('has no script, stylesheet link, font or image by URL', () => {
    expect(output).not.toMatch(/<script|<link|<img|<iframe|<object|<embed|@import|url\(|@font-face/iu);
  });

  it('names no URL except as text from the input', () => {
    // The fixture's one source is a Prometheus URL: it may appear as text, never in an attribute.
    const urls = [...output.matchAll(/https?:\/\/[^\s"'<>&]*/giu)].map((match) => match[0]);
    expect(urls.every((url) => url === 'http://prometheus.monitoring:9090')).toBe(true);
    expect(output).not.toMatch(/(?:href|src|action|xlink:href)\s*=\s*["']?\s*(?:https?:|javascript:|data:)/iu);
    expect(output).not.toMatch(/<[^>]*=\s*"[^"]*https?:\/\//u);
  });

  it('is written a section at a time: the head, each section whole in a piece of its own, the end', () => {
    const pieces = [...renderHtmlPieces(FINDINGS_AND_RECOMMENDATIONS)];
    expect(pieces.join('')).toBe(output);
    expect(pieces[0]!.startsWith('<!DOCTYPE html>\n<html lang="en"><head>')).toBe(true);
    expect(pieces[0]!.endsWith('<body><main>')).toBe(true);
    expect(pieces.at(-1)).toBe('</main></body></html>\n');
    for (const id of ['summary', 'charts', 'gpus', 'findings', 'recommendations', 'methodology']) {
      const holding = pieces.filter((piece) => piece.includes(`id="${id}"`));
      expect(holding, id).toHaveLength(1);
      expect(holding[0]!.startsWith('<section'), id).toBe(true);
    }
  });

  it('is registered as the html format', () => {
    expect(reportFormats).toContain('html');
    expect(renderReport(FINDINGS_AND_RECOMMENDATIONS, 'html')).toBe(output);
  });
});

describe('the sections', () => {
  const output = render(FINDINGS_AND_RECOMMENDATIONS);

  it('open with the executive summary and end with the methodology', () => {
    const order = ['id="summary"', 'id="charts"', 'id="gpus"', 'id="workloads"', 'id="findings"', 'id="recommendations"', 'id="methodology"'].map((id) => output.indexOf(id));
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('tabulate the workloads in the ten columns of the Markdown report, each in full below, open for print', () => {
    const section = output.slice(output.indexOf('<section id="workloads">'), output.indexOf('<section id="findings">'));
    const headers = [...section.split('</thead>')[0]!.matchAll(/<th[^>]*>([^<]*)<\/th>/gu)].map((match) => match[1]);
    expect(headers).toEqual(['Workload', 'Kind', 'Tenant', 'GPUs', 'VRAM required (MiB)', 'Compute mean (%)', 'Busy (%)', 'CPU pipeline', 'Cost ($/month)', 'Waste ($/month)']);
    expect(section.match(/<details class="workload" open>/gu)).toHaveLength(FINDINGS_AND_RECOMMENDATIONS.workloads.length);
    // chat-api: 9420.8 MiB required, shown whole.
    expect(section).toContain('<dt>VRAM</dt><dd>peak ');
    expect(section).toContain('required 9,421 MiB (upper-bound)');
  });

  it('escape a workload\'s name and evidence like every other input string', () => {
    const report = structuredClone(FINDINGS_AND_RECOMMENDATIONS);
    report.workloads = report.workloads.map((workload) => ({ ...workload, name: SCRIPT, cpuPipeline: { ...workload.cpuPipeline, evidence: [ATTRIBUTE_BREAK] } }));
    const text = render(report);
    expect(text).not.toContain(SCRIPT);
    expect(text).not.toContain(ATTRIBUTE_BREAK);
  });

  it('show the fleet figures of the summary', () => {
    const { summary } = FINDINGS_AND_RECOMMENDATIONS;
    expect(output).toContain(`${Math.round(summary.gpuHours)}.0 h`);
    expect(output).toContain('Potential savings');
  });

  it('draw one small chart per GPU with a timeline when there are few', () => {
    // Only the busy L4 has a timeline in this fixture.
    expect(output).toContain('id="compute-gpu-0"');
    expect(output).not.toContain('id="compute-gpu-1"');
    expect(output).not.toContain('id="compute-heatmap"');
  });

  it('give every chart a title, a description and an axis or key with units', () => {
    const charts = [...output.matchAll(/<svg class="chart"[\s\S]*?<\/svg>/gu)].map((match) => match[0]);
    expect(charts.length).toBeGreaterThan(0);
    for (const chart of charts) {
      expect(chart).toMatch(/<title id="[^"]+-title">[^<]+<\/title><desc id="[^"]+-desc">[^<]+<\/desc>/u);
      expect(chart).toMatch(/\((?:%|h|GiB|UTC|USD per hour)\)<\/text>/u);
    }
  });

  it('reuse the shared definitions in the methodology', () => {
    expect(output).toContain('Observed time, GPU-hours');
    expect(output).toContain('Hour-of-week profile');
    expect(output).toContain('<code>utilization.gpu</code>');
  });

  it('tabulate PCIe traffic in MiB/s with the link under the GPU table, - where a GPU reports none', () => {
    const gpus = output.slice(output.indexOf('<section id="gpus">'), output.indexOf('<section id="findings">'));
    const pcie = gpus.slice(gpus.indexOf('<h3 id="pcie">PCIe traffic</h3>'));
    expect(pcie).toContain('<th class="num">Rx mean (MiB/s)</th><th class="num">Rx p95 (MiB/s)</th><th class="num">Rx max (MiB/s)</th>');
    const cells = (id: string): string[] => {
      const row = pcie.slice(pcie.indexOf(`title="${id}"`));
      return [...row.slice(0, row.indexOf('</tr>')).matchAll(/<td[^>]*>([^<]*)<\/td>/gu)].map((match) => match[1]!);
    };
    // Gen4 x16: 16e9 x 16 x 128/130 / 8 B/s / 2^20 = 30,048.08 MiB/s, shown whole.
    expect(cells(BUSY_L4_ID)).toEqual(['Gen4 x16', '30,048', '812.5', '2,048.0', '3,900.0', '96.0', '210.0', '512.0']);
    expect(cells(IDLE_L4_ID)).toEqual(['-', '-', '-', '-', '-', '-', '-', '-']);
    expect(render(SMALL_FLEET)).not.toContain('PCIe traffic</h3>');
  });

  it('name four targets in a recommendation heading and how many more, and list them all in its card', () => {
    const report = structuredClone(FINDINGS_AND_RECOMMENDATIONS);
    const targets = Array.from({ length: 1234 }, (_, index) => `unknown-gpu-${index}`);
    report.recommendations = [{ ...report.recommendations[0]!, targets }];
    const many = render(report);
    expect(many).toContain('<h3>1. rightsize: unknown-gpu-0, unknown-gpu-1, unknown-gpu-2, unknown-gpu-3 and 1,230 more <span class="saving">');
    expect(many).toContain(`<dl><dt>Targets (1,234)</dt><dd>${targets.join(', ')}</dd><dt>In the total</dt><dd>yes</dd><dt>Current</dt>`);
    expect(output).not.toContain('<dt>Targets');
  });

  it('mark an alternative and keep it after what counts; a cost in its own colour; nothing saved not green', () => {
    const report = structuredClone(FINDINGS_AND_RECOMMENDATIONS);
    const [first] = report.recommendations;
    report.recommendations = [
      { ...first!, kind: 'replicas', monthlySavingsUsd: 0, counted: true },
      { ...first!, kind: 'mps', monthlySavingsUsd: 500, counted: false, alternativeTo: 'rightsize:x' },
      { ...first!, kind: 'rightsize', monthlySavingsUsd: -200, counted: true },
    ];
    const text = render(report);
    const headings = [...text.matchAll(/<article class="recommendation( step-cost)?"><h3>(\d)\. (\w+):.*?<span class="(\w+)">([^<]+)<\/span><\/h3>/gu)].map((match) => [match[2], match[3], match[4], match[5], match[1] ?? '']);
    expect(headings).toEqual([
      ['1', 'replicas', 'muted', '$0/month', ''],
      ['2', 'rightsize', 'cost', '-$200/month', ' step-cost'],
      ['3', 'mps', 'saving', '$500/month', ''],
    ]);
    expect(text).toContain('<span class="badge">alternative</span>');
    expect(text).toContain('<dt>In the total</dt><dd>no, an alternative to rightsize:x</dd>');
  });

  it('list the ids of the GPUs in the table', () => {
    expect(output).toContain(`title="${IDLE_L4_ID}"`);
    expect(output).toContain(`title="${BUSY_L4_ID}"`);
  });
});

describe('heatmap cells', () => {
  it('merge neighbours that show the same value, and nothing else', () => {
    const cells = [0, 0, 0.04, 50, null, 50, 50.04, 50.06].map((value, i) => ({ from: i, to: i + 1, value }));
    // 0, 0 and 0.04 all show 0.0 %; null breaks the run; 50 and 50.04 show 50.0 %, 50.06 shows 50.1 %.
    expect(mergeEqualCells(cells)).toEqual([
      { from: 0, to: 3, value: 0 },
      { from: 3, to: 4, value: 50 },
      { from: 4, to: 5, value: null },
      { from: 5, to: 7, value: 50 },
      { from: 7, to: 8, value: 50.06 },
    ]);
  });
});

describe('reports with little in them', () => {
  it('render snapshots without time charts', () => {
    const output = render(SNAPSHOT_ONLY);
    expect(output).not.toContain('id="chart-compute"');
    expect(output).not.toContain('id="chart-hour-of-week"');
    expect(output).toContain('id="chart-vram"');
  });

  it('render a fleet without timelines, and one without GPUs', () => {
    expect(render(SMALL_FLEET)).toContain('id="chart-cost"');
    const empty = render({ ...SMALL_FLEET, gpus: [], summary: { ...SMALL_FLEET.summary, gpuCount: 0 } });
    expect(empty).toContain('No GPU was found in the inputs.');
    expect(empty).toContain('No figures to chart');
  });
});

describe('the demo fleet', () => {
  let output: string;
  let report: Report;

  beforeAll(async () => {
    ({ report } = await auditDemoTelemetry());
    output = render(report);
  });

  it('renders every chart, the many GPUs as one heatmap', () => {
    // 22 devices (> 12): a heatmap row each; every device has a timeline and an hour-of-week grid.
    expect(report.gpus).toHaveLength(22);
    for (const id of ['compute-heatmap', 'vram-peaks', 'idle-hours', 'monthly-cost', 'hour-of-week-key', 'hour-of-week-21']) {
      expect(output).toContain(`<svg class="chart" id="${id}"`);
    }
    // One cell per run of buckets that show the same value.
    const runs = report.gpus.reduce((count, gpu) => {
      const timeline = gpu.timeline!;
      return count + mergeEqualCells(timeline.computeMeanPct.map((value, i) => ({ from: i, to: i + 1, value }))).filter((cell) => cell.value !== null).length;
    }, 0);
    const heat = /<svg class="chart" id="compute-heatmap"[\s\S]*?<\/svg>/u.exec(output)![0];
    expect(heat.match(/class="heat-cell"/gu)).toHaveLength(runs);
    // The four notebook A10Gs never compute: each row is one cell at 0.0 %.
    expect(runs).toBeLessThan(report.gpus.reduce((count, gpu) => count + gpu.timeline!.computeMeanPct.length, 0));
  });

  it('names no URL at all', () => {
    expect(output).not.toMatch(/https?:\/\//u);
  });
});

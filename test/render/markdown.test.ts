/**
 * The Markdown report: complete, defined, and impossible to break from the inputs.
 * Table integrity is checked the way GFM splits rows (unescaped pipes).
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { FIGURE_DEFINITIONS } from '../../src/render/definitions.js';
import { renderMarkdown, renderMarkdownPieces } from '../../src/render/markdown.js';
import { FINDINGS_AND_RECOMMENDATIONS, TIME_SLICING_CONFIG } from '../fixtures/reports/findings-and-recommendations.js';
import { PLANNED_FLEET } from '../fixtures/reports/planned-fleet.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { SNAPSHOT_ONLY } from '../fixtures/reports/snapshot-only.js';
import { ANSI_OR_CONTROL, copyOf, lineStartingWith, lineWith, linesOf, markdownCells } from './helpers.js';

const OPTIONS = { color: false, width: 100 };
const FIXTURES: [string, Report][] = [
  ['small fleet', SMALL_FLEET],
  ['snapshot only', SNAPSHOT_ONLY],
  ['findings and recommendations', FINDINGS_AND_RECOMMENDATIONS],
  ['planned fleet', PLANNED_FLEET],
];

/** Every table of the document as rows of cells (header first, delimiter row dropped). */
function tablesOf(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of linesOf(markdown)) {
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    if (current === undefined) {
      current = [];
      tables.push(current);
    }
    if (!/^\| ?:?-{3,}/u.test(line)) current.push(markdownCells(line));
  }
  return tables;
}

/** The row of the table headed by `firstHeader` whose first cell is `firstCell`, as a header -> cell record. */
function row(markdown: string, firstHeader: string, firstCell: string): Record<string, string> {
  const table = tablesOf(markdown).find((candidate) => candidate[0]?.[0] === firstHeader);
  const found = table?.slice(1).filter((cells) => cells[0] === firstCell) ?? [];
  if (table === undefined || found.length !== 1) throw new Error(`no single row ${firstCell} in table ${firstHeader}`);
  return Object.fromEntries(table[0]!.map((header, index) => [header, found[0]![index]!]));
}

describe('renderMarkdown: structure', () => {
  it('is written a section at a time: each piece one section, after the first a blank line before it, a newline last', () => {
    const pieces = [...renderMarkdownPieces(FINDINGS_AND_RECOMMENDATIONS)];
    expect(pieces.join('')).toBe(renderMarkdown(FINDINGS_AND_RECOMMENDATIONS, OPTIONS));
    expect(pieces[0]!.startsWith('# GPU audit report')).toBe(true);
    expect(pieces.slice(1, -1).every((piece) => /^\n\n#{1,2} /u.test(piece))).toBe(true);
    expect(pieces.filter((piece) => /^\n\n## GPUs\n/u.test(piece))).toHaveLength(1);
    expect(pieces.at(-1)).toBe('\n');
  });

  it('has the sections in reading order', () => {
    const headings = linesOf(renderMarkdown(FINDINGS_AND_RECOMMENDATIONS, OPTIONS)).filter((line) => /^#{1,3} /u.test(line));
    expect(headings).toEqual([
      '# GPU audit report',
      '## Summary',
      '## Window and sources',
      '## GPUs',
      '### Time, instance and id',
      '### Compute activity (DCGM profiling)',
      '### PCIe traffic',
      '## Processes',
      '## Workloads',
      '### Workload chat-api',
      '### Workload trainer',
      '## Findings',
      '## Recommendations',
      '### 1. time-slicing: #0 aa11bb22, #1 cc33dd44',
      '### 2. rightsize: #1 cc33dd44',
      '### 3. autoscale: chat-api',
      '### 4. mps: #1 cc33dd44',
      '### 5. purchase: fleet',
      '### 6. replicas: chat-api',
      '## Methodology',
    ]);
  });

  it.each(FIXTURES)('%s: every table row has as many cells as its header', (_name, report) => {
    for (const table of tablesOf(renderMarkdown(report, OPTIONS))) {
      for (const cells of table) expect(cells.length).toBe(table[0]!.length);
    }
  });

  it.each(FIXTURES)('%s: no NaN, undefined or control character', (_name, report) => {
    const markdown = renderMarkdown(report, OPTIONS);
    expect(markdown).not.toMatch(/NaN|undefined|Infinity/u);
    expect(markdown).not.toMatch(ANSI_OR_CONTROL);
  });
});

describe('renderMarkdown: a small fleet', () => {
  const markdown = renderMarkdown(SMALL_FLEET, OPTIONS);

  it('sums the fleet up in the summary, dollar signs escaped for GitHub math', () => {
    expect(lineStartingWith(markdown, '- **Fleet:**')).toBe('- **Fleet:** 3 GPUs and 2 MIG devices on 2 hosts; 72.0 h of GPU time observed, 30.0 h idle.');
    expect(lineStartingWith(markdown, '- **Monthly GPU cost:**')).toBe('- **Monthly GPU cost:** \\$18,678/month for the GPUs seen');
    expect(lineStartingWith(markdown, '- **Waste:**')).toBe('- **Waste:** 41.7% of GPU-hours idle, costing \\$4,007/month');
    expect(lineStartingWith(markdown, '- **Mean utilization:**')).toBe('- **Mean utilization:** 32.9% (GPU-hour weighted)');
    // each GPU on its own basis: (75 + 62.5 + 3.2) / 3 = 46.9 (all 24 h)
    expect(lineStartingWith(markdown, '- **Mean compute:**')).toBe('- **Mean compute:** 46.9% on mixed basis (GPU-hour weighted)');
    expect(lineStartingWith(markdown, '- **Findings:**')).toBe('- **Findings:** none.');
  });

  it('states the window, the settings and the catalog', () => {
    expect(lineStartingWith(markdown, '- **Window:**')).toBe('- **Window:** 2026-12-01 01:00:00 → 2026-12-02 01:00:00 Europe/Berlin (24.0 h)');
    expect(lineStartingWith(markdown, '- **Pricing:**')).toBe('- **Pricing:** on-demand, aws, us-east-1');
    expect(lineStartingWith(markdown, '- **Catalog:**')).toBe('- **Catalog:** gpu-audit bundled catalog, as of 2026-11-29 (bundled, 3 days old)');
    expect(row(markdown, 'Source', 'node-b/gpu.csv')).toEqual({ Source: 'node-b/gpu.csv', Format: 'nvidia-smi-csv', Records: '1,436', Warnings: '1' });
    expect(lineStartingWith(markdown, '- node-b/gpu.csv:')).toBe('- node-b/gpu.csv: 4 rows without a timestamp were skipped');
  });

  it('gives every GPU a row with units in the headers, MIG devices after their parent, in two tables of at most ten columns', () => {
    const gpuTable = tablesOf(markdown).find((table) => table[0]?.[0] === 'Host')!;
    expect(gpuTable[0]).toEqual(['Host', 'GPU', 'Model', 'VRAM total (GiB)', 'Peak used (GiB)', 'Headroom (%)', 'Util mean (%)', 'Util p95 (%)', 'Idle (%)', 'Cost (\\$/h)']);
    expect(gpuTable.slice(1).map((cells) => cells[1])).toEqual(['#0 8f3c2a1b', '↳ GI 1', '↳ GI 2', '#1 1a2b3c4d', '#0 5e6f7a8b']);
    expect(gpuTable[2]).toEqual(['node-a', '↳ GI 1', 'MIG 3g.40gb', '39.3', '39.0', '0.6', '-', '-', '12.5', '-']);
    // 23028 MiB = 22.5 GiB, 2048 MiB = 2.0 GiB, headroom 91.1%, idle 0.875 = 87.5%, 21.0 of 24.0 h, $1.006/h
    expect(gpuTable[5]).toEqual(['node-b', '#0 5e6f7a8b', 'NVIDIA A10G', '22.5', '2.0', '91.1', '3.2', '12.0', '87.5', '1.01']);
    const timeTable = tablesOf(markdown).find((table) => table[0]?.[1] === 'Instance type')!;
    expect(timeTable[0]).toEqual(['GPU', 'Instance type', 'Idle (h)', 'GPU-hours (h)', 'ID']);
    expect(timeTable[2]).toEqual(['node-a #0 8f3c2a1b GI 1', '-', '3.0', '24.0', 'GPU-8f3c2a1b-6d4e-4f10-9a7b-0c1d2e3f4a5b/1']);
    expect(timeTable[5]).toEqual(['node-b #0 5e6f7a8b', 'g5.xlarge (inferred)', '21.0', '24.0', 'GPU-5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9']);
    expect(tablesOf(markdown).every((table) => table[0]!.length <= 10)).toBe(true);
  });

  it('lists every process with its full name, largest first on each device', () => {
    const processes = tablesOf(markdown).find((table) => table[0]?.[0] === 'GPU' && table[0]?.[1] === 'PID')!;
    expect(processes.slice(1).filter((cells) => cells[0] === 'node-a #1 1a2b3c4d').map((cells) => [cells[2], cells[4]])).toEqual([
      ['/usr/bin/python3', '73,728'],
      ['pt\\_data\\_worker', '1,024'],
      ['nvidia-cuda-mps-server', '512'],
      ['Xorg', '8'],
    ]);
  });

  it('leaves out sections the report has nothing for', () => {
    expect(markdown).not.toContain('## Workloads');
    expect(markdown).not.toContain('### Compute activity');
    // No GPU of this fleet reports PCIe (a report written before the fields existed has none either).
    expect(markdown).not.toContain('### PCIe traffic');
    expect(markdown).toContain('## Recommendations\n\nNone.');
  });
});

describe('renderMarkdown: a lone snapshot', () => {
  const markdown = renderMarkdown(SNAPSHOT_ONLY, OPTIONS);

  it('prints missing figures as -', () => {
    const unknown = tablesOf(markdown).find((table) => table[0]?.[0] === 'Host')![2]!;
    expect(unknown).toEqual(['ws-01', '65:00.0', '-', '-', '-', '-', '-', '-', '-', '-']);
    expect(tablesOf(markdown).find((table) => table[0]?.[1] === 'Instance type')![2]!.slice(1)).toEqual(['-', '0.0', '0.0', 'ws-01#00000000:65:00.0']);
    expect(lineStartingWith(markdown, '- **Monthly GPU cost:**')).toBe('- **Monthly GPU cost:** -');
    expect(lineStartingWith(markdown, '- **Waste:**')).toBe('- **Waste:** -');
    expect(lineStartingWith(markdown, '- **Window:**')).toBe('- **Window:** snapshot at 2026-12-01 09:30:00 America/New\\_York (no duration)');
  });

  it('prints a Windows path with its backslashes escaped, and N/A memory as -', () => {
    const process = tablesOf(markdown).find((table) => table[0]?.[1] === 'PID')![1]!;
    expect(process).toEqual(['#0 77aa11bb', '1234', 'C:\\\\Program Files\\\\Blender Foundation\\\\Blender 4.2\\\\blender.exe', 'C+G', '-', '1']);
  });
});

describe('renderMarkdown: findings and recommendations', () => {
  const markdown = renderMarkdown(FINDINGS_AND_RECOMMENDATIONS, OPTIONS);

  it('puts the most severe findings in the summary', () => {
    expect(lineWith(markdown, '**Top findings**')).toBe('- **Top findings** (3 of 5):');
    expect(lineStartingWith(markdown, '  - **error**')).toBe(
      '  - **error** allocated-unused on #0 aa11bb22: Pod chat-api holds this GPU but ran kernels only 10% of the week.',
    );
  });

  it('tabulates findings with their evidence', () => {
    expect(row(markdown, 'Severity', 'error')).toEqual({
      Severity: 'error',
      Code: 'allocated-unused',
      Target: '#0 aa11bb22',
      Message: 'Pod chat-api holds this GPU but ran kernels only 10% of the week.',
      Evidence: 'pod=chat-api-7d9f; busyFraction=0.1; namespace=null',
    });
  });

  it('tabulates workloads in ten columns, then gives each its own section with every figure', () => {
    const chat = row(markdown, 'Workload', 'chat-api');
    // 9420.8 MiB rounds to 9,421; busy fraction 0.1 = 10.0%
    expect(chat['VRAM required (MiB)']).toBe('9,421');
    expect(chat['Busy (%)']).toBe('10.0');
    expect(Object.keys(chat)).toHaveLength(10);
    const section = markdown.split('### Workload chat-api\n')[1]!.split('\n### ')[0]!;
    expect(section).toContain('required 9,421 MiB (upper-bound)');
    expect(markdown.split('### Workload trainer\n')[1]!.split('\n## ')[0]).toContain('- **Sidecars:** -');
    expect(tablesOf(markdown).every((table) => table[0]!.length <= 10)).toBe(true);
  });

  it('tabulates PCIe traffic per GPU in MiB/s with its link, - where a GPU reports none', () => {
    const pcie = tablesOf(markdown).find((table) => table[0]?.[1] === 'Link')!;
    expect(pcie[0]).toEqual([
      'GPU', 'Link', 'Link bandwidth (MiB/s)', 'Rx mean (MiB/s)', 'Rx p95 (MiB/s)', 'Rx max (MiB/s)', 'Tx mean (MiB/s)', 'Tx p95 (MiB/s)', 'Tx max (MiB/s)',
    ]);
    // Gen4 x16: 16e9 x 16 x 128/130 / 8 B/s / 2^20 = 30,048.08 MiB/s, shown whole.
    expect(pcie.find((cells) => cells[0] === '#1 cc33dd44')).toEqual(['#1 cc33dd44', 'Gen4 x16', '30,048', '812.5', '2,048.0', '3,900.0', '96.0', '210.0', '512.0']);
    expect(pcie.find((cells) => cells[0] === '#0 aa11bb22')).toEqual(['#0 aa11bb22', '-', '-', '-', '-', '-', '-', '-', '-']);
  });

  it('details each recommendation, its config in a fenced block', () => {
    expect(markdown).toContain(
      [
        '### 1. time-slicing: #0 aa11bb22, #1 cc33dd44',
        '',
        '- **Current:** chat-api alone on GPU 0, busy 10% of the time',
        '- **Proposed:** chat-api and trainer share GPU 1 (time-slicing, 2 replicas)',
        '- **Saves:** \\$600/month',
        '- **Confidence:** medium: 7-day window; VRAM need of chat-api declared, not measured',
        '- **Risks:** chat-api latency rises while trainer kernels run; no memory isolation between the two',
      ].join('\n'),
    );
    expect(markdown).toContain(`\`\`\`yaml\n${TIME_SLICING_CONFIG.trimEnd()}\n\`\`\`\n`);
    expect(lineStartingWith(markdown, 'Potential savings:')).toMatch(/^Potential savings: \\\$1,020\/month/u);
  });

  it('names four targets in a heading and how many more, and lists them all below it', () => {
    const report = copyOf(FINDINGS_AND_RECOMMENDATIONS);
    const targets = Array.from({ length: 1234 }, (_, index) => `unknown-gpu-${index}`);
    report.recommendations = [{ ...report.recommendations[0]!, targets }];
    const many = renderMarkdown(report, OPTIONS);
    expect(lineStartingWith(many, '### 1.')).toBe('### 1. rightsize: unknown-gpu-0, unknown-gpu-1, unknown-gpu-2, unknown-gpu-3 and 1,230 more');
    expect(lineStartingWith(many, '- **Targets')).toBe(`- **Targets (1,234):** ${targets.join(', ')}`);
    // Four or fewer: all in the heading, no list.
    expect(markdown).not.toContain('- **Targets');
  });

  it('defines every figure and names the catalog with its date', () => {
    const methodology = markdown.slice(markdown.indexOf('## Methodology'));
    expect(methodology).toContain('prices from the catalog "gpu-audit bundled catalog" as of 2026-11-29 (bundled)');
    expect(methodology).toContain('idle while its compute signal is below 5%');
    for (const definition of FIGURE_DEFINITIONS) expect(methodology).toContain(`- **${definition.figure}** (${definition.unit}): `);
  });
});

describe('renderMarkdown: hostile input', () => {
  const report = copyOf(SMALL_FLEET);
  report.gpus[3]!.processes[1]!.name = '<script>alert(1)</script>';
  report.gpus[3]!.processes[2]!.name = 'a|b';
  report.gpus[3]!.processes[3]!.name = '**bold** _it_ `code` [link](http://evil.example) ~~x~~ $x$ \\| line\nbreak';
  report.gpus[4]!.host = 'evil|host<img src=x onerror=alert(1)>';
  report.sources[1]!.warnings = ['</td><iframe src="x">'];
  report.findings = [
    { id: 'x:fleet', code: 'idle-gpu', severity: 'warning', target: 'fleet', message: 'ends a cell | starts <b>bold</b>', evidence: { 'k|ey': 'v<al>' } },
  ];
  report.recommendations = [
    {
      ...FINDINGS_AND_RECOMMENDATIONS.recommendations[1]!,
      targets: ['# heading?'],
      rationale: 'see ```` fence',
      config: { format: 'yaml"><script>', text: 'a: 1\n```\n## not a heading\n````\n<script>alert(1)</script>\n' },
    },
  ];
  const markdown = renderMarkdown(report, OPTIONS);
  const outsideFences = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gmu, '');

  it('keeps every table intact', () => {
    for (const table of tablesOf(markdown)) {
      for (const cells of table) expect(cells.length).toBe(table[0]!.length);
    }
  });

  it('lets no HTML through outside code blocks', () => {
    expect(outsideFences).not.toMatch(/<[a-z/!]/iu);
    const processes = tablesOf(markdown).find((table) => table[0]?.[1] === 'PID')!;
    const names = processes.slice(1).filter((cells) => cells[0] === 'node-a #1 1a2b3c4d').map((cells) => cells[2]);
    expect(names).toEqual([
      '&lt;script&gt;alert(1)&lt;/script&gt;', // 72.0 GiB
      '\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\[link\\](http://evil.example) \\~\\~x\\~\\~ \\$x\\$ \\\\\\| line break', // 1,024 MiB
      'a\\|b', // 512 MiB
      'Xorg',
    ]);
    expect(row(markdown, 'Host', 'evil\\|host&lt;img src=x onerror=alert(1)&gt;')['GPU']).toBe('#0 5e6f7a8b');
    expect(lineStartingWith(markdown, '- node-b/gpu.csv:')).toBe('- node-b/gpu.csv: &lt;/td&gt;&lt;iframe src="x"&gt;');
  });

  it('fences a config with a fence longer than any backtick run inside it, and a clean language tag', () => {
    expect(markdown).toContain('`````yamlscript\na: 1\n```\n## not a heading\n````\n<script>alert(1)</script>\n`````\n');
    expect(lineStartingWith(markdown, '### 1.')).toBe('### 1. time-slicing: # heading?');
    expect(lineStartingWith(markdown, '- **Rationale:**')).toBe('- **Rationale:** see \\`\\`\\`\\` fence');
  });
});

describe('renderMarkdown: the plan', () => {
  const markdown = renderMarkdown(PLANNED_FLEET, OPTIONS);

  it('sums the plan up in the summary and gives it a section with both fleets, placements, steps and notes', () => {
    expect(lineStartingWith(markdown, '- **Plan:**')).toBe('- **Plan:** \\$3,359/month now, \\$3,359/month target: saves \\$0/month in 1 step (below)');
    for (const heading of ['## Plan', '### Current fleet', '### Target fleet', '### Placements', '### Steps (1, in order; their savings add up to the plan\'s)', '### Alternatives (outside the total)', '### Notes']) {
      expect(markdown.split('\n')).toContain(heading);
    }
    expect(markdown).toContain('### 1. raise-cpu: trainer');
    expect(markdown).toContain('- **Evidence:** coresUsed=7.2; coresNeeded=13; gpuBusyPct=45; hostCpuBusyFraction=0.9; hostVcpus=48');
    expect(markdown).not.toMatch(/^## Recommendations/mu);
  });
});

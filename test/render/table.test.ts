/**
 * The terminal table, read the way a user reads it: the lines that matter, with the
 * figures the fixtures work out by hand, within the terminal width, and safe to print.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { renderTable } from '../../src/render/table.js';
import { FINDINGS_AND_RECOMMENDATIONS, HOST } from '../fixtures/reports/findings-and-recommendations.js';
import { PLANNED_FLEET } from '../fixtures/reports/planned-fleet.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { SNAPSHOT_ONLY } from '../fixtures/reports/snapshot-only.js';
import { ANSI_OR_CONTROL, columns, copyOf, lineStartingWith, lineWith, linesOf, tokens } from './helpers.js';

const PLAIN = { color: false, width: 100 };
const FIXTURES: [string, Report][] = [
  ['small fleet', SMALL_FLEET],
  ['snapshot only', SNAPSHOT_ONLY],
  ['findings and recommendations', FINDINGS_AND_RECOMMENDATIONS],
  ['planned fleet', PLANNED_FLEET],
];

describe('renderTable: layout and safety', () => {
  it.each(FIXTURES.flatMap(([name, report]) => [80, 100, 120].map((width) => [name, width, report] as const)))(
    '%s fits %i columns',
    (_name, width, report) => {
      const tooWide = linesOf(renderTable(report, { color: false, width })).filter((line) => columns(line) > width);
      expect(tooWide).toEqual([]);
    },
  );

  it.each(FIXTURES)('%s holds no escape or control character with colour off', (_name, report) => {
    expect(renderTable(report, PLAIN)).not.toMatch(ANSI_OR_CONTROL);
  });

  it.each(FIXTURES)('%s with colour on is the same text, painted', (_name, report) => {
    const coloured = renderTable(report, { color: true, width: 100 });
    expect(coloured).toContain('\u001b[');
    expect(stripVTControlCharacters(coloured)).toBe(renderTable(report, PLAIN));
  });

  it.each(FIXTURES)('%s never prints NaN, null or undefined', (_name, report) => {
    expect(renderTable(report, PLAIN)).not.toMatch(/NaN|null|undefined|Infinity/u);
  });

  it('prints a hostile process name and hostname as inert text', () => {
    const report = copyOf(SMALL_FLEET);
    // An OSC title change with its payload, a colour, a carriage return that would
    // overwrite the line, a bell, and a right-to-left override.
    report.gpus[3]!.processes[1]!.name = '\u001b]0;pwned\u0007\u001b[31mevil\u001b[0m\r\nname\u202e\u0007';
    report.gpus[4]!.host = 'node-\u001b[2Jb\u009b31m';
    const text = renderTable(report, PLAIN);
    expect(text).not.toMatch(ANSI_OR_CONTROL);
    expect(text).not.toContain('\u202e');
    expect(text).not.toContain('pwned');
    expect(lineWith(text, '[7001]')).toContain('evil name [7001] 72.0 GiB');
    expect(lineWith(text, '#0 5e6f7a8b A10G').startsWith('node-b ')).toBe(true);
  });

  it('survives a saved report whose enums hold anything (gpu-audit report re-renders JSON files)', () => {
    const report = JSON.parse(JSON.stringify(FINDINGS_AND_RECOMMENDATIONS)) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- deliberately off-contract
    report['findings'][0].severity = 'critical\u001b[5m';
    report['recommendations'][0].kind = 'rightsize\u001b]0;x\u0007';
    report['catalog'].source = 'cache\r';
    const text = renderTable(report as Report, PLAIN);
    expect(text).not.toMatch(ANSI_OR_CONTROL);
    expect(text).toMatch(/^critical +low-compute/mu); // an unknown severity sorts last
    expect(() => renderTable(report as Report, { color: true, width: 100 })).not.toThrow();
  });
});

describe('renderTable: a small fleet with a MIG GPU (Europe/Berlin)', () => {
  const text = renderTable(SMALL_FLEET, PLAIN);

  it('opens with the window in its zone, the sources with record counts, the catalog and the pricing', () => {
    const lines = linesOf(text);
    expect(lines[0]).toBe('GPU audit report (gpu-audit 0.1.0, generated 2026-12-02 01:05:00 Europe/Berlin)');
    // 2026-12-01T00:00Z is 01:00 CET; 86,400 s = 24.0 h
    expect(lines[1]).toBe('window   2026-12-01 01:00:00 → 2026-12-02 01:00:00 Europe/Berlin (24.0 h)');
    expect(lines[2]).toBe('sources  node-a/nvidia-smi.xml  nvidia-smi-xml  1,440 records');
    expect(lines[3]).toBe('         node-b/gpu.csv         nvidia-smi-csv  1,436 records, 1 warning');
    expect(lines[4]).toBe('         ! node-b/gpu.csv: 4 rows without a timestamp were skipped');
    expect(lines[5]).toBe('catalog  gpu-audit bundled catalog, as of 2026-11-29 (bundled, 3 days old)');
    expect(lines[6]).toBe('pricing  on-demand prices, aws, us-east-1; idle means the compute signal is below 5%');
  });

  it('puts a unit under every figure column', () => {
    const header = lineWith(text, 'headroom');
    const units = linesOf(text)[linesOf(text).indexOf(header) + 1]!;
    expect(tokens(header)).toEqual(['host', 'GPU', 'model', 'VRAM', 'peak', 'headroom', 'util', 'util', 'idle', 'idle', 'GPU', 'cost']);
    expect(tokens(units)).toEqual(['GiB', 'GiB', '%', 'mean', '%', 'p95', '%', '%', 'h', 'h', '$/h']);
  });

  it('prints each GPU once with its figures rounded for reading', () => {
    // H100 #1: 81559 MiB = 79.6 GiB; peak 75776 MiB = 74.0 GiB; headroom 7.09% -> 7.1;
    // idle 0.125 -> 12.5%, 3.0 h of 24.0 h; $12.29/h.
    expect(tokens(lineWith(text, '#1 1a2b3c4d H100'))).toEqual(['#1', '1a2b3c4d', 'H100', '80GB', 'HBM3', '79.6', '74.0', '7.1', '62.5', '98.0', '12.5', '3.0', '24.0', '12.29']);
    // A10G: 23028 MiB = 22.5 GiB; peak 2048 MiB = 2.0 GiB; headroom 91.106% -> 91.1; idle 0.875 -> 87.5%; $1.006/h -> 1.01.
    expect(tokens(lineWith(text, '#0 5e6f7a8b A10G'))).toEqual(['node-b', '#0', '5e6f7a8b', 'A10G', '22.5', '2.0', '91.1', '3.2', '12.0', '87.5', '21.0', '24.0', '1.01']);
  });

  it('indents MIG devices under their parent, which shows - for the utilization it does not have', () => {
    const lines = linesOf(text);
    const parent = lines.findIndex((line) => line.includes('#0 8f3c2a1b'));
    expect(tokens(lines[parent]!)).toEqual(['node-a', '#0', '8f3c2a1b', 'H100', '80GB', 'HBM3', '79.6', '44.0', '44.8', '-', '-', '25.0', '6.0', '24.0', '12.29']);
    // 3g.40gb: 40192 MiB = 39.3 GiB, peak 39936 MiB = 39.0 GiB, headroom 0.64% -> 0.6
    expect(tokens(lines[parent + 1]!)).toEqual(['├', 'GI', '1', 'MIG', '3g.40gb', '39.3', '39.0', '0.6', '-', '-', '12.5', '3.0', '24.0', '-']);
    expect(tokens(lines[parent + 2]!)).toEqual(['└', 'GI', '2', 'MIG', '1g.10gb', '9.5', '5.0', '47.4', '-', '-', '50.0', '12.0', '24.0', '-']);
    expect(lines[parent + 3]).toContain('#1 1a2b3c4d');
    // The host is named once per host; the MIG branch starts right of the parent's label.
    expect(lines[parent + 1]!.startsWith('       ')).toBe(true);
    expect(lines[parent + 1]!.indexOf('├')).toBeGreaterThan(lines[parent]!.indexOf('#0'));
  });

  it('lists the top three processes of each device by peak memory, then how many more', () => {
    expect(lineWith(text, 'node-a #0 8f3c2a1b GI 1')).toMatch(/ {2}python3 \[4121\] 39\.0 GiB$/u);
    const busy = linesOf(text).findIndex((line) => line.startsWith('node-a #1 1a2b3c4d'));
    const list = [linesOf(text)[busy], linesOf(text)[busy + 1]].join(' ').replace(/\s+/gu, ' ');
    // 73728 MiB = 72.0 GiB, 1024 MiB = 1.0 GiB, 512 MiB below a GiB prints in MiB; Xorg (8 MiB) is the fourth.
    expect(list).toBe('node-a #1 1a2b3c4d python3 [7001] 72.0 GiB, pt_data_worker [7002] 1.0 GiB, nvidia-cuda-mps-server [7003] 512 MiB, +1 more');
  });

  it('totals the fleet as the summary holds it', () => {
    expect(lineStartingWith(text, '  GPUs ')).toBe('  GPUs       3 physical, 2 MIG devices, 2 hosts');
    expect(lineStartingWith(text, '  GPU-hours')).toBe('  GPU-hours  72.0 h observed, 30.0 h idle');
    // 30 / 72 x 100 = 41.67
    expect(lineStartingWith(text, '  waste')).toBe('  waste      41.7% of GPU-hours idle');
    expect(lineStartingWith(text, '  mean util')).toBe('  mean util  32.9% (GPU-hour weighted)');
    // (75 processes + 62.5 + 3.2 utilization) x 24 h / 72 h = 46.9, on different bases
    expect(lineStartingWith(text, '  compute')).toBe('  compute    46.9% on mixed basis (GPU-hour weighted)');
    // 18677.78 and 4006.97 USD per month
    expect(lineStartingWith(text, '  GPU cost')).toBe('  GPU cost   $18,678/month for the GPUs seen, of which idle $4,007/month');
    expect(lineStartingWith(text, '  savings')).toBe('  savings    $0/month potential, from 0 recommendations');
  });

  it('says there are no findings, shows no recommendations section, and ends with where definitions live', () => {
    expect(text).toContain('\nFindings: none.\n');
    expect(text).not.toContain('Recommendations');
    expect(linesOf(text).at(-1)).toBe('Figure definitions: --format markdown (Methodology); units: the JSON schema.');
  });
});

describe('renderTable: a lone snapshot (nulls everywhere)', () => {
  const text = renderTable(SNAPSHOT_ONLY, PLAIN);

  it('calls the window a snapshot in the report zone and names stdin', () => {
    // 14:30 UTC is 09:30 EST
    expect(lineStartingWith(text, 'window')).toBe('window   snapshot at 2026-12-01 09:30:00 America/New_York (no duration)');
    expect(lineStartingWith(text, 'sources')).toBe('sources  stdin  nvidia-smi-xml  1 record');
    expect(lineStartingWith(text, 'catalog')).toBe('catalog  aws us-east-1 (refreshed), as of 2026-11-30T08:00:00Z (cache)');
  });

  it('prints missing figures as -, and time-based figures as the 0 the report holds', () => {
    expect(tokens(lineWith(text, '65:00.0'))).toEqual(['65:00.0', '-', '-', '-', '-', '-', '-', '-', '0.0', '0.0', '-']);
    // 24564 MiB = 24.0 GiB; 3010 MiB = 2.9 GiB; headroom 87.75% -> 87.7; the one reading was not idle: 0.0%
    expect(tokens(lineWith(text, '#0 77aa11bb GeForce'))).toEqual(['ws-01', '#0', '77aa11bb', 'GeForce', 'RTX', '4090', '24.0', '2.9', '87.7', '7.0', '7.0', '0.0', '0.0', '0.0', '-']);
    expect(lineWith(text, 'blender.exe')).toBe('#0 77aa11bb  blender.exe [1234] -');
    expect(lineStartingWith(text, '  waste')).toBe('  waste      -');
    expect(lineStartingWith(text, '  mean util')).toBe('  mean util  7.0% (mean of point readings)');
    expect(lineStartingWith(text, '  compute')).toBe('  compute    7.0% on utilization basis (mean of point readings)');
    expect(lineStartingWith(text, '  GPU cost')).toBe('  GPU cost   -');
  });

  it('shows the short-window finding', () => {
    expect(tokens(lineWith(text, 'short-window')).slice(0, 3)).toEqual(['info', 'short-window', 'fleet']);
  });
});

describe('renderTable: findings and recommendations', () => {
  const text = renderTable(FINDINGS_AND_RECOMMENDATIONS, PLAIN);

  it('shortens a long hostname in the middle, keeping the end that tells nodes apart', () => {
    const row = lineWith(text, '#0 aa11bb22 L4');
    expect(HOST).toBe('gke-prod-gpu-pool-1a2b3c4d-x7k9');
    expect(row.startsWith('gke-prod-gpu-p…1a2b3c4d-x7k9 ')).toBe(true);
  });

  it('lists findings most severe first, targets named as GPUs', () => {
    const lines = linesOf(text);
    const heading = lines.indexOf('Findings (5)');
    expect(heading).toBeGreaterThan(0);
    const rows = lines.slice(heading + 3).filter((line) => /^(error|warning|info) /u.test(line)).map((line) => tokens(line).slice(0, 3));
    expect(rows).toEqual([
      ['error', 'allocated-unused', '#0'],
      ['warning', 'idle-gpu', '#0'],
      ['warning', 'cpu-bound-pipeline', 'trainer'],
      ['info', 'low-compute', '#1'],
      ['info', 'vram-overprovisioned', 'chat-api'],
    ]);
  });

  it('shows the top five recommendations by savings and the fleet total from the summary', () => {
    expect(text).toContain('Recommendations (top 5 of 6 by monthly savings)');
    const ranked = linesOf(text).filter((line) => /^[1-9] /u.test(line)).map((line) => tokens(line).slice(0, 2));
    expect(ranked).toEqual([['1', 'time-slicing'], ['2', 'rightsize'], ['3', 'autoscale'], ['4', 'mps'], ['5', 'purchase']]);
    expect(lineWith(text, '1 time-slicing')).toMatch(/\$600 medium {5}chat-api alone on GPU 0/u);
    expect(text).not.toContain('replicas ');
    // 1020, not 600 + 420 + 250 + 120 + 60 + 15 = 1465: the renderer adds nothing up.
    expect(lineWith(text, 'potential savings')).toBe('potential savings $1,020/month (fleet summary); 1 more in --format markdown');
  });

  it('lists at most four targets of a recommendation and counts the rest', () => {
    // A purchase plan over a pool of 72 GPUs: 3 named, then "+69 more" (72 - 3).
    const pool = copyOf(FINDINGS_AND_RECOMMENDATIONS);
    const purchase = pool.recommendations.find((recommendation) => recommendation.kind === 'purchase')!;
    purchase.targets = Array.from({ length: 72 }, (_, index) => `pool-gpu-${String(index).padStart(2, '0')}`);
    const lines = linesOf(renderTable(pool, PLAIN));
    const first = lines.findIndex((line) => line.includes('pool-gpu-00'));
    expect(lines.slice(first, first + 4).map((line) => tokens(line).find((token) => token.startsWith('pool-gpu-') || token === '+69'))).toEqual([
      'pool-gpu-00', 'pool-gpu-01', 'pool-gpu-02', '+69',
    ]);
    expect(lines[first + 3]).toContain('+69 more');
    expect(lines.some((line) => line.includes('pool-gpu-03'))).toBe(false);
  });

  it('colours severities only when asked', () => {
    const coloured = renderTable(FINDINGS_AND_RECOMMENDATIONS, { color: true, width: 100 });
    expect(coloured).toContain('\u001b[31m\u001b[1merror');
    expect(text).toMatch(/^error {4}allocated-unused/mu);
  });
});

describe('renderTable: long lists', () => {
  const report = copyOf(SMALL_FLEET);
  report.sources = Array.from({ length: 6 }, (_, index) => ({
    ref: `host-${index}.xml`,
    format: 'nvidia-smi-xml',
    records: 10,
    warnings: index < 2 ? ['a', 'b', 'c', 'd'].map((letter) => `warning ${letter}`) : [],
  }));
  report.findings = Array.from({ length: 20 }, (_, index) => ({
    id: `idle-gpu:${index}`,
    code: 'idle-gpu',
    severity: index === 19 ? 'error' : 'info',
    target: `workload-${index}`,
    message: 'idle',
    evidence: {},
  }));
  const text = renderTable(report, PLAIN);

  it('lists four sources and five warnings, then says how many more', () => {
    expect(lineStartingWith(text, '         and 2')).toBe('         and 2 more sources');
    // 2 sources x 4 warnings = 8; five shown
    expect(linesOf(text).filter((line) => line.startsWith('         ! host-'))).toHaveLength(5);
    expect(lineWith(text, '! and 3 more warnings')).toBe('         ! and 3 more warnings (see --format markdown)');
  });

  it('shows fifteen findings, the error among them, then says how many more', () => {
    expect(text).toContain('Findings (20)');
    expect(tokens(linesOf(text)[linesOf(text).indexOf('Findings (20)') + 3]!).slice(0, 3)).toEqual(['error', 'idle-gpu', 'workload-19']);
    expect(linesOf(text).filter((line) => / workload-\d+ /u.test(line))).toHaveLength(15);
    expect(lineWith(text, 'more findings')).toBe('and 5 more findings (see --format markdown or json)');
  });
});


describe('renderTable: the plan', () => {
  const text = renderTable(PLANNED_FLEET, PLAIN);

  it('shows the plan after the fleet headline and before the findings: both fleets, the steps and every placement', () => {
    expect(text.indexOf('\nPlan (observed demand)')).toBeGreaterThan(text.indexOf('\nFleet\n'));
    expect(text.indexOf('\nPlan (observed demand)')).toBeLessThan(text.indexOf('\nFindings ('));
    // $4.6016/h x 730 = $3,359.17 on both sides: nothing saved.
    expect(text).toContain('Plan (observed demand): now $3,359/month, 1 instance with 4 GPUs; target $3,359/month, 1 instance');
    expect(tokens(lineStartingWith(text, 'current ')).slice(0, 8)).toEqual(['current', 'g6.12xlarge', '1', '4', 'on-demand', 'label', '$3,359', HOST]);
    expect(tokens(lineStartingWith(text, 'target ')).slice(0, 8)).toEqual(['target', 'g6.12xlarge', '1', '4', 'on-demand', 'kept', '$3,359', HOST]);
    expect(lineStartingWith(text, '1 raise-cpu')).toMatch(/^1 raise-cpu +\$0 medium +7\.2 cores feeding the GPU at 45% busy → raise the CPU/);
    expect(text).toMatch(/^trainer +feed +gke-prod/mu);
    expect(text).toMatch(/^chat-api +keep +gke-prod/mu);
    expect(text).toContain('1 alternative considered and not chosen, outside the total');
  });

  it('leaves the recommendations to the plan: no section of its own', () => {
    expect(text).not.toMatch(/^Recommendations/mu);
  });
});

/**
 * The golden outputs: what the built CLI prints for the demo and a few corpus inputs, in every
 * format, with the clock pinned (SOURCE_DATE_EPOCH), the zone UTC, no colour and no refreshed
 * catalog. `test/golden/<case>/<file>` holds each; golden.test.ts compares byte for byte and
 * `npm run golden:update` (./update.ts) writes them anew, for a diff reviewed like code.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/corpus.js';

export interface GoldenOutput {
  /** File under test/golden/<case>/. */
  file: string;
  args: string[];
  /** The exit code the command ends with. */
  status: number;
}

export interface GoldenCase {
  name: string;
  outputs: GoldenOutput[];
}

/** 2026-12-01T00:00:00Z: after every input's last sample. */
export const GOLDEN_EPOCH = '1796083200';

const REPORT_FORMATS = [['table', 'txt'], ['json', 'json'], ['markdown', 'md'], ['html', 'html'], ['csv', 'csv']] as const;
const CHECK_FORMATS = [['table', 'txt'], ['json', 'json'], ['markdown', 'md'], ['junit', 'junit.xml'], ['sarif', 'sarif'], ['github-comment', 'comment.md']] as const;
/** What an audit writes beyond the report's own formats: its findings for CI, under no limits. */
const AUDIT_CI_FORMATS = [['junit', 'junit.xml'], ['sarif', 'sarif'], ['github-comment', 'comment.md']] as const;

function auditEveryFormat(sources: string[]): GoldenOutput[] {
  return REPORT_FORMATS.map(([format, extension]) => ({ file: `audit.${extension}`, args: ['audit', ...sources, '--timezone', 'UTC', '--format', format], status: 0 }));
}

const corpus = (...parts: string[]): string => path.join('..', 'shared', 'corpus', ...parts);

export const GOLDEN_CASES: readonly GoldenCase[] = [
  {
    name: 'demo',
    outputs: [
      ...[...REPORT_FORMATS, ...AUDIT_CI_FORMATS].map(([format, extension]) => ({ file: `audit.${extension}`, args: ['audit', '--demo', '--format', format], status: 0 })),
      ...CHECK_FORMATS.map(([format, extension]) => ({ file: `check.${extension}`, args: ['check', '--demo', '--max-waste-pct', '10', '--format', format], status: 1 })),
    ],
  },
  { name: 'nvidia-smi-xml-dual-a5000', outputs: auditEveryFormat([corpus('nvidia-smi-xml', 'telegraf-dual_a5000-v13.xml')]) },
  { name: 'nvidia-smi-csv-rtx-2080-load', outputs: auditEveryFormat([corpus('nvidia-smi-csv', 'nvgpuexp-linux-geforce-rtx-2080-super-595.71.05-query-gpu-load.csv')]) },
  { name: 'dcgm-exporter-l40s', outputs: auditEveryFormat([corpus('dcgm-exporter', 'cncf-aiconf-upcloud-l40s-metrics.prom')]) },
  { name: 'kubernetes', outputs: auditEveryFormat(['test/fixtures/kubernetes/scrapes.prom', '--k8s', 'test/fixtures/kubernetes/cluster.json']) },
  {
    name: 'catalog',
    outputs: [
      { file: 'list.txt', args: ['catalog', 'list', '--provider', 'aws', '--gpu', 'H100'], status: 0 },
      { file: 'list.json', args: ['catalog', 'list', '--provider', 'aws', '--gpu', 'H100', '--format', 'json'], status: 0 },
      { file: 'list.csv', args: ['catalog', 'list', '--provider', 'aws', '--gpu', 'H100', '--format', 'csv'], status: 0 },
      { file: 'show.txt', args: ['catalog', 'show', 'p5.48xlarge'], status: 0 },
      { file: 'show.json', args: ['catalog', 'show', 'p5.48xlarge', '--format', 'json'], status: 0 },
    ],
  },
  {
    name: 'size',
    outputs: [
      { file: 'size.txt', args: ['size', '--peak', '1000', '--per-gpu', '200', '--gpu', 'h100', '--cold-start', '90s', '--ramp', '200/min'], status: 0 },
      { file: 'size.json', args: ['size', '--peak', '1000', '--per-gpu', '200', '--gpu', 'h100', '--format', 'json'], status: 0 },
    ],
  },
];

const emptyCache = mkdtempSync(path.join(tmpdir(), 'gpu-audit-golden-cache-'));

/** Runs one output's command as golden files are made: pinned clock, UTC, no colour, the bundled catalog. */
export function runGolden(output: GoldenOutput): { status: number; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', NO_COLOR: '1', CI: '1', SOURCE_DATE_EPOCH: GOLDEN_EPOCH, GPU_AUDIT_CACHE_DIR: emptyCache };
  const result = spawnSync(process.execPath, [path.join(repoRoot, 'bin/gpu-audit.js'), ...output.args], { cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function goldenPath(goldenCase: GoldenCase, output: GoldenOutput): string {
  return path.join(repoRoot, 'test/golden', goldenCase.name, output.file);
}

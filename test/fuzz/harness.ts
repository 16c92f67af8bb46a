/**
 * What the fuzz suite requires of every reader, whatever the bytes: it ends within a time
 * bound with either a report (a valid one: the saved-report reader accepts its JSON and every
 * renderer renders it) or an InputError that names the file. Anything else - another error
 * class, an InputError without the file, a hang, an invalid report - is a bug.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAudit } from '../../src/engine/run-audit.js';
import { bundledCatalog } from '../../src/catalog/index.js';
import { parseReportJson } from '../../src/model/report-reader.js';
import { readReportStreamed } from '../../src/model/report-reader-streamed.js';
import { parseConfig } from '../../src/config/document/index.js';
import { InputError } from '../../src/support/errors.js';
import type { Report } from '../../src/model/report.js';
import { renderers, reportFormats } from '../../src/render/index.js';
import { demoFleetFiles } from '../../src/cli/paths.js';
import { corpusFiles, repoRoot } from '../helpers/corpus.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

/** Fixed, so `npm test` is reproducible; FUZZ_SEED explores elsewhere (`npm run fuzz`). */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_261_129);
/** Runs per reader in `npm test`; `npm run fuzz` sets FUZZ_RUNS for long runs. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 100);
/** Wall-clock bound of one reader run on one mutated file (the seeds are at most tens of KiB). */
export const RUN_TIME_BOUND_MS = 5_000;
/** Heap growth allowed over a whole property (hundreds of runs): a leak or a blow-up shows far above it. */
export const HEAP_GROWTH_BOUND_BYTES = 512 * 1024 * 1024;

const catalog = bundledCatalog();
const K8S_SCRAPES = path.join(repoRoot, 'test/fixtures/kubernetes/scrapes.prom');

function auditFile(file: string): Promise<unknown> {
  return runAudit({ inputs: [file], ...AUDIT_DEFAULTS, catalog, now: () => new Date('2026-01-01T00:00:00Z') });
}

/** A reader of one family of files and the seeds its mutations start from. */
export interface FuzzTarget {
  name: string;
  seeds: () => string[] | Promise<string[]>;
  read: (file: string) => Promise<unknown>;
}

/** Smallest files first: mutations of small files explore the same code faster. */
function smallest(folder: string, test: (name: string) => boolean, count: number): () => string[] {
  return () => corpusFiles(folder, test).sort((a, b) => readFileSync(a).length - readFileSync(b).length).slice(0, count);
}

export const FUZZ_TARGETS: readonly FuzzTarget[] = [
  { name: 'nvidia-smi-xml', seeds: smallest('nvidia-smi-xml', (name) => name.endsWith('.xml'), 4), read: auditFile },
  { name: 'nvidia-smi-csv', seeds: smallest('nvidia-smi-csv', (name) => name.endsWith('.csv'), 6), read: auditFile },
  { name: 'nvidia-smi-dmon', seeds: smallest('nvidia-smi-dmon', (name) => name.includes('-dmon-'), 4), read: auditFile },
  { name: 'nvidia-smi-pmon', seeds: smallest('nvidia-smi-dmon', (name) => name.includes('-pmon-'), 4), read: auditFile },
  { name: 'dcgmi-dmon', seeds: smallest('dcgmi', (name) => name.includes('dmon'), 3), read: auditFile },
  { name: 'prometheus-text', seeds: smallest('dcgm-exporter', (name) => name.endsWith('.prom'), 4), read: auditFile },
  { name: 'prometheus-json', seeds: smallest('prometheus-api', (name) => name.endsWith('.json'), 3), read: auditFile },
  {
    name: 'kubernetes-json',
    seeds: () => [path.join(repoRoot, 'test/fixtures/kubernetes/cluster.json')],
    read: (file) => runAudit({ inputs: [K8S_SCRAPES], kubernetesFiles: [file], ...AUDIT_DEFAULTS, catalog }),
  },
  {
    name: 'config-yaml',
    seeds: () => [path.join(repoRoot, 'fixtures/demo/gpu-audit.yaml')],
    // The reader as loadConfigFile calls it, on the bytes decoded the same way.
    read: async (file) => parseConfig(await readFile(file, 'utf8'), file),
  },
  // As `gpu-audit report` reads it: an entry at a time, or whole where the start does not say where gpus is.
  { name: 'report-json', seeds: async () => [await savedReportSeed()], read: readReportStreamed },
];

let reportSeed: Promise<string> | undefined;

/** A saved report to mutate: the demo notebook host's audit, as `audit --format json` writes it. */
function savedReportSeed(): Promise<string> {
  reportSeed ??= (async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gpu-audit-fuzz-seed-')), 'report.json');
    const { report } = await runAudit({ inputs: [demoFleetFiles[3]!], ...AUDIT_DEFAULTS, catalog });
    writeFileSync(file, renderers.json(report, { color: false, width: 100 }));
    return file;
  })();
  return reportSeed;
}

/** A report that came back must be a valid one: the saved-report reader takes its JSON, every renderer renders it. */
function reportProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined; // parseConfig's result: nothing more to check
  const report = ('report' in value ? value.report : value) as Report;
  if (!('schemaVersion' in report)) return undefined;
  try {
    parseReportJson(JSON.parse(renderers.json(report, { color: false, width: 100 })), 'fuzzed-report.json');
    for (const format of reportFormats) renderers[format](report, { color: false, width: 100 });
  } catch (error) {
    return `the report is not valid or does not render: ${error instanceof InputError ? error.describe() : String(error)}`;
  }
  return undefined;
}

/**
 * Runs one reader on one file and says what is wrong with the outcome, or undefined when it
 * is one of the two allowed ones.
 */
export async function outcomeProblem(read: (file: string) => Promise<unknown>, file: string): Promise<string | undefined> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), RUN_TIME_BOUND_MS);
  });
  try {
    const result = await Promise.race([read(file).then((value) => ({ value })), timeout]);
    const elapsed = performance.now() - started;
    if (result === 'timeout' || elapsed > RUN_TIME_BOUND_MS) return `no answer within ${RUN_TIME_BOUND_MS} ms`;
    return reportProblem(result.value);
  } catch (error) {
    if (!(error instanceof InputError)) return `uncaught ${error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error)}`;
    if (error.file !== file && !error.describe().includes(file)) return `InputError that does not name the file: ${error.describe()}`;
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

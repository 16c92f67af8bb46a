/**
 * `npm run bench`: generates the large inputs (once; kept in bench/.data), runs gpu-audit,
 * the I/O floor and the peers on each, alternately and several times, prints the table,
 * and writes bench/results.json and bench/RESULTS.md. Not part of `npm test`.
 *
 *   npm run bench                        the issue's full sizes (about 2.6 GB of inputs)
 *   npm run bench -- --scale 0.1         a tenth of every size, for a quick check
 *   npm run bench -- --runs 3 --only xml-log,csv-log
 *   npm run bench -- --only planning       the planner on a 10,000-GPU fleet alone
 *
 * Needs the Debian packages of scripts/install-system-deps.sh (promtool,
 * python3-prometheus-client) and GNU time (/usr/bin/time), and a built CLI (`npm run build`,
 * which `npm install` runs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '../src/support/atomic-write.js';
import { contendersFor, gpuAudit, PROMTOOL, PYTHON, repoRoot, type Contender } from './contenders.js';
import { benchInputs, ensureInput, type GeneratedInput } from './generate/inputs.js';
import { writeNvidiaSmiXmlLog } from './generate/nvidia-smi-xml-log.js';
import { generateOnce } from './generate/writer.js';
import { describeMachine } from './machine.js';
import { CommandFailed, GNU_TIME, measure, type Command, type Measurement } from './measure.js';
import { renderMarkdown } from './render.js';
import { bundledCatalog } from '../src/catalog/index.js';
import { DEFAULT_RECOMMEND_SETTINGS, planFleet } from '../src/recommend/index.js';
import { planningFleet } from './generate/plan-fleet.js';
import type { BenchResults, ContenderResult, InputResult, PlanningResult, StartupResult } from './results.js';
import { megabytesPerSecond, spread } from './stats.js';
import { judge, TARGETS, type InputFigures } from './targets.js';

/** Inputs from this size on (all four at full scale) get 3 runs, not 5, so that a full run fits in half an hour. */
const LARGE_INPUT_BYTES = 50e6;
const RUNS_LARGE = 3;
const RUNS_DEFAULT = 5;
const STARTUP_RUNS = 10;
/** The planning row: the issue's fleet size. */
const PLANNING_GPUS = 10_000;
const PLANNING_WORKLOADS = 2_000;
const PLANNING_RUNS = 3;

interface Settings {
  scale: number;
  runs: number | undefined;
  only: Set<string> | undefined;
  dataFolder: string;
  write: boolean;
}

function readSettings(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string', default: process.env.BENCH_SCALE ?? '1' },
      runs: { type: 'string' },
      only: { type: 'string' },
      data: { type: 'string', default: path.join(repoRoot, 'bench/.data') },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const scale = Number(values.scale);
  if (!(scale > 0 && scale <= 1)) throw new Error(`--scale must be in (0, 1], got ${values.scale}`);
  const runs = values.runs === undefined ? undefined : Number(values.runs);
  if (runs !== undefined && !(Number.isInteger(runs) && runs >= 1)) throw new Error(`--runs must be a whole number >= 1, got ${values.runs}`);
  return {
    scale,
    runs,
    only: values.only === undefined ? undefined : new Set(values.only.split(',')),
    dataFolder: path.resolve(values.data),
    write: !values['no-write'],
  };
}

/** What is missing to run the benchmark, each with how to get it. */
function missingTools(): string[] {
  const missing: string[] = [];
  const works = (command: string, args: string[]): boolean => {
    try {
      execFileSync(command, args, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (!existsSync(path.join(repoRoot, 'dist/bundle/gpu-audit.cjs'))) missing.push('the built CLI: run `npm run build`');
  if (!existsSync(GNU_TIME)) missing.push(`GNU time at ${GNU_TIME} (peak RSS): \`apt-get install time\``);
  if (!works(PYTHON, ['-c', 'import prometheus_client.parser'])) missing.push(`${PYTHON} with prometheus_client: Debian package python3-prometheus-client (scripts/install-system-deps.sh)`);
  if (!works(PROMTOOL, ['--version'])) missing.push('promtool: Debian package prometheus (scripts/install-system-deps.sh)');
  return missing;
}

function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** Pause before measuring a failed command again: other work on the machine (a rebuild of dist/) may have broken it for a moment. */
const RETRY_PAUSE_MS = 5000;

/** Measures a command; a failure is retried once, then recorded, and the benchmark goes on. */
async function measureOrRecord(command: Command, failures: string[]): Promise<Measurement | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await measure(command);
    } catch (error) {
      if (!(error instanceof CommandFailed)) throw error;
      if (attempt === 2) {
        failures.push(error.message);
        progress(`  failed twice: ${error.message}`);
        return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  }
}

async function runInput(generated: GeneratedInput, runs: number): Promise<InputResult> {
  const { input, file, marker } = generated;
  const contenders = contendersFor(input);
  // Every command meets the file in the page cache, as the first one would not.
  await measure({ argv: ['cat', file] });
  const measurements = new Map<string, Measurement[]>(contenders.map((contender) => [contender.id, []]));
  const failures = new Map<string, string[]>(contenders.map((contender) => [contender.id, []]));
  for (let run = 1; run <= runs; run += 1) {
    for (const contender of contenders) {
      const result = await measureOrRecord(contender.command(file), failures.get(contender.id)!);
      if (result === undefined) continue;
      measurements.get(contender.id)!.push(result);
      progress(`[${input.id}] run ${run}/${runs} ${contender.id}: ${result.wallSeconds.toFixed(2)} s, ${(result.peakRssKiB / 1024).toFixed(0)} MiB`);
    }
  }
  const summarize = (contender: Contender): Omit<ContenderResult, 'gpuAuditRatio'> => {
    const runsOf = measurements.get(contender.id)!;
    const failed = failures.get(contender.id)!;
    const base = { id: contender.id, label: contender.label, role: contender.role, failedRuns: failed.length, lastFailure: failed.at(-1) ?? null };
    if (runsOf.length === 0) return { ...base, mbPerSecond: null, wallSeconds: null, peakRssMiB: null };
    return {
      ...base,
      mbPerSecond: spread(runsOf.map((entry) => megabytesPerSecond(marker.bytes, entry.wallSeconds))),
      wallSeconds: spread(runsOf.map((entry) => entry.wallSeconds)),
      peakRssMiB: Math.max(...runsOf.map((entry) => entry.peakRssKiB)) / 1024,
    };
  };
  const summaries = contenders.map(summarize);
  const ours = summaries.find((entry) => entry.id === gpuAudit.id)?.mbPerSecond?.median;
  return {
    id: input.id,
    title: input.title,
    fileName: input.fileName,
    bytes: marker.bytes,
    sha256: marker.sha256,
    repetitions: runs,
    contenders: summaries.map((entry) => ({
      ...entry,
      gpuAuditRatio: entry.id === gpuAudit.id || ours === undefined || entry.mbPerSecond === null ? null : ours / entry.mbPerSecond.median,
    })),
  };
}

/** `gpu-audit audit` of one small document against `node -e 0`: what starting the CLI costs. */
async function runStartup(dataFolder: string): Promise<StartupResult | undefined> {
  const file = path.join(dataFolder, 'one-document.xml');
  const { marker } = generateOnce(file, { generator: 'nvidia-smi-xml-log', version: 1, documents: 1 }, (out) => writeNvidiaSmiXmlLog(out, 1));
  const audit = gpuAudit.command(file);
  const empty = { argv: [process.execPath, '-e', '0'] };
  const auditSeconds: number[] = [];
  const nodeSeconds: number[] = [];
  const failures: string[] = [];
  for (let run = 0; run < STARTUP_RUNS; run += 1) {
    const measured = await measureOrRecord(audit, failures);
    if (measured !== undefined) auditSeconds.push(measured.wallSeconds);
    nodeSeconds.push((await measure(empty)).wallSeconds);
  }
  if (auditSeconds.length === 0) {
    progress(`[startup] every audit failed: ${failures.at(-1) ?? ''}`);
    return undefined;
  }
  const gpuAuditSeconds = spread(auditSeconds);
  const node = spread(nodeSeconds);
  progress(`[startup] audit ${(gpuAuditSeconds.median * 1000).toFixed(0)} ms, node -e 0 ${(node.median * 1000).toFixed(0)} ms`);
  return { fileBytes: marker.bytes, repetitions: STARTUP_RUNS, gpuAuditSeconds, nodeSeconds: node, ratio: gpuAuditSeconds.median / node.median };
}

/** planFleet over the synthetic fleet of ./generate/plan-fleet.ts, in this process. */
function runPlanning(scale: number): PlanningResult {
  const gpus = Math.max(8, Math.round((PLANNING_GPUS * scale) / 8) * 8);
  const workloads = Math.max(4, Math.round(PLANNING_WORKLOADS * scale));
  const input = planningFleet(gpus, workloads);
  const options = { ...DEFAULT_RECOMMEND_SETTINGS, catalog: bundledCatalog(), pricing: 'on-demand' as const, basis: 'observed' as const };
  const seconds: number[] = [];
  let outcome: ReturnType<typeof planFleet> | undefined;
  for (let run = 0; run < PLANNING_RUNS; run += 1) {
    const started = performance.now();
    outcome = planFleet(input, options);
    seconds.push((performance.now() - started) / 1000);
  }
  const result = { gpus, workloads, placements: outcome!.plan.placements.length, steps: outcome!.plan.steps.length, repetitions: PLANNING_RUNS, seconds: spread(seconds) };
  progress(`[planning] ${gpus} GPUs, ${workloads} workloads: ${result.seconds.median.toFixed(2)} s`);
  return result;
}

async function main(): Promise<number> {
  const settings = readSettings(process.argv.slice(2));
  const missing = missingTools();
  if (missing.length > 0) {
    process.stderr.write(`npm run bench needs:\n${missing.map((line) => `  - ${line}`).join('\n')}\n`);
    return 2;
  }
  const started = Date.now();
  const machine = describeMachine();
  const inputs = benchInputs(settings.scale).filter((input) => settings.only?.has(input.id) ?? true);
  const results: InputResult[] = [];
  for (const input of inputs) {
    const generateStarted = Date.now();
    const generated = ensureInput(input, settings.dataFolder);
    progress(`[${input.id}] ${generated.reused ? 'reusing' : 'generated'} ${generated.file} (${(generated.marker.bytes / 1e6).toFixed(1)} MB${generated.reused ? '' : `, ${((Date.now() - generateStarted) / 1000).toFixed(1)} s`})`);
    const runs = settings.runs ?? (generated.marker.bytes >= LARGE_INPUT_BYTES ? RUNS_LARGE : RUNS_DEFAULT);
    results.push(await runInput(generated, runs));
  }
  const startup = (settings.only === undefined || settings.only.has('startup') ? await runStartup(settings.dataFolder) : undefined) ?? null;
  const planning = settings.only === undefined || settings.only.has('planning') ? runPlanning(settings.scale) : null;

  const figures: InputFigures[] = results.map((input) => ({
    inputId: input.id,
    title: input.title,
    medianMBps: new Map(input.contenders.flatMap((contender) => (contender.mbPerSecond === null ? [] : [[contender.id, contender.mbPerSecond.median] as const]))),
    gpuAuditPeakRssMiB: input.contenders.find((contender) => contender.id === gpuAudit.id)?.peakRssMiB ?? null,
  }));
  const report: BenchResults = {
    generatedAt: new Date().toISOString(),
    scale: settings.scale,
    commandLine: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
    durationSeconds: (Date.now() - started) / 1000,
    machine,
    inputs: results,
    startup,
    planning,
    verdicts: judge(TARGETS, figures, startup?.ratio, planning === null ? undefined : { gpus: planning.gpus, workloads: planning.workloads, seconds: planning.seconds.median }),
  };
  const markdown = renderMarkdown(report);
  process.stdout.write(`${markdown}\n`);
  if (settings.write) {
    await writeFileAtomic(path.join(repoRoot, 'bench/results.json'), `${JSON.stringify(report, null, 2)}\n`);
    await writeFileAtomic(path.join(repoRoot, 'bench/RESULTS.md'), markdown);
    progress('wrote bench/results.json and bench/RESULTS.md');
  }
  return 0;
}

process.exitCode = await main();

/**
 * Reads a saved JSON report back (`gpu-audit report`, `check --baseline`). The file may be
 * old, hand-edited or not a report at all: its shape is checked against the contract
 * (schemaVersion 1) before anything reads it, and a bad file is an InputError naming the
 * file and the JSON path of the first problem. Keys this version does not know are kept
 * (a newer gpu-audit may have added them); keys added to the contract since the file was
 * written default to null.
 *
 * The output of `check --format json` (`{ report, check }`) is accepted too: its `report`
 * is the audit's report unchanged, so a CI job can keep one file as its next baseline.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InputError } from '../model/errors.js';
import type { GpuEntry, Report } from '../model/report.js';
import { REPORT_SCHEMA_VERSION } from '../model/report.js';

const finiteNumber = z.number().refine(Number.isFinite, 'expected a finite number');
const nullableNumber = finiteNumber.nullable();
const nullableString = z.string().nullable();
const evidence = z.record(z.string(), z.union([z.string(), finiteNumber, z.boolean(), z.null()]));
const computeBasis = z.enum(['sm-active', 'gr-engine-active', 'utilization', 'processes', 'unknown']);

const percentStats = z.looseObject({ mean: finiteNumber, p50: finiteNumber, p95: finiteNumber, max: finiteNumber });
const memoryStats = z.looseObject({ mean: finiteNumber, p95: finiteNumber, max: finiteNumber });

const gpuTimeline = z.looseObject({
  start: z.string(),
  bucketSeconds: finiteNumber,
  computeMeanPct: z.array(nullableNumber),
  memoryUsedMaxMiB: z.array(nullableNumber),
});

const gpuEntry = z.looseObject({
  id: z.string(),
  host: z.string(),
  index: z.number().int().nullable(),
  uuid: nullableString,
  pciBusId: nullableString,
  model: nullableString,
  modelKey: z.string(),
  memoryTotalMiB: nullableNumber,
  migMode: z.enum(['enabled', 'disabled']).nullable(),
  parentId: nullableString,
  migProfile: nullableString,
  instanceType: nullableString,
  instanceTypeBasis: z.enum(['label', 'config', 'flag', 'inferred']).nullable(),
  utilization: percentStats.nullable(),
  smActive: percentStats.nullable(),
  tensorActive: percentStats.nullable(),
  grEngineActive: percentStats.nullable(),
  computeBasis,
  memoryUsedMiB: memoryStats.nullable(),
  vramHeadroomMiB: nullableNumber,
  vramHeadroomPct: nullableNumber,
  idleFraction: nullableNumber,
  idleHours: finiteNumber,
  gpuHours: finiteNumber,
  samples: z.number().int(),
  firstSeen: nullableString,
  lastSeen: nullableString,
  processes: z.array(
    z.looseObject({
      pid: z.number().int(),
      name: z.string(),
      type: nullableString,
      maxMemoryMiB: nullableNumber,
      samples: z.number().int(),
    }),
  ),
  hourlyCostUsd: nullableNumber,
  // Added to the contract after schemaVersion 1 was first written: absent in older files.
  timeline: gpuTimeline.nullable().default(null),
  hourOfWeekComputePct: z.array(nullableNumber).nullable().default(null),
});

const workloadEntry = z.looseObject({
  name: z.string(),
  kind: z.string(),
  gpus: z.array(z.string()),
  vram: z.looseObject({
    peakMiB: nullableNumber,
    p95MiB: nullableNumber,
    requiredMiB: nullableNumber,
    basis: z.enum(['measured', 'declared', 'estimated', 'upper-bound', 'unknown']),
  }),
  compute: z.looseObject({ basis: computeBasis, mean: nullableNumber, p95: nullableNumber, busyFraction: nullableNumber }),
  cpuPipeline: z.looseObject({ verdict: z.enum(['gpu-bound', 'input-bound', 'idle', 'unknown']), evidence: z.array(z.string()) }),
  sidecars: z.looseObject({ cpuCores: nullableNumber, memoryMiB: nullableNumber, overheadPct: nullableNumber }),
  cost: z.looseObject({ hourlyUsd: nullableNumber, wasteHourlyUsd: nullableNumber }),
});

const finding = z.looseObject({
  id: z.string(),
  code: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  target: z.string(),
  message: z.string(),
  evidence,
});

const recommendation = z.looseObject({
  id: z.string(),
  kind: z.enum(['rightsize', 'mig', 'time-slicing', 'mps', 'purchase', 'replicas', 'autoscale']),
  targets: z.array(z.string()),
  current: z.string(),
  proposed: z.string(),
  monthlySavingsUsd: finiteNumber,
  confidence: z.enum(['high', 'medium', 'low']),
  confidenceReasons: z.array(z.string()),
  risks: z.array(z.string()),
  rationale: z.string(),
  evidence,
  config: z.looseObject({ format: z.string(), text: z.string() }).optional(),
});

const reportSchema = z.looseObject({
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  generatedAt: z.string(),
  tool: z.looseObject({ name: z.string(), version: z.string() }),
  window: z.looseObject({ start: nullableString, end: nullableString, seconds: finiteNumber, timezone: z.string() }),
  settings: z.looseObject({ idleThresholdPct: finiteNumber, pricing: z.string(), provider: nullableString, region: nullableString }),
  sources: z.array(z.looseObject({ ref: z.string(), format: z.string(), records: z.number().int(), warnings: z.array(z.string()) })),
  catalog: z.looseObject({ name: z.string(), asOf: z.string(), source: z.enum(['bundled', 'cache']), ageDays: nullableNumber }),
  gpus: z.array(gpuEntry),
  workloads: z.array(workloadEntry),
  findings: z.array(finding),
  recommendations: z.array(recommendation),
  summary: z.looseObject({
    gpuCount: z.number().int(),
    migDeviceCount: z.number().int(),
    hostCount: z.number().int(),
    gpuHours: finiteNumber,
    idleGpuHours: finiteNumber,
    meanUtilization: nullableNumber,
    // Added to schemaVersion 1 later: a report written before them reads as "no compute figure".
    meanComputePct: nullableNumber.default(null),
    computeBasis: z.enum(['sm-active', 'gr-engine-active', 'utilization', 'processes', 'mixed', 'unknown']).default('unknown'),
    wastePct: nullableNumber,
    monthlyCostUsd: nullableNumber,
    monthlyWasteUsd: nullableNumber,
    potentialMonthlySavingsUsd: finiteNumber,
  }),
});

// The schema must produce a Report: if the contract gains a field, this line stops compiling.
type ParsedReport = z.infer<typeof reportSchema>;
const assertReport = (parsed: ParsedReport): Report => parsed;

/** `$.gpus[3].idleFraction`, the way jq and JSONPath name a place in a document. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    const name = String(key);
    return /^[A-Za-z_$][\w$]*$/u.test(name) ? `${text}.${name}` : `${text}[${JSON.stringify(name)}]`;
  }, '$');
}

function isCheckOutput(value: unknown): value is { report: unknown; check: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'report' in value && 'check' in value && !('schemaVersion' in value);
}

/** The GPU entries of a report read one at a time (read-streamed.ts), and the first that was not one. */
export interface GpusReadApart {
  gpus: GpuEntry[];
  error: InputError | undefined;
}

/** Where the JSON path of a report ends up in a file: under `report` in the output of `check --format json`. */
export function reportPrefix(checkOutput: boolean): PropertyKey[] {
  return checkOutput ? ['report'] : [];
}

/**
 * Validates parsed JSON as a report; `file` names it in errors. `apart`: its `gpus` were read
 * one at a time and hold placeholders; those entries take their place, and the first bad one
 * is reported where a whole-document check would have reported it (zod checks the keys in
 * order, so a problem in a key before `gpus` comes first).
 */
export function parseReportJson(value: unknown, file: string, apart?: GpusReadApart): Report {
  const checkOutput = isCheckOutput(value);
  const document = checkOutput ? value.report : value;
  const prefix = reportPrefix(checkOutput);
  if (typeof document === 'object' && document !== null && 'schemaVersion' in document && document.schemaVersion !== REPORT_SCHEMA_VERSION) {
    throw new InputError(`unsupported report schemaVersion ${JSON.stringify(document.schemaVersion)}: this gpu-audit reads schemaVersion ${REPORT_SCHEMA_VERSION}`, {
      file,
      location: jsonPath([...prefix, 'schemaVersion']),
    });
  }
  if (apart !== undefined && typeof document === 'object' && document !== null && Array.isArray((document as { gpus?: unknown }).gpus)) (document as { gpus: unknown[] }).gpus = [];
  const parsed = reportSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const beforeGpus = REPORT_KEYS.indexOf(String(issue.path[0])) < REPORT_KEYS.indexOf('gpus');
    if (apart?.error !== undefined && !beforeGpus) throw apart.error;
    throw new InputError(`not a gpu-audit JSON report: ${issue.message}`, { file, location: jsonPath([...prefix, ...issue.path]) });
  }
  if (apart?.error !== undefined) throw apart.error;
  const report = assertReport(parsed.data);
  return apart === undefined ? report : { ...report, gpus: apart.gpus };
}

/** The report's keys in the order zod checks them. */
const REPORT_KEYS = Object.keys(reportSchema.shape);

/** Validates one element of a report's `gpus`; `index` and `checkOutput` place it in errors. */
export function parseGpuEntryJson(value: unknown, file: string, index: number, checkOutput: boolean): GpuEntry {
  const parsed = gpuEntry.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InputError(`not a gpu-audit JSON report: ${issue.message}`, { file, location: jsonPath([...reportPrefix(checkOutput), 'gpus', index, ...issue.path]) });
}

/** The error for a report file that cannot be read. */
export function unreadableReport(error: unknown, file: string): InputError {
  const code = (error as NodeJS.ErrnoException).code;
  return new InputError(code === 'ENOENT' ? 'no such file' : `cannot read the report (${code ?? String(error)})`, { file, cause: error });
}

/** Reads and validates a saved report (`gpu-audit audit --format json` output). */
export async function readReportFile(file: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw unreadableReport(error, file);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/u, ''));
  } catch (error) {
    throw new InputError(`not JSON: ${error instanceof Error ? error.message : String(error)}`, { file, cause: error });
  }
  return parseReportJson(value, file);
}

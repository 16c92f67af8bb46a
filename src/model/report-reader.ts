/**
 * Reads a saved JSON report back (`gpu-audit report`, `check --baseline`). The file may be
 * old, hand-edited or not a report at all: it is checked against the contract itself
 * (./report-schema.ts: shapes, and every figure in its domain) before anything reads it, and a
 * bad file is an InputError naming the file and the JSON path of the first problem. Keys this
 * version does not know are dropped (nothing here could show or compare them); keys added to
 * the contract since the file was written default to null.
 *
 * The output of `check --format json` (`{ report, check }`) is accepted too: its `report`
 * is the audit's report unchanged, so a CI job can keep one file as its next baseline.
 */
import { readFile } from 'node:fs/promises';
import { InputError, jsonSyntaxLocation, pieceSyntaxError } from '../support/index.js';
import type { GpuEntry, Report } from './report.js';
import { READABLE_SCHEMA_VERSIONS, REPORT_SCHEMA_VERSION } from './report-constants.js';
import { GpuEntry as GpuEntrySchema, Report as ReportSchema } from './report-schema.js';

const reportSchema = ReportSchema;
const gpuEntry = GpuEntrySchema;

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
  if (typeof document === 'object' && document !== null && 'schemaVersion' in document && !READABLE_SCHEMA_VERSIONS.includes(document.schemaVersion as number)) {
    throw new InputError(`unsupported report schemaVersion ${JSON.stringify(document.schemaVersion)}: this gpu-audit reads schemaVersion ${READABLE_SCHEMA_VERSIONS.join(' and ')}`, {
      file,
      location: jsonPath([...prefix, 'schemaVersion']),
    });
  }
  if (apart !== undefined && typeof document === 'object' && document !== null && Array.isArray((document as { gpus?: unknown }).gpus)) (document as { gpus: unknown[] }).gpus = [];
  // A report of an older schema is read as this one: what it lacks (the plan) reads as null.
  const parsed = reportSchema.safeParse(upgraded(document));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const beforeGpus = REPORT_KEYS.indexOf(String(issue.path[0])) < REPORT_KEYS.indexOf('gpus');
    if (apart?.error !== undefined && !beforeGpus) throw apart.error;
    throw new InputError(`not a gpu-audit JSON report: ${issue.message}`, { file, location: jsonPath([...prefix, ...issue.path]) });
  }
  if (apart?.error !== undefined) throw apart.error;
  const report = parsed.data;
  return apart === undefined ? report : { ...report, gpus: apart.gpus };
}

function upgraded(document: unknown): unknown {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return document;
  const record = document as Record<string, unknown>;
  return record.schemaVersion === REPORT_SCHEMA_VERSION || !READABLE_SCHEMA_VERSIONS.includes(record.schemaVersion as number) ? document : { ...record, schemaVersion: REPORT_SCHEMA_VERSION };
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
  const json = text.replace(/^\uFEFF/u, '');
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new InputError(`not JSON: ${pieceSyntaxError(error)}`, { file, location: jsonSyntaxLocation(error, json), cause: error });
  }
  return parseReportJson(value, file);
}

/**
 * `--redact`: a report that can be shared outside the company. Every name that says who or
 * where (host and node names, pod, namespace, container and controller names, label values,
 * process names and paths, input file paths and URLs, GPU and MIG UUIDs) is replaced by a
 * stable short hash, wherever it occurs: in its own field and inside ids, messages, evidence,
 * rationales and config texts. Figures, models, instance types and prices are kept.
 *
 * Stable: the same name gives the same token in every report made with the same key, so two
 * redacted reports still compare (`check --baseline`). The hash is keyed (HMAC-SHA-256 with
 * GPU_AUDIT_REDACT_KEY, else a fixed public key): without a private key, a guessable name can
 * be recovered by hashing guesses (SECURITY.md).
 *
 * Process names are replaced whole, executable included (`proc-…`): a custom binary's name
 * can say as much as a path. Workload names come from gpu-audit.yaml, chosen by the user, and
 * are kept unless they equal one of the names above.
 *
 * Pure: Report in, new Report out; redacting a redacted report changes nothing.
 */
import { createHmac } from 'node:crypto';
import type { Report } from '../model/index.js';

/** The key when GPU_AUDIT_REDACT_KEY is not set: public, so it hides names only from a reader who does not guess them. */
export const DEFAULT_REDACT_KEY = 'gpu-audit-redact-v1';

export interface RedactOptions {
  /** HMAC key; DEFAULT_REDACT_KEY when absent or empty. */
  key?: string;
}

/** The key in force for an environment (the CLI passes its io.env). */
export function redactKeyFromEnv(env: NodeJS.ProcessEnv): string {
  const key = env.GPU_AUDIT_REDACT_KEY;
  return key === undefined || key === '' ? DEFAULT_REDACT_KEY : key;
}

type Category = 'host' | 'node' | 'ns' | 'pod' | 'ctr' | 'owner' | 'label' | 'proc' | 'input';

/** A token this module produced: left alone, which makes redaction idempotent. */
const REDACTED_TOKEN = /^(?:host|node|ns|pod|ctr|owner|label|proc|input)-[0-9a-f]{8}(?:\.[a-z0-9.]+)?$/;

/** GPU and MIG UUIDs as the driver prints them, and bare RFC 4122 UUIDs (pod uids, MIG GI/CI ids). */
const UUID = /\b(GPU-|MIG-(?:GPU-)?)?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\b/g;

/**
 * Fields whose values are fixed vocabularies, numbers as text or catalog names: never a
 * secret, and a consumer matches on them, so they are left as they are.
 */
const VOCABULARY_FIELDS = new Set([
  'schemaVersion', 'generatedAt', 'format', 'code', 'severity', 'kind', 'modelKey', 'model', 'computeBasis',
  'migMode', 'migProfile', 'instanceType', 'instanceTypeBasis', 'confidence', 'basis', 'verdict', 'role',
  'gpuMatch', 'phase', 'pricing', 'provider', 'region', 'timezone', 'start', 'end', 'firstSeen', 'lastSeen',
  'pciBusId', 'type', 'migStrategy', 'gpuProduct', 'asOf', 'source', 'workloadKind',
]);

export function redactReport(report: Report, options: RedactOptions = {}): Report {
  return reportRedactor(report, options).report;
}

/**
 * The redacted report and the text redactor made from its names, for messages that travel
 * beside the report (check's skipped-input lines name the input files).
 */
export function reportRedactor(report: Report, options: RedactOptions = {}): { report: Report; text: (text: string) => string } {
  const key = options.key === undefined || options.key === '' ? DEFAULT_REDACT_KEY : options.key;
  const names = collectNames(report);
  const hash = (value: string): string => createHmac('sha256', key).update(value).digest('hex').slice(0, 8);
  const replacements = new Map<string, string>();
  for (const [value, category] of names) replacements.set(value, tokenFor(value, category, hash));
  // Label values are often plain words (`inference`, `vision`): replaced where they stand as a
  // whole value, not inside sentences, which would garble messages that use the same word.
  const inText = new Map([...replacements].filter(([value]) => names.get(value) !== 'label'));
  const redactText = textRedactor(replacements, inText, hash);
  return { report: redactSections(report, redactText), text: redactText };
}

function redactSections(report: Report, redactText: (text: string) => string): Report {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(report)) out[field] = KEPT_SECTIONS.has(field) ? value : redactValue(value, redactText, field);
  return out as unknown as Report;
}

/** Sections with nothing identifying: the tool, the window, the settings, the catalog and the fleet totals. */
const KEPT_SECTIONS = new Set(['schemaVersion', 'generatedAt', 'tool', 'window', 'settings', 'catalog', 'summary']);

/** `host-1a2b3c4d`; an input keeps its file extension (`input-1a2b3c4d.xml.gz`) so its kind stays readable. */
function tokenFor(value: string, category: Category, hash: (value: string) => string): string {
  if (category !== 'input') return `${category}-${hash(value)}`;
  const extension = /(\.[A-Za-z0-9]{1,5}){1,2}$/.exec(value.split(/[\\/]/).pop() ?? '')?.[0] ?? '';
  return `input-${hash(value)}${extension.toLowerCase()}`;
}

/** Every identifying name of the report with its category; the first category met wins (a node named as its host is a host). */
function collectNames(report: Report): Map<string, Category> {
  const names = new Map<string, Category>();
  const add = (value: string | null | undefined, category: Category): void => {
    // A value without a letter (`0`, `1024`, `-`) is a number or a placeholder, not a name;
    // but a host or node is a name whatever its characters (`10.20.30.40`).
    const named = category === 'host' || category === 'node' ? /[A-Za-z0-9]/.test(value ?? '') && (value ?? '').length >= 3 : /[A-Za-z]/.test(value ?? '');
    if (value === null || value === undefined || !named || REDACTED_TOKEN.test(value)) return;
    if (!names.has(value)) names.set(value, category);
  };
  for (const gpu of report.gpus) {
    add(gpu.host, 'host');
    for (const process of gpu.processes) add(process.name, 'proc');
  }
  for (const node of report.kubernetes?.nodes ?? []) {
    add(node.host, 'host');
    add(node.name, 'node');
  }
  for (const pod of report.kubernetes?.pods ?? []) {
    add(pod.node, 'node');
    add(pod.namespace, 'ns');
    add(pod.name, 'pod');
    add(pod.workloadName, 'owner');
    for (const container of pod.containers) add(container.name, 'ctr');
    for (const container of pod.sidecars.containers) add(container, 'ctr');
    for (const value of Object.values(pod.labels)) add(value, 'label');
  }
  for (const source of report.sources) {
    add(source.ref, 'input');
    // Warnings and messages may name the file alone.
    const base = source.ref.split(/[\\/]/).pop();
    if (base !== source.ref) add(base, 'input');
  }
  return names;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * One pass over a string: UUIDs first, then every collected name where it stands as a whole
 * word (not inside a longer name: `node-1` is not replaced in `node-10`). Longest names first,
 * so `a.example.com` wins over `a`.
 */
function textRedactor(replacements: ReadonlyMap<string, string>, inText: ReadonlyMap<string, string>, hash: (value: string) => string): (text: string) => string {
  const ordered = [...inText.keys()].sort((a, b) => b.length - a.length);
  const pattern = ordered.length === 0
    ? undefined
    : new RegExp(`(?<![A-Za-z0-9_\\-])(?:${ordered.map(escapeRegExp).join('|')})(?![A-Za-z0-9_\\-])`, 'g');
  return (text) => {
    const exact = replacements.get(text);
    if (exact !== undefined) return exact;
    if (REDACTED_TOKEN.test(text)) return text;
    const withoutUuids = text.replace(UUID, (whole: string, prefix: string | undefined, uuid: string) =>
      isRedactedUuid(uuid) ? whole : `${prefix ?? ''}${redactedUuid(hash(uuid.toLowerCase()))}`);
    return pattern === undefined ? withoutUuids : withoutUuids.replace(pattern, (name) => inText.get(name) ?? name);
  };
}

/**
 * A redacted UUID keeps the UUID shape (consumers that parse `GPU-<uuid>` still can) and is
 * recognisable: its last group is twelve zeros, which a driver-made UUID does not have.
 */
function redactedUuid(digest: string): string {
  return `${digest}-0000-0000-0000-000000000000`;
}

function isRedactedUuid(uuid: string): boolean {
  return uuid.endsWith('-0000-0000-0000-000000000000');
}

function redactValue(value: unknown, redactText: (text: string) => string, field: string | undefined): unknown {
  if (typeof value === 'string') return field !== undefined && VOCABULARY_FIELDS.has(field) ? value : redactText(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redactText, field));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    // Label keys and evidence keys are vocabulary; their values are not (a label named `type` is still a name).
    out[name] = field === 'labels' ? redactValue(item, redactText, undefined) : redactValue(item, redactText, name);
  }
  return out;
}

/**
 * Reads gpu-audit.yaml: YAML syntax first, then the schema. Every problem is reported with
 * the file, the line, the path of the value (`workloads[2].slo.p95Ms`) and what was expected;
 * the first one is the error's location and all of them are in its message (one per line),
 * so a user fixes the file in one pass. Errors are InputError: the CLI exits 2.
 */
import { readFile } from 'node:fs/promises';
import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { InputError } from '../../support/index.js';
import { closestKey } from '../../support/index.js';
import { knownKeysAt } from './did-you-mean.js';
import { configSchema, type GpuAuditConfig } from './schema.js';

export interface ConfigProblem {
  /** `workloads[2].slo.p95Ms`, or `(top level)`. */
  path: string;
  /** 1-based line of the value (or of the nearest enclosing value that exists); undefined where unknown. */
  line: number | undefined;
  message: string;
}

/** A loaded config and where it came from. */
export interface LoadedConfig {
  file: string;
  config: GpuAuditConfig;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (IDENTIFIER.test(String(segment))) text += text === '' ? String(segment) : `.${String(segment)}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text === '' ? '(top level)' : text;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}

/** 1-based line of the node at `path`, or of its nearest ancestor present in the document. */
function lineOf(document: Document, lines: LineCounter, path: readonly PropertyKey[], keyOfPath = false): number | undefined {
  for (let length = path.length; length >= 0; length -= 1) {
    const prefix = path.slice(0, length);
    if (keyOfPath && length === path.length && length > 0) {
      const parent = prefix.length === 1 ? document.contents : document.getIn(prefix.slice(0, -1), true);
      if (isMap(parent)) {
        const pair = parent.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(prefix.at(-1)));
        if (pair !== undefined && isNode(pair.key) && pair.key.range) return lines.linePos(pair.key.range[0]).line;
      }
      continue;
    }
    const node = length === 0 ? document.contents : document.getIn(prefix, true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

function problemsOf(issues: readonly z.core.$ZodIssue[], document: Document, lines: LineCounter): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(configSchema, issue.path);
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        // A key that belongs one level down (`queueMetric` for `autoscaling.queueMetric`) is named there.
        const nested = known.find((parent) => knownKeysAt(configSchema, [...issue.path, parent]).includes(key));
        const suggestion = nested === undefined ? closestKey(key, known) : `${nested}.${key}`;
        const hint = suggestion === undefined ? (known.length > 0 ? ` (expected one of ${known.join(', ')})` : '') : `; did you mean \`${suggestion}\`?`;
        problems.push({ path: formatPath(path), line: lineOf(document, lines, path, true), message: `unknown key \`${key}\`${hint}` });
      }
      continue;
    }
    const input = (issue as { input?: unknown }).input;
    let message = issue.message;
    if (issue.code === 'invalid_type' || issue.code === 'invalid_value') message = input === undefined ? `missing: ${message}` : `${message}, got ${describeValue(input)}`;
    problems.push({ path: formatPath(issue.path), line: lineOf(document, lines, issue.path, input === undefined), message });
  }
  return problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
}

function problemText(problem: ConfigProblem): string {
  return `${problem.path}: ${problem.message}`;
}

function toError(file: string, problems: readonly ConfigProblem[]): InputError {
  const [first, ...rest] = problems;
  const more = rest.map((problem) => `\n  ${problem.line === undefined ? '' : `line ${problem.line}: `}${problemText(problem)}`).join('');
  return new InputError(`${problemText(first!)}${more}`, { file, location: first!.line === undefined ? undefined : `line ${first!.line}` });
}

/** Parses and validates config text. `file` names it in errors. */
export function parseConfig(text: string, file: string): GpuAuditConfig {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw toError(file, document.errors.map((error) => ({
      path: 'YAML syntax',
      line: error.linePos?.[0].line,
      message: error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
    })));
  }
  const data: unknown = document.toJS() ?? {};
  const result = configSchema.safeParse(data, { reportInput: true });
  if (result.success) return result.data;
  throw toError(file, problemsOf(result.error.issues, document, lines));
}

export async function loadConfigFile(file: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new InputError(`cannot read the config: ${reason}`, { file, cause: error });
  }
  return { file, config: parseConfig(text, file) };
}

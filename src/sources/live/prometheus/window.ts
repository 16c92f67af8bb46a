/**
 * The time window of a live-Prometheus audit: `--since`/`--until` as durations before now
 * (`7d`, `36h`, `90m`, `1w2d`) or ISO times, `--step` as a duration, and the split of a long
 * window into chunks that each stay a modest query for the server.
 */
import { InputError } from '../../../support/index.js';
import { TIMELINE_MAX_BUCKETS } from '../../../model/index.js';

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
/** Prometheus' own duration syntax without `ms` and `y`: one or more number+unit pairs. */
const DURATION = /^(?:\d+[smhdw])+$/;
const DURATION_PART = /(\d+)([smhdw])/g;
/** An ISO 8601 date-time with a zone, or a bare date (read as UTC midnight). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/** Seconds of a duration such as `5m` or `1d12h`; undefined when `text` is not one. */
export function parseDurationSeconds(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DURATION.test(trimmed)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of trimmed.matchAll(DURATION_PART)) seconds += Number(amount) * UNIT_SECONDS[unit!]!;
  return seconds > 0 ? seconds : undefined;
}

/** A Prometheus duration literal for whole seconds (`3600s` is valid PromQL everywhere). */
export function promDuration(seconds: number): string {
  return `${Math.round(seconds)}s`;
}

/**
 * Which end of a range selector or subquery includes a sample lying exactly on it. Prometheus
 * 2.x includes both ends, [t - range, t]; Prometheus 3.x made both left-open, (t - range, t].
 * A server's rule is asked once per audit (RANGE_RULE_PROBE in ./queries.ts), never assumed.
 */
export type RangeRule = 'closed' | 'left-open';

/**
 * The range of a query evaluated at the end of a span of `seconds` such that it covers exactly
 * [span start + 1 ms, span end] under the server's rule: one millisecond short under 2.x
 * ([end - (span - 1 ms), end]), the full span under 3.x ((end - span, end]). Timestamps are
 * whole milliseconds, so consecutive spans evaluated at their ends partition the time line:
 * every sample (and every subquery step) falls in exactly one, under either rule.
 */
export function promSpan(seconds: number, rule: RangeRule): string {
  const ms = Math.round(seconds * 1000);
  return `${rule === 'closed' ? ms - 1 : ms}ms`;
}

/** `--since`/`--until`: a duration before `referenceMs`, or an ISO time. Epoch milliseconds. */
export function parseTimeBound(text: string, referenceMs: number, option: string): number {
  const seconds = parseDurationSeconds(text);
  if (seconds !== undefined) return referenceMs - seconds * 1000;
  if (ISO_TIME.test(text.trim())) {
    const ms = Date.parse(text.trim());
    if (Number.isFinite(ms)) return ms;
  }
  throw new InputError(`${option} ${JSON.stringify(text)}: expected a duration (7d, 36h, 90m) or an ISO time with a zone (2026-11-02T00:00:00Z)`);
}

export interface AuditWindow {
  startMs: number;
  endMs: number;
  stepSeconds: number;
}

export interface WindowSpec {
  since: string;
  until?: string;
  step?: string;
}

export const DEFAULT_STEP_SECONDS = 300;

/** `--until` (default now; a duration counts back from now), then `--since` (a duration counts back from --until). */
export function resolveWindow(spec: WindowSpec, nowMs: number): AuditWindow {
  const endMs = spec.until === undefined ? nowMs : parseTimeBound(spec.until, nowMs, '--until');
  const startMs = parseTimeBound(spec.since, endMs, '--since');
  const stepSeconds = spec.step === undefined ? DEFAULT_STEP_SECONDS : parseDurationSeconds(spec.step);
  if (stepSeconds === undefined) throw new InputError(`--step ${JSON.stringify(spec.step)}: expected a duration such as 30s, 5m or 1h`);
  if (!(startMs < endMs)) {
    throw new InputError(`--since ${new Date(startMs).toISOString()} is not before --until ${new Date(endMs).toISOString()}`);
  }
  if ((endMs - startMs) / 1000 < stepSeconds) throw new InputError(`--step ${spec.step ?? ''} is longer than the window from --since to --until`);
  return { startMs, endMs, stepSeconds };
}

/**
 * The timeline's bucket width for a window, as the streaming analysis sizes it
 * (analysis/timeline-buckets.ts): one minute doubled until the epoch-aligned buckets that cover
 * the window are at most TIMELINE_MAX_BUCKETS.
 */
export function timelineBucketSeconds(startMs: number, endMs: number): number {
  let bucketMs = 60_000;
  while (Math.floor((endMs - 1) / bucketMs) - Math.floor(startMs / bucketMs) + 1 > TIMELINE_MAX_BUCKETS) bucketMs *= 2;
  return bucketMs / 1000;
}

export interface Chunk {
  startMs: number;
  endMs: number;
}

/**
 * Consecutive chunks of at most `chunkSeconds`, whole multiples of `stepSeconds`, covering the
 * window exactly: an instant query at a chunk's end over promSpan(chunk length, rule) sees the
 * samples after its start up to its end, so no sample is counted twice or lost at a join.
 */
export function splitWindow(window: AuditWindow, chunkSeconds: number): Chunk[] {
  const stepMs = window.stepSeconds * 1000;
  const chunkMs = Math.max(stepMs, Math.floor((chunkSeconds * 1000) / stepMs) * stepMs);
  const chunks: Chunk[] = [];
  for (let startMs = window.startMs; startMs < window.endMs; startMs += chunkMs) {
    chunks.push({ startMs, endMs: Math.min(window.endMs, startMs + chunkMs) });
  }
  return chunks;
}

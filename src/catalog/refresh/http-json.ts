/**
 * GET a JSON document with a bounded retry, for the one public API that has no SDK here
 * (Azure Retail Prices). Throttling (429), server errors (500/502/503/504) and broken
 * connections (including a body cut off midway) are retried with exponential backoff, or after
 * `Retry-After` when the server says so; other statuses fail at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { safeMessage } from './redact.js';

export interface HttpRetryOptions {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts?: number;
  /** First backoff; doubles per attempt. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait between attempts, whatever Retry-After says. Default 30 s. */
  maxDelayMs?: number;
  /** Per attempt. Default 60 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export class HttpStatusError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status: number | undefined) {
    super(message);
    this.name = 'HttpStatusError';
    this.status = status;
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function networkError(origin: string, error: unknown): HttpStatusError {
  const message = error instanceof Error ? (error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message) : String(error);
  return new HttpStatusError(`${origin}: ${safeMessage(message)}`, undefined);
}

/** One attempt: the parsed document, or the error and whether another attempt may help. */
async function attemptGet(url: string, origin: string, fetchImpl: typeof fetch, timeoutMs: number): Promise<{ ok: true; value: unknown } | { ok: false; error: HttpStatusError; retryable: boolean; retryAfterMs?: number }> {
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      const error = new HttpStatusError(`${origin}: HTTP ${response.status} ${response.statusText}`.trim(), response.status);
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      return { ok: false, error, retryable: RETRYABLE_STATUSES.has(response.status), ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }) };
    }
    // Reading the body is part of the attempt: a connection cut midway is retried too.
    text = await response.text();
  } catch (error) {
    return { ok: false, error: networkError(origin, error), retryable: true };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // A body cut short without a transport error (no length announced) reads as bad JSON.
    return { ok: false, error: new HttpStatusError(`${origin}: the answer is not complete JSON (${text.length} bytes)`, response.status), retryable: true };
  }
}

export async function getJsonWithRetry(url: string, options: HttpRetryOptions = {}): Promise<unknown> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const origin = new URL(url).origin;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptGet(url, origin, options.fetch ?? fetch, options.timeoutMs ?? 60_000);
    if (outcome.ok) return outcome.value;
    if (!outcome.retryable) throw outcome.error;
    if (attempt >= maxAttempts) throw new HttpStatusError(`${outcome.error.message} (after ${maxAttempts} attempts)`, outcome.error.status);
    await sleep(Math.min(maxDelayMs, outcome.retryAfterMs ?? baseDelayMs * 2 ** (attempt - 1)));
  }
}

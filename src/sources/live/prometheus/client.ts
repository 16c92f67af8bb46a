/**
 * The Prometheus HTTP API as gpu-audit uses it: instant queries, range queries and label
 * values, with at most `concurrency` requests in flight, a deadline per request, and retries
 * with exponential backoff and full jitter on 429 (honouring Retry-After), 5xx and transport
 * failures (refused, reset, DNS, deadline, a body cut short); an untrusted TLS certificate is
 * final at once. Other answers are final: a 4xx names a bad query, a
 * body that is not the API's JSON names a proxy or a server gpu-audit cannot read.
 *
 * Every request and byte is counted (`stats`) for the report's source entry and the
 * benchmark. Failures become UpstreamError (exit 3) naming the endpoint without credentials
 * and the last HTTP status.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { UpstreamError } from '../../../support/index.js';
import { DEFAULT_INPUT_LIMITS, labelsProblem, type InputLimits } from '../../input-limits.js';
import type { PrometheusConnection } from './auth.js';
import { AnswerShapeError, AnswerStream } from './answer-stream.js';
import { type BodyReceiver, type HttpAnswer, sendForm, TransportError } from './http.js';

export interface ClientOptions {
  timeoutMs: number;
  /** Largest answer read, received and decoded, bytes; a larger one ends the audit (exit 3) with advice. */
  maxAnswerBytes: number;
  concurrency: number;
  /** Attempts per request, the first included. */
  maxAttempts: number;
  /** First backoff; doubles per retry, up to backoffMaxMs, then full jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Longest Retry-After honoured; a longer one is cut to this. */
  retryAfterMaxMs: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Called when a request completes (for progress). */
  onQueryDone?: (stats: Readonly<TransferStats>) => void;
  /** Labels and series caps of --input-limit: a series past a label cap is skipped, an answer past the series cap ends the audit. */
  inputLimits: Pick<InputLimits, 'labelsPerSeries' | 'labelValueChars' | 'seriesPerAnswer'>;
}

/** 256 MiB: an answer of tens of millions of points, far past what a pushed-down query returns. */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024;

export const DEFAULT_CLIENT_OPTIONS: ClientOptions = {
  timeoutMs: 120_000,
  maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES,
  concurrency: 4,
  maxAttempts: 4,
  backoffBaseMs: 500,
  backoffMaxMs: 8_000,
  retryAfterMaxMs: 60_000,
  inputLimits: DEFAULT_INPUT_LIMITS,
};

export interface TransferStats {
  /** API requests answered successfully (each query once, however many attempts it took). */
  queries: number;
  /** HTTP attempts, retries included. */
  attempts: number;
  retries: number;
  /** Bytes received on the wire (gzip-compressed where the server compressed). */
  wireBytes: number;
  /** Bytes of JSON after decompression. */
  jsonBytes: number;
}

export type Labels = Readonly<Record<string, string>>;

/** A server warning (partial data) on an answer, with the part of the window that answer covers. */
export interface PartialAnswer {
  warning: string;
  fromMs: number;
  toMs: number;
}

export interface InstantSample {
  labels: Labels;
  value: number;
}

export interface RangeSeries {
  labels: Labels;
  /** [Unix seconds, value] */
  points: [number, number][];
}

const RETRYABLE_STATUS = (status: number): boolean => status === 429 || status >= 500;

/**
 * What engines say when a query is too big for their limits: Prometheus' --query.max-samples
 * ("would load too many samples") and --query.timeout (errorType timeout), VictoriaMetrics'
 * -search.maxSamplesPerQuery, -search.maxPointsPerTimeseries and -search.maxQueryLen. Asked
 * again as it is, such a query fails again: a smaller one may not.
 */
const LIMIT_ERRORS = /too many samples|query timed out|maxSamplesPerQuery|maxPointsPerTimeseries|maxPointsPerSeries|too long query|maxQueryLen|cannot select more than/iu;

/** An engine refused a query for its size: the caller may split it (read-prometheus.ts withinLimits). */
export class QueryLimitError extends UpstreamError {
  constructor(message: string, options: { endpoint: string; status?: number }) {
    super(message, options);
    this.name = 'QueryLimitError';
  }
}

/** The engine's limit message in an error body, or undefined. */
function limitMessage(body: string): string | undefined {
  try {
    const document: unknown = JSON.parse(body);
    if (!isObject(document) || typeof document.error !== 'string') return undefined;
    return document.errorType === 'timeout' || LIMIT_ERRORS.test(document.error) ? document.error.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function retryAfterMs(header: string | string[] | undefined, nowMs: number): number | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}

/** Prometheus writes sample values as strings, with NaN and ±Inf spelled out. */
function sampleValue(text: unknown): number {
  if (typeof text !== 'string') return Number.NaN;
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

function labelsOf(entry: unknown): Labels {
  const labels: Record<string, string> = {};
  const metric = isObject(entry) ? entry.metric : undefined;
  if (isObject(metric)) for (const [name, value] of Object.entries(metric)) if (typeof value === 'string') labels[name] = value;
  return labels;
}

/** A matrix entry's [Unix seconds, value] points. */
function pointsOf(entry: unknown): [number, number][] {
  const values = isObject(entry) && Array.isArray(entry.values) ? entry.values : [];
  const points: [number, number][] = [];
  for (const point of values) {
    if (Array.isArray(point) && typeof point[0] === 'number') points.push([point[0], sampleValue(point[1])]);
  }
  return points;
}

const valueOf = (entry: unknown): number => (isObject(entry) && Array.isArray(entry.value) ? sampleValue(entry.value[1]) : Number.NaN);

/** Series an answer held that a label cap left out: how many, and why the first was. */
export interface SkippedSeries {
  count: number;
  first: string;
}

/** The build-info request is a courtesy: a short deadline, a small answer. */
const BUILD_INFO_TIMEOUT_MS = 10_000;
const BUILD_INFO_MAX_BYTES = 64 * 1024;

/**
 * The engine a build-info answer names. VictoriaMetrics marks every answer with its
 * X-Server-Hostname header and answers build info with an empty (or a Prometheus-imitating)
 * `data`; Grafana Mimir names itself in `application`; Thanos answers as Prometheus does, with
 * its own 0.x version; Prometheus with its 2.x or 3.x one.
 */
export function engineOf(answer: Pick<HttpAnswer, 'headers' | 'body'>): string | undefined {
  if (answer.headers['x-server-hostname'] !== undefined) return 'VictoriaMetrics';
  let data: unknown;
  try {
    const document: unknown = JSON.parse(answer.body);
    data = isObject(document) ? document.data : undefined;
  } catch {
    return undefined;
  }
  if (!isObject(data) || typeof data.version !== 'string' || data.version === '') return undefined;
  const version = data.version.slice(0, 40);
  if (typeof data.application === 'string' && data.application !== '') return `${data.application.slice(0, 60)} ${version}`;
  return `${version.startsWith('0.') ? 'Thanos' : 'Prometheus'} ${version}`;
}

class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await task();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

export class PrometheusClient {
  readonly stats: TransferStats = { queries: 0, attempts: 0, retries: 0, wireBytes: 0, jsonBytes: 0 };
  /** Warnings the server attached to answers (partial data), each once. */
  readonly warnings = new Set<string>();
  /** Every answer that carried a warning, with the time it covers: the report names what may be missing. */
  readonly partialAnswers: PartialAnswer[] = [];
  /** Series past a label cap, left out of the answers that held them. */
  readonly skippedSeries: SkippedSeries = { count: 0, first: '' };
  private readonly options: ClientOptions;
  private readonly gate: Semaphore;
  private readonly cancel = new AbortController();

  constructor(readonly connection: PrometheusConnection, options: Partial<ClientOptions> = {}) {
    this.options = { ...DEFAULT_CLIENT_OPTIONS, ...options };
    this.gate = new Semaphore(Math.max(1, this.options.concurrency));
  }

  /**
   * Stops every request in flight, waiting or backing off (they reject): once one query has
   * failed for good the audit ends, and the process must not wait for the others' deadlines.
   */
  abort(): void {
    this.cancel.abort();
  }

  /**
   * `/api/v1/query` at `timeMs`; the expression must give an instant vector. `coversFromMs`: the
   * start of the samples it reads (`timeMs` minus its range), for naming a partial answer.
   */
  async instant(expression: string, timeMs: number, coversFromMs = timeMs): Promise<InstantSample[]> {
    const data = await this.call('/api/v1/query', { query: expression, time: String(timeMs / 1000) }, 'POST', { fromMs: coversFromMs, toMs: timeMs }, this.sampleOf);
    return this.resultOf(data, 'vector', '/api/v1/query') as InstantSample[];
  }

  /**
   * `/api/v1/query` of a range vector selector at `timeMs`: the raw samples of each series in
   * the range, as the server stored them. `coversFromMs` as for instant().
   */
  async rawSamples(expression: string, timeMs: number, coversFromMs: number): Promise<RangeSeries[]> {
    const data = await this.call('/api/v1/query', { query: expression, time: String(timeMs / 1000) }, 'POST', { fromMs: coversFromMs, toMs: timeMs }, this.seriesOf);
    return this.resultOf(data, 'matrix', '/api/v1/query') as RangeSeries[];
  }

  /** `/api/v1/query_range` from `startMs` to `endMs` every `stepSeconds`; `coversFromMs` as for instant(). */
  async range(expression: string, startMs: number, endMs: number, stepSeconds: number, coversFromMs = startMs): Promise<RangeSeries[]> {
    const data = await this.call('/api/v1/query_range', {
      query: expression, start: String(startMs / 1000), end: String(endMs / 1000), step: String(stepSeconds),
    }, 'POST', { fromMs: coversFromMs, toMs: endMs }, this.seriesOf);
    return this.resultOf(data, 'matrix', '/api/v1/query_range') as RangeSeries[];
  }

  /**
   * The engine behind the URL (engineOf), from `/api/v1/status/buildinfo`, asked once and
   * without retries: a name for the report, never a reason to fail (undefined when it does not say).
   */
  async engine(): Promise<string | undefined> {
    try {
      const answer = await this.gate.run(() => sendForm(
        this.connection, 'GET', '/api/v1/status/buildinfo', new URLSearchParams(), Math.min(this.options.timeoutMs, BUILD_INFO_TIMEOUT_MS), this.cancel.signal, BUILD_INFO_MAX_BYTES,
      ));
      this.stats.attempts += 1;
      this.countBytes(answer);
      if (answer.status < 200 || answer.status >= 300) return undefined;
      this.stats.queries += 1;
      return engineOf(answer);
    } catch {
      return undefined;
    }
  }

  /** Values of `label` on series matching `match` in the window (`/api/v1/label/<name>/values`). */
  async labelValues(label: string, match: string, startMs: number, endMs: number): Promise<string[]> {
    const path = `/api/v1/label/${encodeURIComponent(label)}/values`;
    const data = await this.call(path, { 'match[]': match, start: String(startMs / 1000), end: String(endMs / 1000) }, 'GET', { fromMs: startMs, toMs: endMs });
    if (!Array.isArray(data)) throw this.malformed(path, 'data is not a list');
    return data.filter((value): value is string => typeof value === 'string');
  }

  /** An entry's labels, or undefined (counted in skippedSeries) where they pass a label cap. */
  private capped(entry: unknown): Labels | undefined {
    const labels = labelsOf(entry);
    const problem = labelsProblem(Object.entries(labels), this.options.inputLimits);
    if (problem === undefined) return labels;
    if (this.skippedSeries.count === 0) this.skippedSeries.first = problem;
    this.skippedSeries.count += 1;
    return undefined;
  }

  private readonly seriesOf = (entry: unknown): RangeSeries | undefined => {
    const labels = this.capped(entry);
    return labels === undefined ? undefined : { labels, points: pointsOf(entry) };
  };

  private readonly sampleOf = (entry: unknown): InstantSample | undefined => {
    const labels = this.capped(entry);
    return labels === undefined ? undefined : { labels, value: valueOf(entry) };
  };

  private endpoint(path: string): string {
    return `${this.connection.displayUrl}${path}`;
  }

  private malformed(path: string, why: string, status?: number): UpstreamError {
    return new UpstreamError(`not a Prometheus API answer (${why})`, { endpoint: this.endpoint(path), ...(status === undefined ? {} : { status }) });
  }

  private shapeError(path: string, error: AnswerShapeError, status?: number): UpstreamError {
    if (!error.isCap) return this.malformed(path, error.why, status);
    return new UpstreamError(error.why, { endpoint: this.endpoint(path), ...(status === undefined ? {} : { status }) });
  }

  private resultOf(data: unknown, resultType: 'vector' | 'matrix', path: string): unknown[] {
    if (!isObject(data) || data.resultType !== resultType || !Array.isArray(data.result)) {
      throw this.malformed(path, `expected a ${resultType} result`);
    }
    return data.result;
  }

  /**
   * The answer's `data`. With `convert`, a successful answer is read as it arrives (AnswerStream)
   * and `data.result` holds each element converted, never the answer's text or parse tree.
   */
  private call(path: string, fields: Record<string, string>, method: 'GET' | 'POST', covers: Omit<PartialAnswer, 'warning'>, convert?: (entry: unknown) => unknown | undefined): Promise<unknown> {
    return this.gate.run(async () => {
      const data = await this.callWithRetries(method, path, new URLSearchParams(fields), covers, convert);
      this.stats.queries += 1;
      this.options.onQueryDone?.(this.stats);
      return data;
    });
  }

  private async callWithRetries(
    method: 'GET' | 'POST', path: string, form: URLSearchParams, covers: Omit<PartialAnswer, 'warning'>, convert: ((entry: unknown) => unknown) | undefined,
  ): Promise<unknown> {
    const { maxAttempts, backoffBaseMs, backoffMaxMs, retryAfterMaxMs } = this.options;
    const { signal } = this.cancel;
    const sleep = this.options.sleep ?? ((ms: number) => delay(ms, undefined, { signal }));
    const random = this.options.random ?? Math.random;
    let lastFailure = '';
    let lastStatus: number | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      if (signal.aborted) throw new UpstreamError('cancelled: another query failed', { endpoint: this.endpoint(path) });
      if (attempt > 1) this.stats.retries += 1;
      this.stats.attempts += 1;
      let answer: HttpAnswer;
      // Each attempt reads its answer afresh: what a broken one gave is dropped with it.
      const stream = convert === undefined ? undefined : new AnswerStream(convert, this.options.inputLimits.seriesPerAnswer);
      const receiver: BodyReceiver | undefined = stream === undefined ? undefined : (status) => (status >= 200 && status < 300 ? (text) => stream.write(text) : undefined);
      try {
        answer = await sendForm(this.connection, method, path, form, this.options.timeoutMs, signal, this.options.maxAnswerBytes, receiver);
      } catch (error) {
        if (signal.aborted) throw new UpstreamError('cancelled: another query failed', { endpoint: this.endpoint(path) });
        if (error instanceof AnswerShapeError) throw this.shapeError(path, error);
        if (!(error instanceof TransportError)) throw error;
        if (error.final) throw new UpstreamError(error.message, { endpoint: this.endpoint(path), cause: error });
        lastFailure = error.message;
        lastStatus = undefined;
        if (attempt < maxAttempts) await sleep(random() * Math.min(backoffMaxMs, backoffBaseMs * 2 ** (attempt - 1)));
        continue;
      }
      this.countBytes(answer);
      const limit = answer.status >= 400 ? limitMessage(answer.body) : undefined;
      if (limit !== undefined) throw new QueryLimitError(`the engine refused the query for its size: ${limit}`, { endpoint: this.endpoint(path), status: answer.status });
      if (RETRYABLE_STATUS(answer.status)) {
        lastStatus = answer.status;
        lastFailure = `HTTP ${answer.status}${this.errorText(answer.body)}`;
        if (attempt < maxAttempts) {
          const backoff = random() * Math.min(backoffMaxMs, backoffBaseMs * 2 ** (attempt - 1));
          const asked = answer.status === 429 ? retryAfterMs(answer.headers['retry-after'], Date.now()) : undefined;
          await sleep(asked === undefined ? backoff : Math.min(retryAfterMaxMs, asked));
        }
        continue;
      }
      return this.dataOf(path, answer, covers, stream);
    }
    throw new UpstreamError(`no answer after ${maxAttempts} attempts: ${lastFailure}`, {
      endpoint: this.endpoint(path), ...(lastStatus === undefined ? {} : { status: lastStatus }),
    });
  }

  private countBytes(answer: HttpAnswer): void {
    this.stats.wireBytes += answer.wireBytes;
    this.stats.jsonBytes += answer.textBytes;
  }

  /** `: <error>` from an API error body, or '' when the body is not one. */
  private errorText(body: string): string {
    try {
      const document: unknown = JSON.parse(body);
      if (isObject(document) && typeof document.error === 'string') return `: ${document.error.slice(0, 300)}`;
    } catch {
      // Not JSON: a proxy's HTML page; the status says enough.
    }
    return '';
  }

  private dataOf(path: string, answer: HttpAnswer, covers: Omit<PartialAnswer, 'warning'>, stream: AnswerStream<unknown> | undefined): unknown {
    let document: unknown;
    const streamed = stream !== undefined && answer.status >= 200 && answer.status < 300;
    try {
      document = streamed ? stream.end() : JSON.parse(answer.body);
    } catch (error) {
      if (error instanceof AnswerShapeError) throw this.shapeError(path, error, answer.status);
      throw this.malformed(path, `${answer.textBytes} bytes that are not JSON`, answer.status);
    }
    if (!isObject(document) || typeof document.status !== 'string') throw this.malformed(path, 'no "status"', answer.status);
    if (Array.isArray(document.warnings)) {
      for (const warning of document.warnings) {
        if (typeof warning !== 'string') continue;
        this.warnings.add(warning);
        this.partialAnswers.push({ warning, ...covers });
      }
    }
    // VictoriaMetrics (and Thanos with partial response) flags an answer that lacks data from some storage nodes.
    if (document.isPartial === true) {
      const warning = 'the engine marked an answer isPartial: some of its storage did not answer';
      this.warnings.add(warning);
      this.partialAnswers.push({ warning, ...covers });
    }
    if (document.status !== 'success' || answer.status < 200 || answer.status >= 300) {
      const kind = typeof document.errorType === 'string' ? ` (${document.errorType})` : '';
      const message = typeof document.error === 'string' ? document.error.slice(0, 300) : `status ${document.status}`;
      throw new UpstreamError(`Prometheus refused the query${kind}: ${message}`, { endpoint: this.endpoint(path), status: answer.status });
    }
    return document.data;
  }
}

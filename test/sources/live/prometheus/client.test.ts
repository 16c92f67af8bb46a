/**
 * The HTTP client against a small local node:http server that answers as scripted: the
 * failure paths of a real Prometheus (or a proxy in front of one) without one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../src/support/errors.js';
import { prometheusConnection } from '../../../../src/sources/live/prometheus/auth.js';
import { engineOf, PrometheusClient, QueryLimitError, type ClientOptions } from '../../../../src/sources/live/prometheus/client.js';
import { freePort } from '../../../helpers/prometheus-server.js';
import { localhostCertificate } from '../../../replay/tls.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Answer = (response: http.ServerResponse, seen: Seen) => void;

const json = (status: number, document: unknown, headers: Record<string, string> = {}): Answer => (response) => {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(document));
};
const vector = (value: string, warnings?: string[]): unknown => ({
  status: 'success',
  data: { resultType: 'vector', result: [{ metric: { UUID: 'GPU-1' }, value: [1793664000, value] }] },
  ...(warnings === undefined ? {} : { warnings }),
});
const hang: Answer = () => undefined;

let servers: (http.Server | https.Server)[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  })));
  servers = [];
});

/** A server that gives the scripted answers in turn (the last one again when they run out). */
async function scriptedServer(answers: Answer[]): Promise<{ url: string; seen: Seen[]; maxInFlight: () => number }> {
  const seen: Seen[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (part: Buffer) => {
      body += part.toString();
    });
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      seen.push(entry);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      response.on('close', () => {
        inFlight -= 1;
      });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
      answer(response, entry);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, seen, maxInFlight: () => maxInFlight };
}

const sleeps: number[] = [];
function client(url: string, options: Partial<ClientOptions> = {}, env: NodeJS.ProcessEnv = {}): PrometheusClient {
  sleeps.length = 0;
  return new PrometheusClient(prometheusConnection(url, env), {
    maxAttempts: 3,
    timeoutMs: 2_000,
    random: () => 1,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
}

async function upstreamError(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('Prometheus client', () => {
  it('POSTs the query as a form with the credentials and reads the vector', async () => {
    const server = await scriptedServer([json(200, vector('42.5'))]);
    const prometheus = client(server.url, {}, { GPU_AUDIT_PROMETHEUS_TOKEN: 'tok' });
    expect(await prometheus.instant('up', 1_793_664_000_000)).toEqual([{ labels: { UUID: 'GPU-1' }, value: 42.5 }]);
    expect(server.seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/query', body: 'query=up&time=1793664000' });
    expect(server.seen[0]!.headers.authorization).toBe('Bearer tok');
    expect(prometheus.stats).toMatchObject({ queries: 1, attempts: 1, retries: 0 });
  });

  it('retries a 503 and then succeeds', async () => {
    const server = await scriptedServer([json(503, { status: 'error', errorType: 'unavailable', error: 'not ready' }), json(200, vector('1'))]);
    const prometheus = client(server.url, { backoffBaseMs: 100 });
    expect(await prometheus.instant('up', 0)).toHaveLength(1);
    // One retry after the first backoff: random() = 1 x 100 ms.
    expect(sleeps).toEqual([100]);
    expect(prometheus.stats).toMatchObject({ queries: 1, attempts: 2, retries: 1 });
  });

  it('waits as long as a 429 Retry-After asks (capped), else backs off exponentially', async () => {
    const server = await scriptedServer([
      json(429, { status: 'error', error: 'slow down' }, { 'Retry-After': '2' }),
      json(429, { status: 'error', error: 'slow down' }, { 'Retry-After': '3600' }),
      json(500, { status: 'error', error: 'boom' }),
      json(200, vector('1')),
    ]);
    const prometheus = client(server.url, { maxAttempts: 4, backoffBaseMs: 100, retryAfterMaxMs: 30_000 });
    await prometheus.instant('up', 0);
    // 2 s as asked; 3600 s cut to 30 s; the third try's backoff is 100 x 2^2 = 400 ms.
    expect(sleeps).toEqual([2_000, 30_000, 400]);
  });

  it('gives up after the last attempt with the URL and the last status (exit 3)', async () => {
    const server = await scriptedServer([json(503, { status: 'error', error: 'overloaded' })]);
    const error = await upstreamError(client(server.url).instant('up', 0));
    expect(error.status).toBe(503);
    expect(error.describe()).toBe(`${server.url}/api/v1/query (HTTP 503): no answer after 3 attempts: HTTP 503: overloaded`);
    expect(server.seen).toHaveLength(3);
  });

  it('gives up on a server that never answers, each attempt cut at the timeout', async () => {
    const server = await scriptedServer([hang]);
    const error = await upstreamError(client(server.url, { timeoutMs: 150, maxAttempts: 2 }).instant('up', 0));
    expect(error.status).toBeUndefined();
    expect(error.message).toBe('no answer after 2 attempts: no complete answer within 0.15 s');
    expect(server.seen).toHaveLength(2);
  });

  it('names the URL when nothing listens there', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const error = await upstreamError(client(url).instant('up', 0));
    expect(error.endpoint).toBe(`${url}/api/v1/query`);
    expect(error.message).toMatch(/^no answer after 3 attempts: ECONNREFUSED/);
  });

  it('does not retry an answer that is not JSON', async () => {
    const server = await scriptedServer([(response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end('<html>login</html>');
    }]);
    const error = await upstreamError(client(server.url).instant('up', 0));
    expect(error.message).toBe('not a Prometheus API answer (18 bytes that are not JSON)');
    expect(server.seen).toHaveLength(1);
  });

  it('does not retry a query Prometheus refused, and says why', async () => {
    const server = await scriptedServer([json(400, { status: 'error', errorType: 'bad_data', error: 'invalid parameter "query": 1:5: parse error: unexpected end of input' })]);
    const error = await upstreamError(client(server.url).instant('up{', 0));
    expect(error.status).toBe(400);
    expect(error.message).toBe('Prometheus refused the query (bad_data): invalid parameter "query": 1:5: parse error: unexpected end of input');
    expect(server.seen).toHaveLength(1);
  });

  it('refuses a success without the expected result type', async () => {
    const server = await scriptedServer([json(200, { status: 'success', data: { resultType: 'scalar', result: [0, '1'] } })]);
    expect((await upstreamError(client(server.url).instant('up', 0))).message).toBe('not a Prometheus API answer (expected a vector result)');
  });

  it('keeps the warnings of partial answers, each once', async () => {
    const partial = json(200, vector('1', ['partial response: store 10.0.0.7:10901 unavailable']));
    const server = await scriptedServer([partial, partial]);
    const prometheus = client(server.url);
    await prometheus.instant('a', 0);
    await prometheus.instant('b', 0);
    expect([...prometheus.warnings]).toEqual(['partial response: store 10.0.0.7:10901 unavailable']);
  });

  it('reads gzip answers and counts wire bytes apart from JSON bytes', async () => {
    const document = JSON.stringify(vector('7'));
    const server = await scriptedServer([(response, seen) => {
      expect(seen.headers['accept-encoding']).toBe('gzip');
      const packed = gzipSync(document);
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': String(packed.length) });
      response.end(packed);
    }]);
    const prometheus = client(server.url);
    expect((await prometheus.instant('up', 0))[0]!.value).toBe(7);
    expect(prometheus.stats.jsonBytes).toBe(document.length);
    expect(prometheus.stats.wireBytes).toBe(gzipSync(document).length);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const slow: Answer = (response) => setTimeout(() => json(200, vector('1'))(response, {} as Seen), 30);
    const server = await scriptedServer([slow]);
    const prometheus = client(server.url, { concurrency: 2 });
    await Promise.all(Array.from({ length: 7 }, () => prometheus.instant('up', 0)));
    expect(server.maxInFlight()).toBe(2);
    expect(prometheus.stats.queries).toBe(7);
  });

  it('cancels the requests in flight and waiting when told to abort', async () => {
    const server = await scriptedServer([hang]);
    const prometheus = client(server.url, { concurrency: 1, timeoutMs: 60_000 });
    const started = Date.now();
    const queries = [prometheus.instant('a', 0), prometheus.instant('b', 0)];
    await new Promise((resolve) => setTimeout(resolve, 100));
    prometheus.abort();
    for (const query of queries) expect((await upstreamError(query)).message).toBe('cancelled: another query failed');
    // Well before the 60 s deadline; the waiting query never reached the server.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.seen).toHaveLength(1);
  });

  it('reads range answers and label values (GET)', async () => {
    const server = await scriptedServer([
      json(200, { status: 'success', data: { resultType: 'matrix', result: [{ metric: { UUID: 'GPU-1' }, values: [[3600, '1.5'], [7200, 'NaN']] }] } }),
      json(200, { status: 'success', data: ['DCGM_FI_DEV_GPU_UTIL'] }),
    ]);
    const prometheus = client(server.url);
    const range = await prometheus.range('q', 0, 7_200_000, 3600);
    expect(range[0]!.points[0]).toEqual([3600, 1.5]);
    expect(range[0]!.points[1]![1]).toBeNaN();
    expect(await prometheus.labelValues('__name__', '{__name__=~"DCGM_FI_.*"}', 0, 1000)).toEqual(['DCGM_FI_DEV_GPU_UTIL']);
    expect(server.seen[1]!.method).toBe('GET');
    expect(server.seen[1]!.url).toBe('/api/v1/label/__name__/values?match%5B%5D=%7B__name__%3D%7E%22DCGM_FI_.*%22%7D&start=0&end=1');
  });
});

describe('Prometheus client under upstream faults', () => {
  it('retries a failed host lookup (DNS), then names the URL without credentials', async () => {
    const hosts: string[] = [];
    // No DNS server is asked: the lookup fails as getaddrinfo does for an unknown name.
    const lookup: LookupFunction = (hostname, _options, callback) => {
      hosts.push(hostname);
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), '', 4);
    };
    const connection = { ...prometheusConnection('http://gpu:s3cret@prometheus.invalid:9090/', {}), lookup };
    sleeps.length = 0;
    const prometheus = new PrometheusClient(connection, { maxAttempts: 3, random: () => 1, sleep: async (ms) => void sleeps.push(ms) });
    const error = await upstreamError(prometheus.instant('up', 0));
    expect(error.describe()).toBe('http://prometheus.invalid:9090/api/v1/query: no answer after 3 attempts: ENOTFOUND: getaddrinfo ENOTFOUND prometheus.invalid');
    expect(error.describe()).not.toContain('s3cret');
    expect(hosts).toEqual(['prometheus.invalid', 'prometheus.invalid', 'prometheus.invalid']);
    // Full jitter at its top (random 1): 500 ms, then 1000 ms.
    expect(sleeps).toEqual([500, 1000]);
  });

  describe('over TLS with a certificate the system does not trust', () => {
    // A self-signed certificate for 127.0.0.1 made with openssl now, its PEM written as the CA file.
    let caDirectory: string;
    let caFile: string;
    beforeAll(() => {
      caDirectory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-ca-'));
      caFile = path.join(caDirectory, 'ca.pem');
      writeFileSync(caFile, localhostCertificate().cert);
    });
    afterAll(() => rmSync(caDirectory, { recursive: true, force: true }));

    async function tlsServer(): Promise<{ url: string; requests: () => number }> {
      let requests = 0;
      const { key, cert } = localhostCertificate();
      const server = https.createServer({ key, cert }, (_request, response) => {
        requests += 1;
        json(200, vector('3'))(response, {} as Seen);
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { url: `https://127.0.0.1:${(server.address() as { port: number }).port}`, requests: () => requests };
    }

    it('fails at once without the CA file, naming the endpoint and what to set (a certificate does not heal on retry)', async () => {
      const server = await tlsServer();
      const error = await upstreamError(client(server.url).instant('up', 0));
      expect(error.endpoint).toBe(`${server.url}/api/v1/query`);
      expect(error.message).toBe(
        'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate; the server\'s TLS certificate is not trusted: ' +
        'set GPU_AUDIT_PROMETHEUS_CA_FILE (or pass --prometheus-ca-file) to the PEM file of the CA that signed it',
      );
      expect(server.requests()).toBe(0);
      expect(sleeps).toEqual([]);
    });

    it('succeeds with GPU_AUDIT_PROMETHEUS_CA_FILE naming the certificate', async () => {
      const server = await tlsServer();
      const samples = await client(server.url, {}, { GPU_AUDIT_PROMETHEUS_CA_FILE: caFile }).instant('up', 0);
      expect(samples[0]!.value).toBe(3);
      expect(server.requests()).toBe(1);
    });
  });

  it('retries a body cut short of its Content-Length, then names the endpoint', async () => {
    const whole = JSON.stringify(vector('1'));
    const truncated: Answer = (response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(whole.length) });
      response.write(whole.slice(0, 20));
      // The connection closes with the body 20 bytes in.
      setTimeout(() => response.socket?.destroy(), 10);
    };
    const server = await scriptedServer([truncated]);
    const error = await upstreamError(client(server.url).instant('up', 0));
    expect(error.endpoint).toBe(`${server.url}/api/v1/query`);
    expect(error.message).toBe('no answer after 3 attempts: ECONNRESET: aborted');
    expect(server.seen).toHaveLength(3);
  });

  it('retries a chunked body aborted mid-chunk and takes the whole answer that follows', async () => {
    const abortedChunk: Answer = (response) => {
      // No Content-Length: chunked; the connection drops inside the body.
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{"status":"success","data":{"resultType":"vec');
      setTimeout(() => response.socket?.destroy(), 10);
    };
    const server = await scriptedServer([abortedChunk, json(200, vector('4'))]);
    const prometheus = client(server.url);
    expect((await prometheus.instant('up', 0))[0]!.value).toBe(4);
    expect(prometheus.stats.retries).toBe(1);
  });

  it('names a query the engine refused for its size (samples, timeout), without asking it again', async () => {
    const server = await scriptedServer([
      json(422, { status: 'error', errorType: 'execution', error: 'query processing would load too many samples into memory in query execution' }),
      json(503, { status: 'error', errorType: 'timeout', error: 'query timed out in expression evaluation' }),
    ]);
    const prometheus = client(server.url);
    const samples = await upstreamError(prometheus.instant('a', 0));
    expect(samples).toBeInstanceOf(QueryLimitError);
    expect(samples.message).toBe('the engine refused the query for its size: query processing would load too many samples into memory in query execution');
    expect(await upstreamError(prometheus.instant('b', 0))).toBeInstanceOf(QueryLimitError);
    // One request each: a refused size is not retried.
    expect(server.seen).toHaveLength(2);
  });

  it('refuses an answer past --prometheus-max-answer-mib as it arrives, without asking again', async () => {
    // 64 KiB of a series' points against a 16 KiB cap; sent in pieces, as a large answer is.
    const body = JSON.stringify(vector('1'.repeat(64 * 1024)));
    const server = await scriptedServer([(response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      for (let at = 0; at < body.length; at += 4096) response.write(body.slice(at, at + 4096));
      response.end();
    }]);
    const prometheus = client(server.url, { maxAnswerBytes: 16 * 1024 });
    const error = await upstreamError(prometheus.instant('up', 0));
    expect(error.message).toBe('the answer passed 0 MiB (--prometheus-max-answer-mib): narrow the window (--since, --until), the GPUs (--selector), or raise the cap');
    expect(server.seen).toHaveLength(1);
  });

  it('refuses a gzip answer that decodes past the cap, however small it came', async () => {
    const server = await scriptedServer([(response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      response.end(gzipSync(JSON.stringify(vector('0'.repeat(4 * 1024 * 1024)))));
    }]);
    const prometheus = client(server.url, { maxAnswerBytes: 2 * 1024 * 1024 });
    expect((await upstreamError(prometheus.instant('up', 0))).message).toMatch(/^the answer passed 2 MiB \(--prometheus-max-answer-mib\)/u);
    expect(server.seen).toHaveLength(1);
  });

  it('takes VictoriaMetrics\' isPartial flag as a partial answer, with the part of the window it covers', async () => {
    const server = await scriptedServer([json(200, { ...(vector('1') as object), isPartial: true })]);
    const prometheus = client(server.url);
    await prometheus.instant('a', 2_000_000, 1_000_000);
    expect(prometheus.partialAnswers).toEqual([{ warning: 'the engine marked an answer isPartial: some of its storage did not answer', fromMs: 1_000_000, toMs: 2_000_000 }]);
  });

  it('records which part of the window each partial answer covers', async () => {
    const partial = json(200, vector('1', ['partial response: store 10.0.0.7:10901 unavailable']));
    const server = await scriptedServer([json(200, vector('1')), partial]);
    const prometheus = client(server.url);
    await prometheus.instant('a', 2_000_000, 1_000_000);
    await prometheus.instant('b', 4_000_000, 3_000_000);
    expect(prometheus.partialAnswers).toEqual([{ warning: 'partial response: store 10.0.0.7:10901 unavailable', fromMs: 3_000_000, toMs: 4_000_000 }]);
  });
});

describe('engineOf: the engine a build-info answer names', () => {
  const answer = (data: unknown, headers: Record<string, string> = {}) => ({ headers, body: JSON.stringify({ status: 'success', data }) });

  it('names Prometheus, Thanos (its 0.x versions) and Mimir (its application) with their versions', () => {
    expect(engineOf(answer({ version: '2.42.0+ds', revision: 'abc' }))).toBe('Prometheus 2.42.0+ds');
    expect(engineOf(answer({ version: '3.1.0' }))).toBe('Prometheus 3.1.0');
    expect(engineOf(answer({ version: '0.32.5' }))).toBe('Thanos 0.32.5');
    expect(engineOf(answer({ application: 'Grafana Mimir', version: '2.10.0' }))).toBe('Grafana Mimir 2.10.0');
  });

  it('names VictoriaMetrics by its header, whatever its build info says', () => {
    expect(engineOf(answer({}, { 'x-server-hostname': 'vm' }))).toBe('VictoriaMetrics');
    expect(engineOf(answer({ version: '2.24.0' }, { 'x-server-hostname': 'vm' }))).toBe('VictoriaMetrics');
  });

  it('names nothing where the answer does not say', () => {
    expect(engineOf(answer({}))).toBeUndefined();
    expect(engineOf(answer({ version: '' }))).toBeUndefined();
    expect(engineOf({ headers: {}, body: '<html>404</html>' })).toBeUndefined();
  });
});

describe('answers read as they arrive', () => {
  /** A range answer of `count` series of `points` points each. */
  const matrix = (count: number, points: number): unknown => ({
    status: 'success',
    data: {
      resultType: 'matrix',
      result: Array.from({ length: count }, (_, series) => ({
        metric: { UUID: `GPU-${series}`, Hostname: 'h' },
        values: Array.from({ length: points }, (__, point) => [1_793_664_000 + point * 60, String((series * points + point) % 101)]),
      })),
    },
  });
  const expected = (count: number, points: number): unknown[] => Array.from({ length: count }, (_, series) => ({
    labels: { UUID: `GPU-${series}`, Hostname: 'h' },
    points: Array.from({ length: points }, (__, point) => [1_793_664_000 + point * 60, (series * points + point) % 101]),
  }));
  /** Sends `text` in pieces of `size` bytes, each written on its own turn of the event loop. */
  const inPieces = (text: string | Buffer, size: number, headers: Record<string, string> = {}): Answer => (response) => {
    const bytes = Buffer.from(text);
    response.writeHead(200, { 'Content-Type': 'application/json', ...headers });
    let at = 0;
    const next = (): void => {
      if (at >= bytes.length) {
        response.end();
        return;
      }
      response.write(bytes.subarray(at, at + size));
      at += size;
      setImmediate(next);
    };
    next();
  };

  it('reads a range answer sent in small pieces, plain or gzip, as one sent whole', async () => {
    const text = JSON.stringify(matrix(200, 30));
    for (const answer of [inPieces(text, 997), inPieces(gzipSync(text), 501, { 'Content-Encoding': 'gzip' })]) {
      const server = await scriptedServer([answer]);
      const prometheus = client(server.url);
      expect(await prometheus.range('q', 0, 60_000, 60)).toEqual(expected(200, 30));
      expect(prometheus.stats.jsonBytes).toBe(Buffer.byteLength(text));
    }
  });

  it('keeps only the series of the attempt that completed when a body is cut short mid-series', async () => {
    const text = JSON.stringify(matrix(50, 10));
    const cut: Answer = (response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(text.length) });
      response.write(text.slice(0, Math.floor(text.length * 0.6)));
      setImmediate(() => response.destroy());
    };
    const server = await scriptedServer([cut, json(200, matrix(50, 10))]);
    const prometheus = client(server.url);
    expect(await prometheus.range('q', 0, 60_000, 60)).toEqual(expected(50, 10));
    expect(server.seen).toHaveLength(2);
  });

  it('names the series that is not JSON, and does not ask again', async () => {
    const text = JSON.stringify(matrix(2, 1)).replace('"values":[[1793664000,"1"]]', '"values":[[1793664000,"1"]x]');
    const server = await scriptedServer([inPieces(text, 64)]);
    const error = await upstreamError(client(server.url).range('q', 0, 60_000, 60));
    expect(error.message).toMatch(/^not a Prometheus API answer \(not valid JSON at line 1, column \d+ \(data\.result\[1\]\): /u);
    expect(server.seen).toHaveLength(1);
  });

  it('leaves out a series past a label cap and counts it; an answer of more series than the cap ends the audit, unasked again', async () => {
    const caps = { labelsPerSeries: 3, labelValueChars: 8, seriesPerAnswer: 3 };
    const document = matrix(3, 2) as { data: { result: { metric: Record<string, string> }[] } };
    document.data.result[1]!.metric.pod = 'trainer-0123';
    Object.assign(document.data.result[2]!.metric, { pod: 'x', team: 'y' });
    const server = await scriptedServer([json(200, document), json(200, matrix(4, 1))]);
    const prometheus = client(server.url, { inputLimits: caps });
    expect(await prometheus.range('q', 0, 60_000, 60)).toEqual(expected(1, 2));
    expect(prometheus.skippedSeries).toEqual({ count: 2, first: 'label pod has a value of 12 characters (at most 8 are read; --input-limit label-chars=N reads more)' });
    const error = await upstreamError(prometheus.range('q', 0, 60_000, 60));
    expect(error.message).toBe('the answer holds more than 3 series: narrow the GPUs (--selector) or read more with --input-limit series=N');
    expect(server.seen).toHaveLength(2);
  });

  it('still reads an error answer whole, for the engine\'s message', async () => {
    const server = await scriptedServer([json(422, { status: 'error', errorType: 'execution', error: 'query processing would load too many samples into memory in query execution' })]);
    const error = await upstreamError(client(server.url).range('q', 0, 60_000, 60));
    expect(error).toBeInstanceOf(QueryLimitError);
  });
});

/**
 * One HTTP exchange with the Prometheus server: POST a form (queries can be long: POST keeps
 * them out of URL length limits) or GET with the form as the query string (endpoints that
 * only take GET, such as label values in Prometheus 2.42), read the whole body, with a
 * deadline on the whole exchange. gzip is asked for (Prometheus compresses its API answers):
 * `wireBytes` is what crossed the network, `body` the decoded text.
 */
import http from 'node:http';
import https from 'node:https';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { PrometheusConnection } from './auth.js';

const gunzipAsync = promisify(gunzip);

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  wireBytes: number;
}

/** A failure below HTTP (refused, reset, DNS, TLS, deadline); always worth another try. */
export class TransportError extends Error {
  constructor(message: string, readonly code: string | undefined) {
    super(message);
    this.name = 'TransportError';
  }
}

export function sendForm(
  connection: PrometheusConnection, method: 'GET' | 'POST', path: string, form: URLSearchParams, timeoutMs: number, signal?: AbortSignal,
): Promise<HttpAnswer> {
  const url = new URL(connection.baseUrl.pathname.replace(/\/+$/, '') + path, connection.baseUrl);
  if (method === 'GET') url.search = form.toString();
  const payload = Buffer.from(method === 'POST' ? form.toString() : '');
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(url, {
      method,
      headers: {
        ...connection.headers,
        ...(method === 'POST' ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(payload.length) } : {}),
        'Accept-Encoding': 'gzip',
        Accept: 'application/json',
      },
      ...(connection.ca === undefined ? {} : { ca: connection.ca }),
      ...(signal === undefined ? {} : { signal }),
    });
    const deadline = setTimeout(() => {
      request.destroy(new TransportError(`no complete answer within ${timeoutMs / 1000} s`, 'TIMEOUT'));
    }, timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(deadline);
      const code = (error as NodeJS.ErrnoException).code;
      reject(error instanceof TransportError ? error : new TransportError(code === undefined ? error.message : `${code}: ${error.message}`, code));
    };
    request.on('error', fail);
    request.on('response', (response) => {
      const parts: Buffer[] = [];
      let wireBytes = 0;
      response.on('data', (part: Buffer) => {
        parts.push(part);
        wireBytes += part.length;
      });
      response.on('error', fail);
      response.on('end', () => {
        const raw = Buffer.concat(parts);
        const decoded = response.headers['content-encoding'] === 'gzip' ? gunzipAsync(raw) : Promise.resolve(raw);
        decoded.then(
          (body) => {
            clearTimeout(deadline);
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: body.toString('utf8'), wireBytes });
          },
          (error: Error) => fail(new TransportError(`the gzip answer is corrupt: ${error.message}`, 'BAD_GZIP')),
        );
      });
    });
    request.end(method === 'POST' ? payload : undefined);
  });
}

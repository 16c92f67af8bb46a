/**
 * One HTTP exchange with the Prometheus server: POST a form (queries can be long: POST keeps
 * them out of URL length limits) or GET with the form as the query string (endpoints that
 * only take GET, such as label values in Prometheus 2.42), with a deadline on the whole
 * exchange. gzip is asked for (Prometheus compresses its API answers): `wireBytes` is what
 * crossed the network, `textBytes` the decoded text. The body is read whole into `body`, or,
 * where the caller gives a receiver for the answer's status, handed to it piece by piece as it
 * is decoded and never held (`body` is then empty).
 */
import buffer from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { PrometheusConnection } from './auth.js';

const gunzipAsync = promisify(gunzip);

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  wireBytes: number;
  textBytes: number;
}

/**
 * Whether to stream the body of an answer of `status`, and where to: a function given each
 * decoded piece (an error it throws ends the exchange with that error, not a TransportError),
 * or undefined to have the body read whole.
 */
export type BodyReceiver = (status: number) => ((text: string) => void) | undefined;

/**
 * A failure below HTTP (refused, reset, DNS, deadline, truncated body): worth another try,
 * unless `final` (a certificate the client does not trust stays untrusted however often asked).
 */
export class TransportError extends Error {
  constructor(message: string, readonly code: string | undefined, readonly final = false) {
    super(message);
    this.name = 'TransportError';
  }
}

/** Node's codes for a server certificate that fails verification, with what to do about it. */
const CERTIFICATE_HINT = 'the server\'s TLS certificate is not trusted: set GPU_AUDIT_PROMETHEUS_CA_FILE (or pass --prometheus-ca-file) to the PEM file of the CA that signed it';
/** OpenSSL's alerts when the server wants a client certificate it did not get, or did not accept. */
const CLIENT_CERTIFICATE_HINT = 'the server refused the TLS handshake for want of an accepted client certificate: pass --prometheus-client-cert and --prometheus-client-key';
const CLIENT_CERTIFICATE_CODES = new Set([
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
]);
const UNTRUSTED_CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function transportError(error: Error): TransportError {
  if (error instanceof TransportError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && UNTRUSTED_CERTIFICATE_CODES.has(code)) return new TransportError(`${code}: ${error.message}; ${CERTIFICATE_HINT}`, code, true);
  if (code !== undefined && CLIENT_CERTIFICATE_CODES.has(code)) return new TransportError(`${code}: ${error.message.trim()}; ${CLIENT_CERTIFICATE_HINT}`, code, true);
  // A body cut short (Content-Length not reached, a chunk never finished) ends as ECONNRESET "aborted".
  return new TransportError(code === undefined ? error.message : `${code}: ${error.message}`, code);
}

/** What an answer that passes the cap is told: final, for asking again gets the same answer. */
function tooLarge(maxBytes: number): TransportError {
  return new TransportError(
    `the answer passed ${Math.round(maxBytes / 1048576)} MiB (--prometheus-max-answer-mib): narrow the window (--since, --until), the GPUs (--selector), or raise the cap`,
    'ANSWER_TOO_LARGE', true,
  );
}

/**
 * `maxBytes` bounds both the bytes received and the text they decode to: an answer past it is
 * refused as it arrives (the request is dropped), never held whole.
 */
export async function sendForm(
  connection: PrometheusConnection, method: 'GET' | 'POST', path: string, form: URLSearchParams, timeoutMs: number, signal?: AbortSignal, maxBytes = Number.MAX_SAFE_INTEGER,
  receiver?: BodyReceiver,
): Promise<HttpAnswer> {
  const url = new URL(connection.baseUrl.pathname.replace(/\/+$/, '') + path, connection.baseUrl);
  if (method === 'GET') url.search = form.toString();
  const body = method === 'POST' ? form.toString() : '';
  const payload = Buffer.from(body);
  const transport = url.protocol === 'https:' ? https : http;
  const unsigned = {
    ...connection.headers,
    ...(method === 'POST' ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(payload.length) } : {}),
    'Accept-Encoding': 'gzip',
    Accept: 'application/json',
  };
  const headers = connection.sign === undefined ? unsigned : await connection.sign({ method, url, headers: unsigned, body });
  return new Promise((resolve, reject) => {
    const request = transport.request(url, {
      method,
      headers,
      ...(connection.ca === undefined ? {} : { ca: connection.ca }),
      ...(connection.clientCertificate === undefined ? {} : connection.clientCertificate),
      ...(connection.insecureSkipVerify === true ? { rejectUnauthorized: false } : {}),
      ...(connection.lookup === undefined ? {} : { lookup: connection.lookup }),
      ...(signal === undefined ? {} : { signal }),
    });
    const deadline = setTimeout(() => {
      request.destroy(new TransportError(`no complete answer within ${timeoutMs / 1000} s`, 'TIMEOUT'));
    }, timeoutMs);
    let settled = false;
    const fail = (error: Error): void => {
      clearTimeout(deadline);
      if (settled) return;
      settled = true;
      reject(receiverErrors.has(error) ? error : transportError(error));
    };
    /** Errors the receiver threw: the caller's own, passed on as they are. */
    const receiverErrors = new WeakSet<Error>();
    request.on('error', fail);
    request.on('response', (response) => {
      const receive = receiver?.(response.statusCode ?? 0);
      if (receive !== undefined) {
        streamBody(response, receive);
        return;
      }
      const parts: Buffer[] = [];
      let wireBytes = 0;
      response.on('data', (part: Buffer) => {
        wireBytes += part.length;
        if (wireBytes > maxBytes) {
          parts.length = 0;
          request.destroy(tooLarge(maxBytes));
          return;
        }
        parts.push(part);
      });
      response.on('error', fail);
      response.on('end', () => {
        const raw = Buffer.concat(parts);
        const decoded = response.headers['content-encoding'] === 'gzip' ? gunzipAsync(raw, { maxOutputLength: Math.min(maxBytes, buffer.constants.MAX_LENGTH) }) : Promise.resolve(raw);
        decoded.then(
          (body) => {
            clearTimeout(deadline);
            settled = true;
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: body.toString('utf8'), wireBytes, textBytes: body.length });
          },
          (error: Error & { code?: string }) => fail(error.code === 'ERR_BUFFER_TOO_LARGE' ? tooLarge(maxBytes) : new TransportError(`the gzip answer is corrupt: ${error.message}`, 'BAD_GZIP')),
        );
      });
    });
    /** The body decoded as it arrives, each piece handed to `receive`; bytes and text counted against `maxBytes`. */
    function streamBody(response: http.IncomingMessage, receive: (text: string) => void): void {
      let wireBytes = 0;
      let textBytes = 0;
      const decoder = new StringDecoder('utf8');
      const gzipped = response.headers['content-encoding'] === 'gzip';
      const gunzipper = gzipped ? createGunzip() : undefined;
      /** Set once the exchange is dropped: pieces still on their way are not handed over. */
      let stopped = false;
      const stop = (error: Error): void => {
        stopped = true;
        gunzipper?.destroy();
        // Settled here: once the response has ended, destroying the request emits nothing.
        fail(error);
        request.destroy();
      };
      const deliver = (text: string): void => {
        if (stopped || settled || text === '') return;
        try {
          receive(text);
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          receiverErrors.add(failure);
          stop(failure);
        }
      };
      const decoded = (part: Buffer): void => {
        textBytes += part.length;
        if (textBytes > maxBytes) {
          stop(tooLarge(maxBytes));
          return;
        }
        deliver(decoder.write(part));
      };
      const finish = (): void => {
        deliver(decoder.end());
        if (stopped || settled) return;
        clearTimeout(deadline);
        settled = true;
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: '', wireBytes, textBytes });
      };
      response.on('data', (part: Buffer) => {
        if (stopped) return;
        wireBytes += part.length;
        if (wireBytes > maxBytes) {
          stop(tooLarge(maxBytes));
          return;
        }
        if (gunzipper === undefined) decoded(part);
        else gunzipper.write(part);
      });
      response.on('error', fail);
      if (gunzipper === undefined) {
        response.on('end', finish);
        return;
      }
      gunzipper.on('data', decoded);
      gunzipper.on('error', (error: Error) => fail(new TransportError(`the gzip answer is corrupt: ${error.message}`, 'BAD_GZIP')));
      gunzipper.on('end', finish);
      response.on('end', () => gunzipper.end());
    }

    request.end(method === 'POST' ? payload : undefined);
  });
}

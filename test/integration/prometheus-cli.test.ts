/**
 * `audit --prometheus` usage and upstream failures through the CLI's one error handler:
 * exit 2 for bad usage (before any request), exit 3 naming the URL for an unreachable server,
 * and never a credential in the output.
 */
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { freePort } from '../helpers/prometheus-server.js';
import { localhostCertificate } from '../replay/tls.js';

const CANARY = 'canary-5b0d2e77-do-not-print';

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number; output: string }> {
  const chunks: string[] = [];
  const io: CliIo = {
    stdout: (text) => chunks.push(text),
    stderr: (text) => chunks.push(text),
    stdoutIsTty: false,
    stderrIsTty: false,
    env: { NO_COLOR: '1', ...env },
    stdin: Readable.from([]),
  };
  const status = await runCli(args, io);
  return { status, output: chunks.join('') };
}

describe('audit --prometheus on the command line', () => {
  it('exits 3 naming the URL, without credentials, when nothing answers', async () => {
    const port = await freePort();
    const run = await cli(
      ['audit', '--prometheus', `http://gpu:${CANARY}@127.0.0.1:${port}/`, '--since', '1h', '--debug'],
      { GPU_AUDIT_PROMETHEUS_TOKEN: CANARY, GPU_AUDIT_PROMETHEUS_HEADERS: `X-Api-Key: ${CANARY}` },
    );
    expect(run.status).toBe(3);
    expect(run.output).toContain(`gpu-audit: http://127.0.0.1:${port}/api/v1/label/__name__/values: no answer after 4 attempts: ECONNREFUSED`);
    expect(run.output).not.toContain(CANARY);
  }, 20_000);

  it.each([
    [['--selector', 'namespace="ml"'], /--selector "namespace=\\"ml\\"": not in braces/],
    [['--selector', '{namespace="ml"} or vector(1)'], /--selector/],
    [['--since', 'yesterday'], /--since "yesterday": expected a duration/],
    [['--step', '5 minutes'], /--step.*expected a duration/],
    [['--prometheus-concurrency', '0'], /expected a whole number of at least 1/],
    [['node.xml'], /--prometheus takes no sources and no --demo/],
    [['--demo'], /--prometheus takes no sources and no --demo/],
  ])('refuses %j with exit 2 before any request', async (extra, message) => {
    // Nothing listens on this port: a request would end in exit 3, not 2.
    const port = await freePort();
    const run = await cli(['audit', '--prometheus', `http://127.0.0.1:${port}`, ...extra]);
    expect(run.status).toBe(2);
    expect(run.output).toMatch(message);
  });

  it('refuses a URL that is not http(s)', async () => {
    const run = await cli(['audit', '--prometheus', 'prometheus:9090']);
    expect(run.status).toBe(2);
    expect(run.output).toContain('--prometheus: expected an http:// or https:// URL, not prometheus:');
  });
});

describe('audit --prometheus against a failing server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function listen(server: http.Server | https.Server): Promise<number> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return (server.address() as { port: number }).port;
  }

  it('gives up within the documented bound on a server that always answers 503 (exit 3)', async () => {
    let requests = 0;
    const port = await listen(http.createServer((_request, response) => {
      requests += 1;
      response.writeHead(503, { 'Content-Type': 'text/plain' });
      response.end('upstream connect error');
    }));
    const started = Date.now();
    const run = await cli(['audit', '--prometheus', `http://127.0.0.1:${port}`, '--since', '1h']);
    const elapsedMs = Date.now() - started;
    expect(run.status).toBe(3);
    expect(run.output).toContain(`gpu-audit: http://127.0.0.1:${port}/api/v1/label/__name__/values (HTTP 503): no answer after 4 attempts: HTTP 503`);
    expect(requests).toBe(4);
    // README: at most 4 attempts and 0.5 + 1 + 2 = 3.5 s of backoff per request; the first
    // request that gives up ends the audit. 10 s leaves room for a slow machine.
    expect(elapsedMs).toBeLessThan(10_000);
  }, 20_000);

  it('exits 3 naming the endpoint and GPU_AUDIT_PROMETHEUS_CA_FILE when the certificate is not trusted, and runs with it', async () => {
    const { key, cert } = localhostCertificate();
    let requests = 0;
    // Answers no series: past the TLS handshake the audit ends with exit 2 ("no dcgm-exporter GPU series").
    const port = await listen(https.createServer({ key, cert }, (_request, response) => {
      requests += 1;
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ status: 'success', data: [] }));
    }));
    const url = `https://127.0.0.1:${port}`;
    const untrusted = await cli(['audit', '--prometheus', url, '--since', '1h']);
    expect(untrusted.status).toBe(3);
    expect(untrusted.output).toContain(`gpu-audit: ${url}/api/v1/label/__name__/values: DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate; ` +
      'the server\'s TLS certificate is not trusted: set GPU_AUDIT_PROMETHEUS_CA_FILE (or pass --prometheus-ca-file)');
    expect(requests).toBe(0);

    const directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-ca-'));
    try {
      const caFile = path.join(directory, 'ca.pem');
      writeFileSync(caFile, cert);
      const trusted = await cli(['audit', '--prometheus', url, '--since', '1h'], { GPU_AUDIT_PROMETHEUS_CA_FILE: caFile });
      expect(trusted.output).toContain('no dcgm-exporter GPU series');
      expect(trusted.status).toBe(2);
      expect(requests).toBe(1);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 20_000);
});

describe('audit --prometheus connection flags', () => {
  /** An https server that answers no series and keeps what each request carried. */
  async function recordingServer(options: https.ServerOptions): Promise<{ url: string; seen: { headers: http.IncomingHttpHeaders; body: string }[]; close: () => void }> {
    const seen: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = https.createServer(options, (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      request.on('end', () => {
        seen.push({ headers: request.headers, body: `${request.url ?? ''} ${body}` });
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ status: 'success', data: [] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    return { url: `https://127.0.0.1:${port}`, seen, close: () => { server.closeAllConnections(); server.close(); } };
  }

  function tlsFiles(): { directory: string; ca: string; cert: string; key: string } {
    const { key, cert } = localhostCertificate();
    const directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-tls-flags-'));
    const files = { directory, ca: path.join(directory, 'ca.pem'), cert: path.join(directory, 'client.pem'), key: path.join(directory, 'client-key.pem') };
    writeFileSync(files.ca, cert);
    writeFileSync(files.cert, cert);
    writeFileSync(files.key, key);
    return files;
  }

  it('presents a client certificate to a server that requires one (mTLS), and says what to pass when it is missing', async () => {
    const { key, cert } = localhostCertificate();
    // The self-signed certificate is the client's too: the server trusts it as its own CA.
    const server = await recordingServer({ key, cert, ca: cert, requestCert: true, rejectUnauthorized: true });
    const files = tlsFiles();
    try {
      const started = Date.now();
      const refused = await cli(['audit', '--prometheus', server.url, '--since', '1h', '--prometheus-ca-file', files.ca]);
      expect(refused.status).toBe(3);
      expect(refused.output).toMatch(/: ERR_SSL_\w+: .*; the server refused the TLS handshake for want of an accepted client certificate: pass --prometheus-client-cert and --prometheus-client-key\n/u);
      expect(Date.now() - started).toBeLessThan(3_000); // not retried: a missing certificate does not appear on retry
      const run = await cli(['audit', '--prometheus', server.url, '--since', '1h', '--prometheus-ca-file', files.ca, '--prometheus-client-cert', files.cert, '--prometheus-client-key', files.key]);
      expect(run.output).toContain('no dcgm-exporter GPU series');
      expect(run.status).toBe(2);
      expect(server.seen).toHaveLength(1);
    } finally {
      server.close();
      rmSync(files.directory, { recursive: true, force: true });
    }
  }, 20_000);

  it('sends every --prometheus-header, a flag winning over the variable, and the cluster matcher in every query', async () => {
    const { key, cert } = localhostCertificate();
    const server = await recordingServer({ key, cert });
    const files = tlsFiles();
    try {
      const run = await cli(
        ['audit', '--prometheus', server.url, '--since', '1h', '--prometheus-ca-file', files.ca, '--prometheus-header', 'X-Scope-OrgID: team-b', '--prometheus-header', 'X-Extra: 1', '--prometheus-cluster-label', 'prod'],
        { GPU_AUDIT_PROMETHEUS_HEADERS: 'X-Scope-OrgID: team-a' },
      );
      expect(run.status).toBe(2);
      expect(server.seen[0]!.headers['x-scope-orgid']).toBe('team-b');
      expect(server.seen[0]!.headers['x-extra']).toBe('1');
      expect(decodeURIComponent(server.seen[0]!.body)).toContain('cluster="prod"');
    } finally {
      server.close();
      rmSync(files.directory, { recursive: true, force: true });
    }
  }, 20_000);

  it('with --prometheus-insecure-skip-verify, accepts an untrusted certificate and warns that it does', async () => {
    const { key, cert } = localhostCertificate();
    const server = await recordingServer({ key, cert });
    try {
      const run = await cli(['audit', '--prometheus', server.url, '--since', '1h', '--prometheus-insecure-skip-verify']);
      expect(run.output).toContain('gpu-audit: warning: --prometheus-insecure-skip-verify: the server\'s certificate is not checked');
      expect(run.output).toContain('no dcgm-exporter GPU series');
      expect(run.status).toBe(2);
    } finally {
      server.close();
    }
  }, 20_000);

  it.each([
    [['--prometheus-client-cert', 'client.pem'], /--prometheus-client-cert and --prometheus-client-key go together/],
    [['--prometheus-header', 'no colon'], /--prometheus-header: expected `Name: value`/],
    [['--prometheus-cluster-label', 'bad-label=x'], /--prometheus-cluster-label "bad-label=x": expected a cluster name/],
    [['--prometheus-ca-file', 'missing-ca.pem'], /missing-ca\.pem: cannot read the --prometheus-ca-file: ENOENT/],
  ])('refuses %j with exit 2 before any request', async (extra, message) => {
    const port = await freePort();
    const run = await cli(['audit', '--prometheus', `http://127.0.0.1:${port}`, ...extra]);
    expect(run.status).toBe(2);
    expect(run.output).toMatch(message);
  });
});

/**
 * AWS Signature Version 4 recomputed from the request as the server received it, by the
 * published algorithm (canonical request, string to sign, the HMAC chain of the signing key):
 * an oracle apart from the signer under test.
 */
function verifySigV4(request: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }, secret: string): { scope: string; signedHeaders: string[]; valid: boolean } {
  const auth = /^AWS4-HMAC-SHA256 Credential=[^/]+\/([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/u.exec(String(request.headers.authorization));
  if (auth === null) return { scope: '', signedHeaders: [], valid: false };
  const [, scope, signed, signature] = auth as unknown as [string, string, string, string];
  const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
  const encode = (text: string): string => encodeURIComponent(text).replace(/[!'()*]/gu, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const url = new URL(request.url, 'http://placeholder');
  const query = [...url.searchParams].map(([name, value]) => `${encode(name)}=${encode(value)}`).sort().join('&');
  const signedHeaders = signed.split(';');
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${String(request.headers[name]).trim().replace(/\s+/gu, ' ')}\n`).join('');
  const canonical = [request.method, url.pathname, query, canonicalHeaders, signed, sha256(request.body)].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', String(request.headers['x-amz-date']), scope, sha256(canonical)].join('\n');
  const key = scope.split('/').reduce<Buffer | string>((previous, part) => createHmac('sha256', previous).update(part).digest(), `AWS4${secret}`);
  return { scope, signedHeaders, valid: createHmac('sha256', key).update(stringToSign).digest('hex') === signature };
}

describe('audit --prometheus-sigv4 (Amazon Managed Service for Prometheus)', () => {
  const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';

  it('signs every request as AWS verifies it: service aps, the region given, the body, the query and the headers sent', async () => {
    const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      request.on('end', () => {
        seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
        // One metric exists, so the queries (POSTed, their bodies signed) follow; none finds a series.
        const data = (request.url ?? '').includes('/label/') ? ['DCGM_FI_DEV_GPU_UTIL']
          : { resultType: (request.url ?? '').includes('query_range') ? 'matrix' : 'vector', result: [] };
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ status: 'success', data }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/workspaces/ws-0123`;
      const run = await cli(['audit', '--prometheus', url, '--since', '1h', '--prometheus-sigv4', 'eu-west-1'], {
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: SECRET, AWS_SESSION_TOKEN: 'session-token-example',
      });
      // The answers are empty, so the audit ends (2 or 3, as the first empty answer decides); what counts is how each request was signed.
      expect([2, 3]).toContain(run.status);
      expect(seen.length).toBeGreaterThan(1);
      for (const request of seen) {
        const verified = verifySigV4(request, SECRET);
        expect(verified.valid, `${request.method} ${request.url}`).toBe(true);
        expect(verified.scope).toMatch(/^\d{8}\/eu-west-1\/aps\/aws4_request$/u);
        expect(verified.signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token']));
        expect(request.headers['x-amz-security-token']).toBe('session-token-example');
        expect(request.url.startsWith('/workspaces/ws-0123/api/v1/')).toBe(true);
      }
      // The oracle tells a wrong key apart, and the POSTed queries (their bodies signed) were among the requests.
      expect(verifySigV4(seen[0]!, 'not-the-secret').valid).toBe(false);
      expect(seen.some((request) => request.method === 'POST' && request.body.includes('query='))).toBe(true);
      expect(run.output).not.toContain(SECRET);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 20_000);

  it('refuses other credentials beside the signature, before any request', async () => {
    const port = await freePort();
    const run = await cli(['audit', '--prometheus', `http://127.0.0.1:${port}`, '--since', '1h', '--prometheus-sigv4', 'us-east-1'], {
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: SECRET, GPU_AUDIT_PROMETHEUS_TOKEN: CANARY,
    });
    expect(run.status).toBe(2);
    expect(run.output).toContain('--prometheus-sigv4 signs every request itself: drop the other credentials');
    expect(run.output).not.toContain(CANARY);
  });
});


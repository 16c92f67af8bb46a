/**
 * How to reach the Prometheus server: the base URL and the credentials, taken from the
 * environment so they never appear in shell history, process lists or the report.
 *
 *   GPU_AUDIT_PROMETHEUS_TOKEN      bearer token (Authorization: Bearer ...)
 *   GPU_AUDIT_PROMETHEUS_USER       basic auth user, with GPU_AUDIT_PROMETHEUS_PASSWORD
 *   GPU_AUDIT_PROMETHEUS_HEADERS    extra headers, one `Name: value` per line (X-Scope-OrgID for Mimir)
 *   GPU_AUDIT_PROMETHEUS_CA_FILE    PEM file of the CA that signed the server's certificate
 *
 * Credentials in the URL (`https://user:pass@host`) are taken as basic auth and removed from
 * the URL. `displayUrl` is the URL as messages may show it: never with credentials.
 */
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { InputError } from '../../../support/index.js';

export interface PrometheusConnection {
  /** Base URL without credentials, without a trailing slash (`https://prom.example/prometheus`). */
  baseUrl: URL;
  displayUrl: string;
  /** Headers sent with every request; values may be secret: never print them. */
  headers: Readonly<Record<string, string>>;
  /** PEM text of extra trusted CAs, for https. */
  ca?: string;
  /** Host name resolution (node:dns lookup by default); tests inject a failing one instead of asking a DNS server. */
  lookup?: LookupFunction;
}

export const PROMETHEUS_ENV = {
  token: 'GPU_AUDIT_PROMETHEUS_TOKEN',
  user: 'GPU_AUDIT_PROMETHEUS_USER',
  password: 'GPU_AUDIT_PROMETHEUS_PASSWORD',
  headers: 'GPU_AUDIT_PROMETHEUS_HEADERS',
  caFile: 'GPU_AUDIT_PROMETHEUS_CA_FILE',
} as const;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseHeaderLines(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    // The value is never echoed: it may be a credential.
    if (!HEADER_NAME.test(name)) {
      throw new InputError(`line ${index + 1} is not \`Name: value\``, { file: PROMETHEUS_ENV.headers });
    }
    headers[name] = line.slice(colon + 1).trim();
  });
  return headers;
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function prometheusConnection(url: string, env: NodeJS.ProcessEnv): PrometheusConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(`--prometheus ${JSON.stringify(url.replace(/\/\/[^/@]*@/, '//***@'))}: not a URL (expected http://host:9090)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InputError(`--prometheus: expected an http:// or https:// URL, not ${parsed.protocol}`);
  }
  const headers: Record<string, string> = {};
  if (parsed.username !== '') headers.Authorization = basic(decodeURIComponent(parsed.username), decodeURIComponent(parsed.password));
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  parsed.pathname = parsed.pathname.replace(/\/+$/, '');

  const token = env[PROMETHEUS_ENV.token];
  const user = env[PROMETHEUS_ENV.user];
  if (token !== undefined && token !== '') headers.Authorization = `Bearer ${token}`;
  else if (user !== undefined && user !== '') headers.Authorization = basic(user, env[PROMETHEUS_ENV.password] ?? '');
  const extra = env[PROMETHEUS_ENV.headers];
  if (extra !== undefined) Object.assign(headers, parseHeaderLines(extra));

  const connection: PrometheusConnection = { baseUrl: parsed, displayUrl: parsed.href.replace(/\/$/, ''), headers };
  const caFile = env[PROMETHEUS_ENV.caFile];
  if (caFile !== undefined && caFile !== '') {
    try {
      connection.ca = readFileSync(caFile, 'utf8');
    } catch (error) {
      throw new InputError(`cannot read the CA file named by ${PROMETHEUS_ENV.caFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { file: caFile, cause: error });
    }
  }
  return connection;
}

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
 *
 * The same settings come as flags too (`--prometheus-header`, `--prometheus-ca-file`,
 * `--prometheus-client-cert`/`--prometheus-client-key` for mTLS, `--prometheus-insecure-skip-verify`):
 * a flag wins over its variable, a header flag over the header of the same name. A secret
 * is better kept in a variable: a flag shows in the process list and the shell history.
 */
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { InputError } from '../../../support/index.js';
import type { RequestSigner } from './sigv4.js';

export interface PrometheusConnection {
  /** Base URL without credentials, without a trailing slash (`https://prom.example/prometheus`). */
  baseUrl: URL;
  displayUrl: string;
  /** Headers sent with every request; values may be secret: never print them. */
  headers: Readonly<Record<string, string>>;
  /** PEM text of extra trusted CAs, for https. */
  ca?: string;
  /** PEM client certificate and key, for servers that ask for one (mTLS). */
  clientCertificate?: { cert: string; key: string };
  /** Accept any server certificate (--prometheus-insecure-skip-verify): the connection is encrypted but not authenticated. */
  insecureSkipVerify?: boolean;
  /** Signs each request as sent (--prometheus-sigv4, ./sigv4.ts): the headers to send instead of `headers`. */
  sign?: RequestSigner;
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

/** `Name: value` as a [name, value] pair, or undefined when it is not one. */
function headerLine(line: string): [string, string] | undefined {
  const colon = line.indexOf(':');
  const name = colon < 0 ? '' : line.slice(0, colon).trim();
  return HEADER_NAME.test(name) ? [name, line.slice(colon + 1).trim()] : undefined;
}

function parseHeaderLines(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const header = headerLine(line);
    // The value is never echoed: it may be a credential.
    if (header === undefined) throw new InputError(`line ${index + 1} is not \`Name: value\``, { file: PROMETHEUS_ENV.headers });
    headers[header[0]] = header[1];
  });
  return headers;
}

/** The connection flags of `audit --prometheus` (src/cli/options.ts), each over its variable. */
export interface PrometheusConnectionFlags {
  /** `--prometheus-header 'Name: value'`, repeatable. */
  headers?: readonly string[];
  caFile?: string;
  clientCertFile?: string;
  clientKeyFile?: string;
  insecureSkipVerify?: boolean;
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { file, cause: error });
  }
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function prometheusConnection(url: string, env: NodeJS.ProcessEnv, flags: PrometheusConnectionFlags = {}): PrometheusConnection {
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
  for (const line of flags.headers ?? []) {
    const header = headerLine(line);
    if (header === undefined) throw new InputError('--prometheus-header: expected `Name: value` (e.g. \'X-Scope-OrgID: team-a\')');
    headers[header[0]] = header[1];
  }

  const connection: PrometheusConnection = { baseUrl: parsed, displayUrl: parsed.href.replace(/\/$/, ''), headers };
  const envCaFile = env[PROMETHEUS_ENV.caFile];
  if (flags.caFile !== undefined) connection.ca = readPem(flags.caFile, 'the --prometheus-ca-file');
  else if (envCaFile !== undefined && envCaFile !== '') connection.ca = readPem(envCaFile, `the CA file named by ${PROMETHEUS_ENV.caFile}`);
  if ((flags.clientCertFile === undefined) !== (flags.clientKeyFile === undefined)) {
    throw new InputError('--prometheus-client-cert and --prometheus-client-key go together: the certificate and its private key');
  }
  if (flags.clientCertFile !== undefined && flags.clientKeyFile !== undefined) {
    connection.clientCertificate = { cert: readPem(flags.clientCertFile, 'the --prometheus-client-cert'), key: readPem(flags.clientKeyFile, 'the --prometheus-client-key') };
  }
  if (flags.insecureSkipVerify === true) {
    if (parsed.protocol !== 'https:') throw new InputError('--prometheus-insecure-skip-verify applies to an https:// URL only');
    connection.insecureSkipVerify = true;
  }
  return connection;
}

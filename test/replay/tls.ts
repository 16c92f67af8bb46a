/**
 * A throwaway self-signed certificate for 127.0.0.1, made with openssl when the tests run
 * (no private key is committed). The Azure SDK's bearer-token policy refuses plain http, so
 * the ARM replay serves https and the refresh trusts this certificate via `trustedCa`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCertificate {
  key: string;
  cert: string;
}

let cached: TestCertificate | undefined;

export function localhostCertificate(): TestCertificate {
  if (cached !== undefined) return cached;
  const directory = mkdtempSync(path.join(tmpdir(), 'gpu-audit-tls-'));
  try {
    const keyPath = path.join(directory, 'key.pem');
    const certPath = path.join(directory, 'cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' });
    cached = { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
    return cached;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/support/errors.js';
import { prometheusConnection } from '../../../../src/sources/live/prometheus/auth.js';

const CANARY = 'canary-7f3e9c1d-secret';

describe('connection settings', () => {
  it('takes a bearer token from the environment', () => {
    const connection = prometheusConnection('https://prom.example/prometheus/', { GPU_AUDIT_PROMETHEUS_TOKEN: CANARY });
    expect(connection.headers.Authorization).toBe(`Bearer ${CANARY}`);
    expect(connection.displayUrl).toBe('https://prom.example/prometheus');
  });

  it('takes basic auth from the environment or the URL, and never shows it in the URL', () => {
    // base64("gpu:canary-7f3e9c1d-secret")
    const expected = `Basic ${Buffer.from(`gpu:${CANARY}`).toString('base64')}`;
    expect(prometheusConnection('http://prom:9090', { GPU_AUDIT_PROMETHEUS_USER: 'gpu', GPU_AUDIT_PROMETHEUS_PASSWORD: CANARY }).headers.Authorization).toBe(expected);
    const fromUrl = prometheusConnection(`http://gpu:${CANARY}@prom:9090/`, {});
    expect(fromUrl.headers.Authorization).toBe(expected);
    expect(fromUrl.displayUrl).toBe('http://prom:9090');
    expect(fromUrl.baseUrl.href).not.toContain(CANARY);
  });

  it('adds custom headers, one `Name: value` per line', () => {
    const connection = prometheusConnection('http://prom:9090', { GPU_AUDIT_PROMETHEUS_HEADERS: `X-Scope-OrgID: team-a\r\n\nX-Api-Key: ${CANARY}\n` });
    expect(connection.headers).toEqual({ 'X-Scope-OrgID': 'team-a', 'X-Api-Key': CANARY });
  });

  it('names a bad header line without echoing its value', () => {
    const error = (() => {
      try {
        prometheusConnection('http://prom:9090', { GPU_AUDIT_PROMETHEUS_HEADERS: `X-Ok: 1\n${CANARY}` });
      } catch (caught) {
        return caught as InputError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InputError);
    expect(error!.describe()).toBe('GPU_AUDIT_PROMETHEUS_HEADERS: line 2 is not `Name: value`');
  });

  it('reads the CA file, and says which file when it cannot', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-ca-'));
    const file = path.join(dir, 'ca.pem');
    writeFileSync(file, '-----BEGIN CERTIFICATE-----\n');
    expect(prometheusConnection('https://prom', { GPU_AUDIT_PROMETHEUS_CA_FILE: file }).ca).toBe('-----BEGIN CERTIFICATE-----\n');
    expect(() => prometheusConnection('https://prom', { GPU_AUDIT_PROMETHEUS_CA_FILE: path.join(dir, 'missing.pem') })).toThrow(/ENOENT/);
  });

  it('takes the connection flags over their variables: a header flag over the same header, the CA file flag over the variable', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-flags-'));
    const [flagCa, envCa, cert, key] = ['flag-ca.pem', 'env-ca.pem', 'cert.pem', 'key.pem'].map((name) => path.join(dir, name));
    writeFileSync(flagCa!, 'flag CA');
    writeFileSync(envCa!, 'env CA');
    writeFileSync(cert!, 'client cert');
    writeFileSync(key!, CANARY);
    const connection = prometheusConnection(
      'https://prom:9090',
      { GPU_AUDIT_PROMETHEUS_HEADERS: 'X-Scope-OrgID: team-a\nX-Other: kept', GPU_AUDIT_PROMETHEUS_CA_FILE: envCa! },
      { headers: ['X-Scope-OrgID: team-b'], caFile: flagCa!, clientCertFile: cert!, clientKeyFile: key!, insecureSkipVerify: true },
    );
    expect(connection.headers).toEqual({ 'X-Scope-OrgID': 'team-b', 'X-Other': 'kept' });
    expect(connection.ca).toBe('flag CA');
    expect(connection.clientCertificate).toEqual({ cert: 'client cert', key: CANARY });
    expect(connection.insecureSkipVerify).toBe(true);
  });

  it('refuses a client certificate without its key, and skip-verify on plain http', () => {
    expect(() => prometheusConnection('https://prom', {}, { clientCertFile: 'cert.pem' })).toThrow(/go together/);
    expect(() => prometheusConnection('http://prom', {}, { insecureSkipVerify: true })).toThrow(/applies to an https:\/\/ URL only/);
  });

  it('refuses what is not an http(s) URL, without echoing credentials', () => {
    expect(() => prometheusConnection('ftp://prom', {})).toThrow(/http:\/\/ or https:\/\//);
    expect(() => prometheusConnection(`//gpu:${CANARY}@`, {})).toThrow(InputError);
    try {
      prometheusConnection(`//gpu:${CANARY}@`, {});
    } catch (error) {
      expect((error as Error).message).not.toContain(CANARY);
    }
  });
});

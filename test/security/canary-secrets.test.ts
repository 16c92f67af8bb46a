/**
 * Credentials are never printed, logged, put in reports or in error messages (SECURITY.md).
 * Canary values are put where a user keeps credentials (the environment, the Prometheus URL,
 * the config file) and the built CLI is run through every output format and the main error
 * paths, with --debug (stack traces) where it fails; stdout, stderr and every written file
 * are searched for each canary.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkFormats, reportFormats } from '../../src/render/index.js';
import { runBuiltCli, type CliRun } from '../helpers/cli.js';

/** Distinct per variable, so a failure says which credential leaked. */
const CANARIES = {
  AWS_ACCESS_KEY_ID: 'AKIACANARY0000000001',
  AWS_SECRET_ACCESS_KEY: 'canary-aws-secret-7f3e9a1c5b',
  AWS_SESSION_TOKEN: 'canary-aws-session-2d8b4f6e0a',
  AZURE_CLIENT_SECRET: 'canary-azure-secret-9c1e3a5d7f',
  GPU_AUDIT_PROMETHEUS_TOKEN: 'canary-prom-token-4b6d8f0a2c',
  GPU_AUDIT_PROMETHEUS_PASSWORD: 'canary-prom-password-1a3c5e7b9d',
  GPU_AUDIT_PROMETHEUS_HEADERS: 'X-Scope-OrgID: canary-prom-header-8e0c2a4f6b',
} as const;
const URL_PASSWORD = 'canary-url-password-5f7b9d1e3a';
const CONFIG_SECRET = 'canary-config-secret-6a8c0e2b4d';

/** The secret parts only (a header's value, not its name). */
const SECRETS: readonly string[] = [
  ...Object.values(CANARIES).map((value) => value.replace(/^[^:]*: /, '')),
  URL_PASSWORD,
  CONFIG_SECRET,
];

const ENV: NodeJS.ProcessEnv = {
  ...CANARIES,
  GPU_AUDIT_PROMETHEUS_USER: 'canary-user',
  AZURE_CLIENT_ID: '00000000-0000-0000-0000-00000000c1d0',
  AZURE_TENANT_ID: '00000000-0000-0000-0000-00000000c1d1',
  AWS_REGION: 'us-east-1',
  AWS_EC2_METADATA_DISABLED: 'true', // no instance-role lookup: only the canary keys are in play
};

const dir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-canary-'));
const runs: { label: string; run: CliRun }[] = [];

function cli(label: string, args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const run = runBuiltCli(args, { env: { ...ENV, GPU_AUDIT_CACHE_DIR: path.join(dir, 'cache'), ...env } });
  runs.push({ label, run });
  return run;
}

function expectNoCanary(label: string, text: string): void {
  for (const secret of SECRETS) expect(text.includes(secret), `${label} shows ${secret}`).toBe(false);
}

/** A loopback port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('canary credentials never appear in any output', () => {
  let port = 0;
  beforeAll(async () => {
    port = await closedPort();
  });

  it('in every format of audit, report and check, on stdout and in -o files', () => {
    const saved = path.join(dir, 'report.json');
    expect(cli('audit json -o', ['audit', '--demo', '--format', 'json', '-o', saved]).status).toBe(0);
    for (const format of reportFormats) {
      expect(cli(`report ${format}`, ['report', saved, '--format', format]).status).toBe(0);
    }
    for (const format of checkFormats) {
      cli(`check ${format}`, ['check', '--demo', '--max-waste-pct', '10', '--format', format, '-o', path.join(dir, `check.${format}`)], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md') });
    }
    cli('audit table', ['audit', '--demo']);
    for (const { label, run } of runs) expectNoCanary(label, run.stdout + run.stderr);
    for (const file of readdirSync(dir).filter((name) => name !== 'cache')) expectNoCanary(file, readFileSync(path.join(dir, file), 'utf8'));
  }, 240_000);

  it('on the error paths: bad input, bad config, unreachable Prometheus, unreachable clouds', () => {
    const bad = path.join(dir, 'bad.xml');
    writeFileSync(bad, '<?xml version="1.0"?><nvidia_smi_log><gpu id="0"><fb_memory_usage>');
    const config = path.join(dir, 'gpu-audit.yaml');
    // A secret pasted into the config where it does not belong: the error names the key, not the value.
    writeFileSync(config, `prometheus:\n  password: ${CONFIG_SECRET}\ntoken: ${CONFIG_SECRET}\n`);
    const closed = `http://127.0.0.1:${port}`;
    const failing = [
      cli('bad input', ['audit', bad, '--debug']),
      cli('bad config', ['audit', '--demo', '--config', config, '--debug']),
      cli('prometheus refused', ['audit', '--prometheus', closed, '--prometheus-timeout', '2', '--debug']),
      cli('prometheus URL credentials', ['audit', '--prometheus', `http://canary-user:${URL_PASSWORD}@127.0.0.1:${port}`, '--prometheus-timeout', '2', '--debug']),
      cli('check prometheus', ['check', '--prometheus', closed, '--prometheus-timeout', '2', '--format', 'sarif', '--debug']),
      cli('aws refresh', ['catalog', 'refresh', '--aws', '--region', 'us-east-1', '--debug'], { GPU_AUDIT_AWS_ENDPOINT: closed, AWS_MAX_ATTEMPTS: '1' }),
      cli('azure refresh', ['catalog', 'refresh', '--azure', '--subscription', '00000000-0000-0000-0000-000000000000', '--location', 'eastus', '--debug'], {
        GPU_AUDIT_AZURE_ENDPOINT: closed,
        GPU_AUDIT_AZURE_PRICES_URL: `${closed}/api/retail/prices`,
        AZURE_AUTHORITY_HOST: `https://127.0.0.1:${port}`,
      }),
    ];
    for (const run of failing) expect(run.status, run.stderr).toBeGreaterThan(1); // 2 input, 3 upstream: each really failed
    for (const { label, run } of runs) expectNoCanary(label, run.stdout + run.stderr);
  }, 240_000);
});

/**
 * `gpu-audit catalog refresh` end to end, in process: the command, the real AWS and Azure SDK
 * clients, the replay servers and a temporary cache directory. Acceptance: a refresh through
 * the real clients writes the cache that later runs use (source and age change); an answer
 * cut off midway leaves the previous cache byte for byte.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { loadCatalog } from '../../src/catalog/index.js';
import { readNewestCache } from '../../src/catalog/cache.js';
import { addRefreshCommand, type RefreshCommandDeps } from '../../src/cli/commands/catalog-refresh.js';
import type { CliIo } from '../../src/cli/io.js';
import { InputError, UpstreamError } from '../../src/support/errors.js';
import { AWS_FAULT_REPLIES, awsHandlers } from '../replay/aws-service.js';
import { AZURE_FAULT_REPLIES, azureHandlers } from '../replay/azure-service.js';
import { ReplayServer } from '../replay/server.js';
import { awsScenario, azureScenario } from '../replay/scenarios.js';
import { localhostCertificate } from '../replay/tls.js';
import { corpusPath, repoRoot } from '../helpers/corpus.js';
import { runAudit } from '../../src/engine/run-audit.js';
import { AUDIT_DEFAULTS } from '../helpers/audit.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-000000000000';
const NOW = new Date('2026-11-30T08:00:00Z');

class StaticToken implements TokenCredential {
  constructor(private readonly token: string) {}
  async getToken(): Promise<AccessToken> {
    return { token: this.token, expiresOnTimestamp: Date.now() + 3_600_000 };
  }
}

interface CliRun {
  stdout: string;
  stderr: string;
  error: unknown;
}

let aws: ReplayServer;
let arm: ReplayServer;
let prices: ReplayServer;
let cacheDir: string;

beforeAll(async () => {
  aws = await ReplayServer.start({ handlers: awsHandlers(awsScenario({ maxPageSize: 25 })), faults: AWS_FAULT_REPLIES });
  const azure = azureScenario({ pricesPageSize: 2 });
  arm = await ReplayServer.start({ handlers: azureHandlers(azure), faults: AZURE_FAULT_REPLIES, tls: localhostCertificate() });
  prices = await ReplayServer.start({ handlers: azureHandlers(azure), faults: AZURE_FAULT_REPLIES });
});
afterAll(async () => {
  await Promise.all([aws.close(), arm.close(), prices.close()]);
});
beforeEach(() => {
  cacheDir = mkdtempSync(path.join(tmpdir(), 'gpu-audit-refresh-'));
});
afterEach(() => {
  for (const server of [aws, arm, prices]) {
    server.clearFaults();
    server.requests.length = 0;
  }
  vi.unstubAllEnvs();
  rmSync(cacheDir, { recursive: true, force: true });
});

function environment(): NodeJS.ProcessEnv {
  return {
    GPU_AUDIT_CACHE_DIR: cacheDir,
    GPU_AUDIT_AWS_ENDPOINT: aws.url,
    GPU_AUDIT_AZURE_ENDPOINT: arm.url,
    GPU_AUDIT_AZURE_PRICES_URL: `${prices.url}/api/retail/prices`,
    NO_COLOR: '1',
  };
}

const testDeps: RefreshCommandDeps = {
  awsCredentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
  azureCredential: new StaticToken('test-token'),
  azureTrustedCa: localhostCertificate().cert,
  now: () => NOW,
  awsMaxAttempts: 2,
};

/** `gpu-audit catalog refresh ARGS` in process; the error is what the top-level handler would get. */
async function refresh(args: string[], deps: RefreshCommandDeps = testDeps, env: NodeJS.ProcessEnv = environment()): Promise<CliRun> {
  const run: CliRun = { stdout: '', stderr: '', error: undefined };
  const io: CliIo = {
    stdout: (text) => { run.stdout += text; },
    stderr: (text) => { run.stderr += text; },
    stdoutIsTty: false, stderrIsTty: false, env, stdin: process.stdin,
  };
  const catalog = new Command('catalog').exitOverride();
  addRefreshCommand(catalog, io, deps);
  for (const command of catalog.commands) command.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  try {
    await catalog.parseAsync(['refresh', ...args], { from: 'user' });
  } catch (error) {
    run.error = error;
  }
  return run;
}

const cacheFile = (provider: string): string => path.join(cacheDir, `catalog-${provider}.json`);

describe('catalog refresh --aws', () => {
  it('fetches through the real SDK clients, writes the cache, and later runs use it', async () => {
    vi.stubEnv('GPU_AUDIT_CACHE_DIR', cacheDir);
    const before = await loadCatalog();
    expect(before.origin).toBe('bundled');
    const auditOf = async () =>
      (await runAudit({ inputs: [corpusPath('nvidia-smi-xml', 'telegraf-tesla-t4.xml')], ...AUDIT_DEFAULTS })).report.catalog;
    expect(await auditOf()).toMatchObject({ source: 'bundled', name: 'bundled-2026-11-29', ageDays: null });

    const run = await refresh(['--aws', '--region', 'us-east-1']);
    expect(run.error).toBeUndefined();
    expect(run.stdout).toMatch(/^aws\s+us-east-1\s+72\s+5\s+3\s+ok$/m);
    expect(run.stdout).toContain(`aws cache: ${cacheFile('aws')} (fetched 2026-11-30T08:00:00.000Z)`);

    // The catalog every other command loads now takes AWS from the refreshed cache, dated today,
    // and the providers it did not refresh from the bundled snapshot.
    const after = await loadCatalog();
    expect(after).toMatchObject({ origin: 'cache', asOf: '2026-11-30', name: 'refreshed cache (aws 2026-11-30) + bundled-2026-11-29 (azure, gcp)' });
    expect(after.instances.filter((instance) => instance.provider === 'aws')).toHaveLength(72);
    expect(after.instances.find((instance) => instance.name === 'p5.48xlarge')?.prices.onDemand).toBe(55.04);
    // The audit now names the refreshed cache as its catalog, with its date and age.
    expect(await auditOf()).toMatchObject({ source: 'cache', asOf: '2026-11-30', name: 'refreshed cache (aws 2026-11-30) + bundled-2026-11-29 (azure, gcp)' });
    // Three days later the same cache says it is three days old.
    expect((await readNewestCache({ now: () => new Date('2026-12-03T09:00:00Z') }))?.ageDays).toBe(3);
  });

  it('prints the summary as JSON or CSV', async () => {
    const json = JSON.parse((await refresh(['--aws', '--region', 'us-east-1', '--format', 'json'])).stdout) as { providers: unknown[] };
    expect(json.providers).toEqual([expect.objectContaining({
      provider: 'aws', cacheFile: cacheFile('aws'), fetchedAt: '2026-11-30T08:00:00.000Z', failures: [],
      regions: [{ region: 'us-east-1', instanceTypes: 72, withOnDemandPrice: 5, withSpotPrice: 3 }],
    })]);
    const csv = (await refresh(['--aws', '--region', 'us-east-1', '--format', 'csv'])).stdout.split('\n');
    expect(csv[0]).toBe('provider,region,status,instanceTypes,withOnDemandPrice,withSpotPrice,error,cacheFile,fetchedAt');
    expect(csv[1]).toBe(`aws,us-east-1,ok,72,5,3,,${cacheFile('aws')},2026-11-30T08:00:00.000Z`);
  });

  it('leaves the previous cache byte for byte when an answer is cut off midway', async () => {
    expect((await refresh(['--aws', '--region', 'us-east-1'])).error).toBeUndefined();
    const previous = readFileSync(cacheFile('aws'));

    aws.inject({ service: 'ec2', operation: 'DescribeInstanceTypes', kind: 'abort-mid-body' });
    const run = await refresh(['--aws', '--region', 'us-east-1'], { ...testDeps, now: () => new Date('2026-12-01T08:00:00Z') });
    expect(run.error).toBeInstanceOf(UpstreamError);
    expect(run.stdout).toBe('');
    expect(readFileSync(cacheFile('aws')).equals(previous)).toBe(true);
    expect((await readNewestCache({ dir: cacheDir }))?.asOf).toBe('2026-11-30');
  });

  it('survives being killed midway: the previous cache stays and the next refresh takes over the lock', async () => {
    expect((await refresh(['--aws', '--region', 'us-east-1'])).error).toBeUndefined();
    const previous = readFileSync(cacheFile('aws'));
    aws.requests.length = 0;
    // The price step never answers, so the refresh is caught after listing the instance types.
    aws.inject({ service: 'pricing', kind: 'hang' });
    const script = `
      const { refreshCommand } = await import('./src/cli/commands/catalog-refresh.ts');
      const { processIo } = await import('./src/cli/io.ts');
      await refreshCommand(processIo()).parseAsync(['--aws', '--region', 'us-east-1'], { from: 'user' });`;
    const child = spawn(process.execPath, ['--no-warnings', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      stdio: 'ignore',
      // Static keys through the SDK's default chain; nothing else of this machine's AWS setup.
      env: { ...process.env, ...environment(), AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'test', AWS_CONFIG_FILE: '/nonexistent', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_EC2_METADATA_DISABLED: 'true' },
    });
    const deadline = Date.now() + 20_000;
    while (aws.requestsFor('pricing').length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(aws.requestsFor('pricing')).toHaveLength(1);
    expect(JSON.parse(readFileSync(path.join(cacheDir, 'catalog-aws.lock'), 'utf8'))).toMatchObject({ pid: child.pid });

    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(readFileSync(cacheFile('aws')).equals(previous)).toBe(true);

    // The killed process left its lock; its pid is gone, so the next refresh takes over.
    aws.clearFaults();
    const next = await refresh(['--aws', '--region', 'us-east-1'], { ...testDeps, now: () => new Date('2026-12-01T08:00:00Z') });
    expect(next.error).toBeUndefined();
    expect((await readNewestCache({ dir: cacheDir }))?.asOf).toBe('2026-12-01');
  });

  it('caches the regions that worked and fails (exit 3) naming the region that did not', async () => {
    aws.inject({ service: 'ec2', region: 'eu-west-1', kind: 'region-denied' });
    const run = await refresh(['--aws', '--region', 'us-east-1', 'eu-west-1']);
    expect(run.stdout).toMatch(/^aws\s+eu-west-1\s+-\s+-\s+-\s+failed: UnauthorizedOperation: You are not\b/m);
    expect(run.error).toBeInstanceOf(UpstreamError);
    expect((run.error as UpstreamError).message).toBe('1 region failed (aws eu-west-1): UnauthorizedOperation: You are not authorized to perform this operation.; the cache holds the regions that worked');
    const cached = JSON.parse(readFileSync(cacheFile('aws'), 'utf8')) as { regions: string[]; failures: { region: string }[] };
    expect(cached.regions).toEqual(['us-east-1']);
    expect(cached.failures.map((failure) => failure.region)).toEqual(['eu-west-1']);
  });

  it('lets one of two simultaneous refreshes run and turns the other away clearly', async () => {
    const runs = await Promise.all([refresh(['--aws', '--region', 'us-east-1']), refresh(['--aws', '--region', 'us-east-1'])]);
    const turnedAway = runs.filter((run) => run.error !== undefined);
    expect(turnedAway).toHaveLength(1);
    expect(turnedAway[0]!.error).toBeInstanceOf(InputError);
    expect((turnedAway[0]!.error as InputError).describe()).toMatch(new RegExp(`^${path.join(cacheDir, 'catalog-aws.lock')}: another refresh of the aws catalog cache is running`));
    expect(JSON.parse(readFileSync(cacheFile('aws'), 'utf8'))).toMatchObject({ provider: 'aws', regions: ['us-east-1'] });
  });

  it('asks for what it needs before fetching anything', async () => {
    expect(((await refresh([])).error as InputError).message).toBe('say which cloud to refresh: --aws, --azure, or both');
    expect(((await refresh(['--aws'])).error as InputError).message).toMatch(/^--aws needs a region/);
    expect(((await refresh(['--aws', '--region', 'Frankfurt'])).error as InputError).describe()).toBe('--region: "Frankfurt" is not an AWS region name (expected e.g. us-east-1)');
    expect(((await refresh(['--azure', '--location', 'eastus'])).error as InputError).message).toMatch(/^--azure needs a subscription/);
    expect(aws.requests).toHaveLength(0);
    // AWS_REGION stands in for --region.
    expect((await refresh(['--aws'], testDeps, { ...environment(), AWS_REGION: 'us-east-1' })).error).toBeUndefined();
  });
});

describe('catalog refresh --azure', () => {
  it('fetches SKUs and retail prices into the Azure cache', async () => {
    const run = await refresh(['--azure', '--subscription', SUBSCRIPTION, '--location', 'East US']);
    expect(run.error).toBeUndefined();
    expect(run.stdout).toMatch(/^azure\s+eastus\s+6\s+5\s+3\s+ok$/m);
    expect(run.stdout).toContain('note: eastus: GPU "Tesla M60" is not in the GPU table; model key "unknown" for Standard_NV6');
    const catalog = await readNewestCache({ dir: cacheDir, now: () => NOW });
    expect(catalog).toMatchObject({ origin: 'cache', asOf: '2026-11-30', ageDays: 0 });
    expect(catalog?.instances.find((instance) => instance.name === 'Standard_NC24ads_A100_v4')?.prices).toMatchObject({ onDemand: 3.673, reserved1y: 2, reserved3y: 1.5 });
  });

  it('refreshes both clouds in one run', async () => {
    const run = await refresh(['--aws', '--region', 'us-east-1', '--azure', '--subscription', SUBSCRIPTION, '--location', 'eastus']);
    expect(run.error).toBeUndefined();
    expect((await readNewestCache({ dir: cacheDir }))?.name).toBe('refreshed cache (aws 2026-11-30, azure 2026-11-30)');
  });
});

describe('credentials never reach the output', () => {
  const AWS_KEY_CANARY = 'AKIDCANARY7F3A';
  const AWS_SECRET_CANARY = 'secret-canary-9b2c';
  const AWS_SESSION_CANARY = 'session-canary-d41e';
  const AZURE_TOKEN_CANARY = 'azure-token-canary-5e6f';
  const canaries = [AWS_KEY_CANARY, AWS_SECRET_CANARY, AWS_SESSION_CANARY, AZURE_TOKEN_CANARY];
  const canaryDeps: RefreshCommandDeps = {
    ...testDeps,
    awsCredentials: { accessKeyId: AWS_KEY_CANARY, secretAccessKey: AWS_SECRET_CANARY, sessionToken: AWS_SESSION_CANARY },
    azureCredential: new StaticToken(AZURE_TOKEN_CANARY),
  };

  function everythingShown(run: CliRun): string {
    const error = run.error as (UpstreamError | InputError | undefined);
    return [run.stdout, run.stderr, error?.message ?? '', error?.describe() ?? '', inspect(run.error, { depth: 10 }), JSON.stringify(run.error ?? null)].join('\n');
  }

  it('on success, in the summary and the cache', async () => {
    const run = await refresh(['--aws', '--region', 'us-east-1', '--azure', '--subscription', SUBSCRIPTION, '--location', 'eastus', '--format', 'json'], canaryDeps);
    expect(run.error).toBeUndefined();
    // The canaries did travel: the SDKs signed with them.
    expect(aws.requests[0]!.headers.authorization).toContain(`Credential=${AWS_KEY_CANARY}/`);
    expect(arm.requests[0]!.headers.authorization).toBe(`Bearer ${AZURE_TOKEN_CANARY}`);
    const shown = [everythingShown(run), readFileSync(cacheFile('aws'), 'utf8'), readFileSync(cacheFile('azure'), 'utf8')].join('\n');
    for (const canary of canaries) expect(shown).not.toContain(canary);
  });

  it('when AWS rejects them', async () => {
    aws.inject({ service: 'ec2', kind: 'expired-token' });
    const run = await refresh(['--aws', '--region', 'us-east-1'], canaryDeps);
    expect((run.error as UpstreamError).describe()).toBe(`${aws.url} (HTTP 400): us-east-1: AWS credentials from the credentials passed in were rejected (ExpiredToken)`);
    for (const canary of canaries) expect(everythingShown(run)).not.toContain(canary);
  });

  it('when ARM rejects the token', async () => {
    arm.inject({ service: 'arm', kind: 'expired-token' });
    const run = await refresh(['--azure', '--subscription', SUBSCRIPTION, '--location', 'eastus'], canaryDeps);
    expect((run.error as UpstreamError).message).toBe('eastus: Azure credentials from the credential passed in were rejected (ExpiredAuthenticationToken)');
    for (const canary of canaries) expect(everythingShown(run)).not.toContain(canary);
  });
});

/**
 * `gpu-audit catalog refresh --aws|--azure`: fetch GPU instance types and prices from the
 * cloud APIs into the catalog cache, then print what was fetched, what failed and where the
 * cache is. The SDKs are loaded inside the action, so no other command pays for them.
 *
 * Exit codes: 0 when every region was fetched; 3 when a provider or a region failed (the
 * regions that worked are still cached); 2 for bad options or a refresh already running.
 */
import { Command } from 'commander';
import type { TokenCredential } from '@azure/identity';
import type { AwsRefreshOptions } from '../../catalog/index.js';
import type { RefreshProvider, ProviderRefresh } from '../../catalog/index.js';
import { InputError, UpstreamError } from '../../support/index.js';
import { REFRESH_FORMATS, renderRefresh, type ProviderResult, type RefreshFormat } from '../../render/index.js';
import { processIo, type CliIo } from '../io.js';
import { addOutputOptions } from '../options.js';
import { emitOutput } from '../output.js';
import { startProgress } from '../progress.js';


/** What tests (or an embedding program) hand in where the environment cannot serve. */
export interface RefreshCommandDeps {
  awsCredentials?: AwsRefreshOptions['credentials'];
  azureCredential?: TokenCredential;
  /** CA (PEM) trusted for the Azure Resource Manager endpoint instead of the usual ones. */
  azureTrustedCa?: string;
  now?: () => Date;
  /** AWS attempts per call (SDK standard retry); default 4. */
  awsMaxAttempts?: number;
}

interface RefreshOptions {
  aws?: boolean;
  azure?: boolean;
  region?: string[];
  subscription?: string;
  location?: string[];
  format: RefreshFormat;
  output?: string;
  quiet?: boolean;
}


const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const AZURE_LOCATION = /^[a-z0-9]+$/;
const SUBSCRIPTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--region a b`, `--region a,b` and `AWS_REGION=a` all work; blanks are dropped. */
function listOf(values: readonly string[] | undefined, fallback: string | undefined): string[] {
  const raw = values !== undefined && values.length > 0 ? values : fallback === undefined ? [] : [fallback];
  return [...new Set(raw.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== ''))];
}

function awsRegions(options: RefreshOptions, env: NodeJS.ProcessEnv): string[] {
  const regions = listOf(options.region, env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined);
  if (regions.length === 0) throw new InputError('--aws needs a region: pass --region (e.g. --region us-east-1 eu-west-1) or set AWS_REGION');
  const bad = regions.find((region) => !AWS_REGION.test(region));
  if (bad !== undefined) throw new InputError(`"${bad}" is not an AWS region name (expected e.g. us-east-1)`, { location: '--region' });
  return regions;
}

function azureTarget(options: RefreshOptions, env: NodeJS.ProcessEnv): { subscriptionId: string; locations: string[] } {
  const subscriptionId = (options.subscription ?? env.AZURE_SUBSCRIPTION_ID ?? '').trim();
  if (subscriptionId === '') throw new InputError('--azure needs a subscription: pass --subscription ID or set AZURE_SUBSCRIPTION_ID');
  if (!SUBSCRIPTION_ID.test(subscriptionId)) throw new InputError(`"${subscriptionId}" is not a subscription id (a GUID)`, { location: '--subscription' });
  // "East US" and "eastus" name the same location; the API wants the second.
  const locations = listOf(options.location, env.AZURE_LOCATION || undefined).map((location) => location.toLowerCase().replace(/\s+/g, ''));
  if (locations.length === 0) throw new InputError('--azure needs a location: pass --location (e.g. --location eastus westeurope) or set AZURE_LOCATION');
  const bad = locations.find((location) => !AZURE_LOCATION.test(location));
  if (bad !== undefined) throw new InputError(`"${bad}" is not an Azure location name (expected e.g. eastus)`, { location: '--location' });
  return { subscriptionId, locations };
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

async function fetchProvider(provider: RefreshProvider, options: RefreshOptions, io: CliIo, deps: RefreshCommandDeps): Promise<ProviderRefresh> {
  if (provider === 'aws') {
    const regions = awsRegions(options, io.env);
    const { refreshAws } = await import('../../catalog/aws.js');
    const endpoint = envValue(io.env, 'GPU_AUDIT_AWS_ENDPOINT');
    return refreshAws({
      regions, env: io.env,
      ...(endpoint === undefined ? {} : { endpoint }),
      ...(deps.awsCredentials === undefined ? {} : { credentials: deps.awsCredentials }),
      ...(deps.awsMaxAttempts === undefined ? {} : { maxAttempts: deps.awsMaxAttempts }),
      ...(deps.now === undefined ? {} : { now: deps.now }),
    });
  }
  const target = azureTarget(options, io.env);
  const { refreshAzure } = await import('../../catalog/azure.js');
  const endpoint = envValue(io.env, 'GPU_AUDIT_AZURE_ENDPOINT');
  const pricesUrl = envValue(io.env, 'GPU_AUDIT_AZURE_PRICES_URL');
  return refreshAzure({
    ...target, env: io.env,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(pricesUrl === undefined ? {} : { pricesUrl }),
    ...(deps.azureCredential === undefined ? {} : { credential: deps.azureCredential }),
    ...(deps.azureTrustedCa === undefined ? {} : { trustedCa: deps.azureTrustedCa }),
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
}

async function runRefresh(options: RefreshOptions, io: CliIo, deps: RefreshCommandDeps): Promise<void> {
  const providers: RefreshProvider[] = [...(options.aws === true ? ['aws' as const] : []), ...(options.azure === true ? ['azure' as const] : [])];
  if (providers.length === 0) throw new InputError('say which cloud to refresh: --aws, --azure, or both');
  // Bad options fail before anything is fetched or locked.
  if (options.aws === true) awsRegions(options, io.env);
  if (options.azure === true) azureTarget(options, io.env);

  const { withCacheLock, writeProviderCache } = await import('../../catalog/cache.js');
  // The cache directory comes from the environment only, so every command reads the one refresh writes.
  const cacheOptions = { env: io.env };
  const progress = startProgress(io, options.quiet === true);
  const results: ProviderResult[] = [];
  const errors: Error[] = [];
  try {
    for (const provider of providers) {
      progress.update(`refreshing the ${provider} catalog`);
      try {
        results.push(await withCacheLock(provider, async () => {
          const refresh = await fetchProvider(provider, options, io, deps);
          // Written only now, after every region was tried: a failed or killed run leaves the old file.
          const cacheFile = await writeProviderCache(refresh, cacheOptions);
          return { provider, cacheFile, fetchedAt: refresh.fetchedAt, regions: refresh.regions, failures: refresh.failures, notices: refresh.notices };
        }, cacheOptions));
      } catch (error) {
        if (!(error instanceof UpstreamError || error instanceof InputError)) throw error;
        errors.push(error);
      }
    }
  } finally {
    progress.stop();
  }

  if (results.length > 0) await emitOutput(io, renderRefresh(results, options.format, options.quiet !== true), options.output);
  // Several failures: all but the last are told here; the last ends the run (exit 2 or 3).
  for (const error of errors.slice(0, -1)) io.stderr(`gpu-audit: ${error instanceof UpstreamError || error instanceof InputError ? error.describe() : error.message}\n`);
  const last = errors.at(-1);
  if (last !== undefined) throw last;
  const failed = results.flatMap((result) => result.failures.map((failure) => ({ provider: result.provider, failure })));
  const first = failed[0];
  if (first !== undefined) {
    const names = failed.map(({ provider, failure }) => `${provider} ${failure.region}`).join(', ');
    throw new UpstreamError(`${failed.length} region${failed.length > 1 ? 's' : ''} failed (${names}): ${first.failure.error}; the cache holds the regions that worked`, {
      endpoint: first.failure.endpoint, ...(first.failure.status === undefined ? {} : { status: first.failure.status }),
    });
  }
}

export function refreshCommand(io: CliIo = processIo(), deps: RefreshCommandDeps = {}): Command {
  const command = new Command('refresh')
    .description('fetch GPU instance types and prices from AWS and/or Azure into the catalog cache')
    .option('--aws', 'refresh AWS (EC2 DescribeInstanceTypes, spot price history, Price List on-demand and reserved, Savings Plans rates)')
    .option('--azure', 'refresh Azure (Resource SKUs, Retail Prices API)')
    .option('--region <region...>', 'AWS regions (default: AWS_REGION)')
    .option('--subscription <id>', 'Azure subscription id (default: AZURE_SUBSCRIPTION_ID)')
    .option('--location <location...>', 'Azure locations, e.g. eastus (default: AZURE_LOCATION)');
  addOutputOptions(command, REFRESH_FORMATS);
  command.addHelpText('after', `
Examples:
  $ gpu-audit catalog refresh --aws --region us-east-1 us-west-2
  $ gpu-audit catalog refresh --azure --subscription 00000000-0000-0000-0000-000000000000 --location eastus westeurope
  $ AWS_PROFILE=billing gpu-audit catalog refresh --aws --region eu-west-1 --format json

Credentials: AWS uses the SDK's default chain (environment, profile/SSO, web identity,
instance role); Azure uses DefaultAzureCredential (environment, workload or managed identity,
Azure CLI). The Azure Retail Prices API needs none. Keys and tokens are never printed.

Each provider's cache (catalog-aws.json, catalog-azure.json) is replaced only after a refresh;
a refresh that fails or is interrupted leaves the previous one. Later commands use the cache
and say how old it is; without one they use the snapshot bundled with gpu-audit.

Environment:
  AWS_REGION, AZURE_SUBSCRIPTION_ID, AZURE_LOCATION   defaults for --region, --subscription, --location
  GPU_AUDIT_CACHE_DIR          cache directory (default $XDG_CACHE_HOME/gpu-audit, else ~/.cache/gpu-audit)
  GPU_AUDIT_AWS_ENDPOINT       one endpoint for EC2, the Price List and Savings Plans (a proxy or a test server)
  GPU_AUDIT_AZURE_ENDPOINT     Azure Resource Manager endpoint (default https://management.azure.com)
  GPU_AUDIT_AZURE_PRICES_URL   Retail Prices API (default https://prices.azure.com/api/retail/prices)

Exit codes: 0 all regions fetched; 2 bad options or a refresh already running; 3 a cloud API
failed (regions that worked are still cached and listed).`);
  command.action(async (options: RefreshOptions) => runRefresh(options, io, deps));
  return command;
}

/** Attaches `refresh` to the `catalog` command. */
export function addRefreshCommand(catalog: Command, io: CliIo = processIo(), deps: RefreshCommandDeps = {}): void {
  catalog.addCommand(refreshCommand(io, deps));
}

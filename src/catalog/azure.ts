/**
 * `catalog refresh --azure`: GPU VM sizes from Azure Resource Manager and their prices from
 * the Azure Retail Prices API.
 *
 * Per location: `resourceSkus.list` of @azure/arm-compute (filtered to the location; the
 * SDK follows `nextLink`), GPU count from the `GPUs` capability; then, per GPU size, the
 * retail rows (pay-as-you-go, spot, 1- and 3-year reservations, savings plans), following
 * `NextPageLink`. ARM is called with @azure/identity's DefaultAzureCredential unless the
 * caller passes a credential; the prices API needs none.
 *
 * A location that fails is reported with its error while the others are kept; credentials
 * rejected everywhere end the refresh with an UpstreamError naming their source.
 */
import type { ComputeManagementClient, ResourceSku } from '@azure/arm-compute';
import type { TokenCredential } from '@azure/identity';
import type { InstanceType } from '../model/index.js';
import { loadOptionalModules, UpstreamError } from '../support/index.js';
import { azureCredentialRejectedMessage, azureErrorFacts } from './refresh/azure-errors.js';
import { DEFAULT_RETAIL_PRICES_URL, fetchRetailPrices, pricesFromRetailItems, retailPricesFilter } from './refresh/azure-retail-prices.js';
import { instanceFromAzureSku } from './refresh/azure-skus.js';
import { azureCredentialSource } from './refresh/credential-source.js';
import { tableGpuLookup, type GpuLookup } from './refresh/gpu-lookup.js';
import type { HttpRetryOptions } from './refresh/http-json.js';
import { unknownGpuNotices, type UnknownGpuSighting } from './refresh/notices.js';
import { combineOutcomes, failureOutcome, regionSummary, type RegionOutcome } from './refresh/outcomes.js';
import { mapLimit } from './refresh/paging.js';
import { safeMessage } from './refresh/redact.js';
import type { ProviderRefresh } from './refresh/types.js';

/** The optional dependencies a refresh of Azure loads (src/catalog/refresh/optional-sdk.ts). */
const AZURE_SDK = ['@azure/identity', '@azure/arm-compute'] as const;

export interface AzureRefreshOptions {
  subscriptionId: string;
  locations: readonly string[];
  /** Azure Resource Manager endpoint; https://management.azure.com by default. */
  endpoint?: string;
  /** Retail Prices API; https://prices.azure.com/api/retail/prices by default. */
  pricesUrl?: string;
  /** A credential to use instead of DefaultAzureCredential; name it in `credentialSource`. */
  credential?: TokenCredential;
  credentialSource?: string;
  env?: NodeJS.ProcessEnv;
  /** CA certificates (PEM) to trust for the ARM endpoint instead of the usual ones: a test server's, a TLS-inspecting proxy's. */
  trustedCa?: string | Buffer;
  /** Retries of ARM calls after the first attempt. Default 3. */
  maxRetries?: number;
  /** First ARM retry delay in ms (exponential after). Default 800. */
  retryDelayMs?: number;
  /** Retry policy of the Retail Prices API calls. */
  pricesRetry?: HttpRetryOptions;
  /** Price queries in flight at once. Default 4. */
  concurrency?: number;
  now?: () => Date;
  lookupGpu?: GpuLookup;
}

const DEFAULT_ARM_ENDPOINT = 'https://management.azure.com';
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_CONCURRENCY = 4;

/** OData literal for the SKU list's location filter (the only filter the API supports). */
function locationFilter(location: string): string {
  return `location eq '${location.replace(/'/g, "''")}'`;
}

async function listGpuSkus(client: ComputeManagementClient, location: string): Promise<ResourceSku[]> {
  const skus: ResourceSku[] = [];
  for await (const sku of client.resourceSkus.list({ filter: locationFilter(location) })) skus.push(sku);
  return skus;
}

interface LocationContext {
  client: ComputeManagementClient;
  armEndpoint: string;
  pricesUrl: string;
  fetchedOn: string;
  options: AzureRefreshOptions;
  lookupGpu: GpuLookup;
  credentialSource: string;
}

async function refreshLocation(context: LocationContext, location: string): Promise<RegionOutcome> {
  const { fetchedOn, options } = context;
  let endpoint = context.armEndpoint;
  try {
    const notices: string[] = [];
    const unknownGpus: UnknownGpuSighting[] = [];
    const instances: InstanceType[] = [];
    for (const sku of await listGpuSkus(context.client, location)) {
      const mapped = instanceFromAzureSku(sku, location, `azure:arm:resourceSkus ${location} ${fetchedOn}`, context.lookupGpu);
      if (mapped.kind === 'not-gpu') continue;
      if (mapped.notice !== undefined) notices.push(mapped.notice);
      if (mapped.kind !== 'instance') continue;
      instances.push(mapped.instance);
      if (mapped.unknownGpu !== undefined) unknownGpus.push({ gpu: mapped.unknownGpu, instanceType: mapped.instance.name });
    }
    notices.push(...unknownGpuNotices(unknownGpus).map((notice) => `${location}: ${notice}`));

    endpoint = new URL(context.pricesUrl).origin;
    await mapLimit(instances, options.concurrency ?? DEFAULT_CONCURRENCY, async (instance) => {
      const rows = await fetchRetailPrices(context.pricesUrl, retailPricesFilter(location, instance.name), options.pricesRetry);
      const prices = pricesFromRetailItems(rows);
      const found = Object.values(prices).some((value) => value !== null);
      instance.prices = { ...prices, ...(prices.spot === null ? {} : { spotObservedAt: fetchedOn }), sources: found ? [`azure:retail-prices ${location} ${fetchedOn} (Linux; reservations per hour of the term)`] : [] };
    });

    return { ok: true, instances, summary: regionSummary(location, instances), notices };
  } catch (error) {
    const facts = azureErrorFacts(error);
    const credentials = facts.kind === 'credentials';
    return failureOutcome(location, endpoint, credentials ? azureCredentialRejectedMessage(context.credentialSource, facts) : facts.detail, facts.status, credentials);
  }
}

/**
 * Fetches the GPU sizes and prices of each location. Throws UpstreamError when no location
 * could be fetched (naming the credential source when ARM rejected the credentials);
 * otherwise the failed locations are in `failures`.
 */
export async function refreshAzure(options: AzureRefreshOptions): Promise<ProviderRefresh> {
  const now = (options.now ?? (() => new Date()))();
  const env = options.env ?? process.env;
  const armEndpoint = (options.endpoint ?? DEFAULT_ARM_ENDPOINT).replace(/\/+$/, '');
  const credentialSource = options.credentialSource ?? (options.credential === undefined ? azureCredentialSource(env) : 'the credential passed in');

  let credential = options.credential;
  if (credential === undefined) {
    // Loaded here so that other commands never pay for the SDKs.
    const identity = await loadOptionalModules(() => import('@azure/identity'), AZURE_SDK, 'catalog refresh --azure');
    try {
      credential = new identity.DefaultAzureCredential();
    } catch (error) {
      throw new UpstreamError(`Azure credentials from ${credentialSource} could not be set up (${safeMessage(error instanceof Error ? error.message : String(error))})`, { endpoint: armEndpoint });
    }
  }
  const { ComputeManagementClient } = await loadOptionalModules(() => import('@azure/arm-compute'), AZURE_SDK, 'catalog refresh --azure');
  const client = new ComputeManagementClient(credential, options.subscriptionId, {
    endpoint: armEndpoint,
    retryOptions: { maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES, ...(options.retryDelayMs === undefined ? {} : { retryDelayInMs: options.retryDelayMs, maxRetryDelayInMs: options.retryDelayMs * 8 }) },
    ...(options.trustedCa === undefined ? {} : { tlsOptions: { ca: options.trustedCa } }),
  });

  const context: LocationContext = {
    client,
    armEndpoint,
    pricesUrl: options.pricesUrl ?? DEFAULT_RETAIL_PRICES_URL,
    fetchedOn: now.toISOString().slice(0, 10),
    options,
    lookupGpu: options.lookupGpu ?? tableGpuLookup,
    credentialSource,
  };
  // Locations one after another: each already runs several price queries at once.
  const outcomes = await mapLimit(options.locations, 1, (location) => refreshLocation(context, location));

  return combineOutcomes('azure', now, outcomes, 'location', armEndpoint);
}

/**
 * `catalog refresh --aws`: GPU instance types, spot and list prices from the AWS APIs.
 *
 * Per region: EC2 `DescribeInstanceTypes` (paginated; GPU families only), EC2
 * `DescribeSpotPriceHistory` (the price in effect now, per availability zone), the Price
 * List `GetProducts` (on-demand and reserved terms of the region's products) and Savings Plans
 * `DescribeSavingsPlansOfferingRates` (1- and 3-year No Upfront rates). Credentials
 * come from the SDK's default chain unless the caller passes some. The SDK retries
 * throttling (`RequestLimitExceeded`, HTTP 429/503) and transient network errors with its
 * standard strategy, bounded by `maxAttempts`.
 *
 * A region that fails is reported with its error while the others are kept; credentials that
 * AWS rejects everywhere end the refresh with an UpstreamError naming their source.
 */
import type { EC2Client, EC2ClientConfig, InstanceTypeInfo, SpotPrice, _InstanceType } from '@aws-sdk/client-ec2';
import type { Filter as PriceListFilter, PricingClient } from '@aws-sdk/client-pricing';
import type * as Ec2Sdk from '@aws-sdk/client-ec2';
import type * as PricingSdk from '@aws-sdk/client-pricing';
import type { SavingsPlanOfferingRate, SavingsplansClient } from '@aws-sdk/client-savingsplans';
import type * as SavingsPlansSdk from '@aws-sdk/client-savingsplans';
import type { InstanceType } from '../model/index.js';
import { awsErrorFacts, credentialRejectedMessage } from './refresh/aws-errors.js';
import { hasGpus, instanceFromAws } from './refresh/aws-instance-types.js';
import { PRICE_LIST_ATTRIBUTES, pricesFromProduct, type AwsListPrices } from './refresh/aws-price-list.js';
import { awsCredentialSource } from './refresh/credential-source.js';
import { tableGpuLookup, type GpuLookup } from './refresh/gpu-lookup.js';
import { unknownGpuNotices, type UnknownGpuSighting } from './refresh/notices.js';
import { combineOutcomes, failureOutcome, regionSummary, type RegionOutcome } from './refresh/outcomes.js';
import { guardPages, mapLimit } from './refresh/paging.js';
import { SAVINGS_PLAN_PAYMENT_OPTION, SAVINGS_PLAN_TYPES, savingsPlanRates, type SavingsPlanRates } from './refresh/aws-savings-plans.js';
import { SPOT_PRODUCT_DESCRIPTION, typicalSpotPrices } from './refresh/spot-prices.js';
import type { ProviderRefresh } from './refresh/types.js';
import { loadOptionalModules } from '../support/index.js';

export interface AwsRefreshOptions {
  regions: readonly string[];
  /** One endpoint for every AWS call (EC2 and Price List), e.g. a proxy or a local replay server. */
  endpoint?: string;
  /** Region of the Price List API: us-east-1 (it is also served from eu-central-1 and ap-south-1). */
  pricingRegion?: string;
  /** Credentials to use instead of the default chain; name them in `credentialSource`. */
  credentials?: EC2ClientConfig['credentials'];
  /** How to name the credentials in messages; derived from `env` for the default chain. */
  credentialSource?: string;
  /** Read to name the default chain's source in messages; the chain itself reads process.env. */
  env?: NodeJS.ProcessEnv;
  /** Attempts per call, first one included (SDK standard retry strategy). Default 4. */
  maxAttempts?: number;
  /** MaxResults asked of EC2 and the Price List. Default 100. */
  pageSize?: number;
  /** Regions fetched at once. Default 4. */
  concurrency?: number;
  /** Per-request timeout in ms. Default 60 s. */
  requestTimeoutMs?: number;
  now?: () => Date;
  /** The GPU table to resolve names against; the project's own by default. */
  lookupGpu?: GpuLookup;
}

/**
 * Every instance family AWS reports `GpuInfo` for starts with g or p (moto's 2026-08 copy of
 * the real DescribeInstanceTypes data: 70 GPU types, all g*, gr*, p*). DescribeInstanceTypes
 * cannot filter on GPUs, so the family wildcard keeps the listing short and `hasGpus` decides.
 */
const GPU_FAMILY_WILDCARDS = ['g*', 'p*'];
const DEFAULT_PRICING_REGION = 'us-east-1';
const DEFAULT_MAX_ATTEMPTS = 4;
const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_CONCURRENCY = 4;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

interface AwsClients {
  ec2: typeof Ec2Sdk;
  pricing: typeof PricingSdk;
  pricingClient: PricingClient;
  savingsPlans: typeof SavingsPlansSdk;
  savingsPlansClient: SavingsplansClient;
  clientConfig: (region: string) => EC2ClientConfig;
}

function ec2Endpoint(region: string, override: string | undefined): string {
  return override ?? `https://ec2.${region}.amazonaws.com`;
}

/** Savings Plans is one global endpoint, signed for us-east-1. */
const SAVINGS_PLANS_REGION = 'us-east-1';

function savingsPlansEndpoint(override: string | undefined): string {
  return override ?? 'https://savingsplans.amazonaws.com';
}

function pricingEndpoint(region: string, override: string | undefined): string {
  return override ?? `https://api.pricing.${region}.amazonaws.com`;
}

async function listGpuInstanceTypes(clients: AwsClients, client: EC2Client, pageSize: number): Promise<InstanceTypeInfo[]> {
  const found: InstanceTypeInfo[] = [];
  const pages = clients.ec2.paginateDescribeInstanceTypes({ client, pageSize }, { Filters: [{ Name: 'instance-type', Values: GPU_FAMILY_WILDCARDS }] });
  for await (const page of guardPages(pages, 'DescribeInstanceTypes')) {
    for (const info of page.InstanceTypes ?? []) if (hasGpus(info)) found.push(info);
  }
  return found;
}

async function listSpotPrices(clients: AwsClients, client: EC2Client, instanceTypes: readonly string[], now: Date, pageSize: number): Promise<SpotPrice[]> {
  const history: SpotPrice[] = [];
  const input = {
    // The SDK types this as its enum of known types; the names come from the same API.
    InstanceTypes: instanceTypes as _InstanceType[],
    ProductDescriptions: [SPOT_PRODUCT_DESCRIPTION],
    // With a start time of now and no end time, EC2 answers the price in effect now per zone.
    StartTime: now,
  };
  for await (const page of guardPages(clients.ec2.paginateDescribeSpotPriceHistory({ client, pageSize }, input), 'DescribeSpotPriceHistory')) {
    history.push(...(page.SpotPriceHistory ?? []));
  }
  return history;
}

function priceListFilters(region: string): PriceListFilter[] {
  const attributes: Record<string, string> = { regionCode: region, ...PRICE_LIST_ATTRIBUTES };
  return Object.entries(attributes).map(([Field, Value]) => ({ Type: 'TERM_MATCH', Field, Value }));
}

async function listListPrices(clients: AwsClients, region: string, wanted: ReadonlySet<string>, pageSize: number): Promise<Map<string, AwsListPrices>> {
  const prices = new Map<string, AwsListPrices>();
  const pages = clients.pricing.paginateGetProducts({ client: clients.pricingClient, pageSize }, { ServiceCode: 'AmazonEC2', FormatVersion: 'aws_v1', Filters: priceListFilters(region) });
  for await (const page of guardPages(pages, 'GetProducts')) {
    for (const entry of page.PriceList ?? []) {
      // Each element is a JSON document in a string (the SDK wraps it in a String object).
      const product = pricesFromProduct(JSON.parse(String(entry)));
      if (product === undefined || !wanted.has(product.instanceType)) continue;
      const seen = prices.get(product.instanceType);
      if (seen === undefined || (seen.onDemand === null && product.onDemand !== null)) prices.set(product.instanceType, product);
    }
  }
  return prices;
}

/** Savings Plans answers at most this many rates a page. */
const SAVINGS_PLANS_MAX_RESULTS = 1000;

async function listSavingsPlanRates(clients: AwsClients, region: string, instanceTypes: readonly string[]): Promise<Map<string, SavingsPlanRates>> {
  const results: SavingsPlanOfferingRate[] = [];
  let nextToken: string | undefined;
  let pages = 0;
  do {
    const answer = await clients.savingsPlansClient.send(new clients.savingsPlans.DescribeSavingsPlansOfferingRatesCommand({
      savingsPlanPaymentOptions: [SAVINGS_PLAN_PAYMENT_OPTION],
      savingsPlanTypes: [...SAVINGS_PLAN_TYPES],
      products: ['EC2'],
      serviceCodes: ['AmazonEC2'],
      filters: [
        { name: 'region', values: [region] },
        { name: 'instanceType', values: [...instanceTypes] },
        { name: 'tenancy', values: ['shared'] },
        { name: 'productDescription', values: [SPOT_PRODUCT_DESCRIPTION] },
      ],
      maxResults: SAVINGS_PLANS_MAX_RESULTS,
      ...(nextToken === undefined ? {} : { nextToken }),
    }));
    results.push(...(answer.searchResults ?? []));
    // The same token twice, or a listing that never ends, is the service's fault: stop.
    const next = answer.nextToken === undefined || answer.nextToken === '' ? undefined : answer.nextToken;
    if (next !== undefined && next === nextToken) break;
    nextToken = next;
    pages += 1;
  } while (nextToken !== undefined && pages < 1000);
  return savingsPlanRates(results, region);
}

interface RegionContext {
  clients: AwsClients;
  now: Date;
  endpoint: string | undefined;
  pricingRegion: string;
  pageSize: number;
  lookupGpu: GpuLookup;
  credentialSource: string;
}

async function refreshRegion(context: RegionContext, region: string): Promise<RegionOutcome> {
  const { clients, ...options } = context;
  const fetchedOn = options.now.toISOString().slice(0, 10);
  let step = ec2Endpoint(region, options.endpoint);
  const client = new clients.ec2.EC2Client(clients.clientConfig(region));
  try {
    const infos = await listGpuInstanceTypes(clients, client, options.pageSize);
    const notices: string[] = [];
    const unknownGpus: UnknownGpuSighting[] = [];
    const instances: InstanceType[] = [];
    for (const info of infos) {
      const mapped = instanceFromAws(info, region, `aws:ec2:DescribeInstanceTypes ${region} ${fetchedOn}`, options.lookupGpu);
      if (mapped === undefined) continue;
      instances.push(mapped.instance);
      if (mapped.notice !== undefined) notices.push(mapped.notice);
      if (mapped.unknownGpu !== undefined) unknownGpus.push({ gpu: mapped.unknownGpu, instanceType: mapped.instance.name });
    }
    notices.push(...unknownGpuNotices(unknownGpus).map((notice) => `${region}: ${notice}`));
    const names = instances.map((instance) => instance.name);
    const spot = names.length > 0 ? typicalSpotPrices(await listSpotPrices(clients, client, names, options.now, options.pageSize)) : new Map<string, number>();
    step = pricingEndpoint(options.pricingRegion, options.endpoint);
    const listPrices = names.length > 0 ? await listListPrices(clients, region, new Set(names), options.pageSize) : new Map<string, AwsListPrices>();
    // Savings Plans rates are extra: a refusal (a role without savingsplans:Describe*) or an
    // outage there keeps the region, without those rates, and says so.
    let planRates = new Map<string, SavingsPlanRates>();
    if (names.length > 0) {
      try {
        planRates = await listSavingsPlanRates(clients, region, names);
      } catch (error) {
        notices.push(`${region}: savings-plan rates not read from ${savingsPlansEndpoint(options.endpoint)}: ${awsErrorFacts(error).detail}`);
      }
    }

    for (const instance of instances) {
      const list = listPrices.get(instance.name);
      const spotPrice = spot.get(instance.name) ?? null;
      const plans = planRates.get(instance.name);
      const planTypes = [...new Set([plans?.savingsPlan1y?.planType, plans?.savingsPlan3y?.planType].filter((type): type is string => type !== undefined))];
      instance.prices = {
        ...instance.prices,
        onDemand: list?.onDemand ?? null,
        reserved1y: list?.reserved1y ?? null,
        reserved3y: list?.reserved3y ?? null,
        spot: spotPrice,
        savingsPlan1y: plans?.savingsPlan1y?.usdPerHour ?? null,
        savingsPlan3y: plans?.savingsPlan3y?.usdPerHour ?? null,
        ...(spotPrice === null ? {} : { spotObservedAt: fetchedOn }),
        sources: [
          ...(list === undefined ? [] : [`aws:pricing:GetProducts ${region} ${fetchedOn} (Linux, shared tenancy; reserved = standard class, No Upfront preferred)`]),
          ...(spotPrice === null ? [] : [`aws:ec2:DescribeSpotPriceHistory ${region} ${fetchedOn} (median across zones)`]),
          ...(planTypes.length === 0 ? [] : [`aws:savingsplans:DescribeSavingsPlansOfferingRates ${region} ${fetchedOn} (${planTypes.join(', ')} Savings Plan, No Upfront, Linux, shared tenancy; the lowest rate)`]),
        ],
      };
    }
    return { ok: true, instances, summary: regionSummary(region, instances), notices };
  } catch (error) {
    const facts = awsErrorFacts(error);
    const credentials = facts.kind === 'credentials';
    return failureOutcome(region, step, credentials ? credentialRejectedMessage(options.credentialSource, facts) : facts.detail, facts.status, credentials);
  } finally {
    client.destroy();
  }
}

/**
 * Fetches the GPU instance catalog of each region. Throws UpstreamError when no region could
 * be fetched (naming the credential source when AWS rejected the credentials); otherwise the
 * failed regions are in `failures`.
 */
export async function refreshAws(options: AwsRefreshOptions): Promise<ProviderRefresh> {
  const now = (options.now ?? (() => new Date()))();
  const env = options.env ?? process.env;
  const credentialSource = options.credentialSource ?? (options.credentials === undefined ? awsCredentialSource(env) : 'the credentials passed in');
  const pricingRegion = options.pricingRegion ?? DEFAULT_PRICING_REGION;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;

  // Loaded here so that other commands never pay for the SDKs.
  const [ec2, pricing, savingsPlans] = await loadOptionalModules(
    () => Promise.all([import('@aws-sdk/client-ec2'), import('@aws-sdk/client-pricing'), import('@aws-sdk/client-savingsplans')]),
    ['@aws-sdk/client-ec2', '@aws-sdk/client-pricing', '@aws-sdk/client-savingsplans'],
    'catalog refresh --aws',
  );
  const clientConfig = (region: string): EC2ClientConfig => ({
    region,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: { requestTimeout, connectionTimeout: Math.min(requestTimeout, 10_000) },
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  });
  const pricingClient = new pricing.PricingClient(clientConfig(pricingRegion));
  const savingsPlansClient = new savingsPlans.SavingsplansClient(clientConfig(SAVINGS_PLANS_REGION));
  const clients: AwsClients = { ec2, pricing, pricingClient, savingsPlans, savingsPlansClient, clientConfig };
  const lookupGpu = options.lookupGpu ?? tableGpuLookup;

  const context: RegionContext = { clients, now, endpoint: options.endpoint, pricingRegion, pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE, lookupGpu, credentialSource };
  try {
    const outcomes = await mapLimit(options.regions, options.concurrency ?? DEFAULT_CONCURRENCY, (region) => refreshRegion(context, region));
    return combineOutcomes('aws', now, outcomes, 'region', ec2Endpoint('<region>', options.endpoint));
  } finally {
    pricingClient.destroy();
    savingsPlansClient.destroy();
  }
}

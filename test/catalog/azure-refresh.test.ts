/**
 * `refreshAzure` through the real @azure/arm-compute client (https replay with a throwaway
 * certificate: the SDK sends bearer tokens over TLS only, with a test TokenCredential) and the
 * Retail Prices API client (plain http replay). Page 1 of the SKU list is the real eastus
 * recording (Azure/skewer testdata); page 2 and the price rows are synthetic fixtures
 * (test/fixtures/cloud/azure, values from ../shared/catalog), retail rows served 2 per page.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { refreshAzure, type AzureRefreshOptions } from '../../src/catalog/azure.js';
import { UpstreamError } from '../../src/support/errors.js';
import { AZURE_FAULT_REPLIES, azureHandlers } from '../replay/azure-service.js';
import { ReplayServer } from '../replay/server.js';
import { azureScenario } from '../replay/scenarios.js';
import { localhostCertificate } from '../replay/tls.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-000000000000';
const NOW = new Date('2026-11-30T08:00:00Z');

/** Hands out a fixed token, as a signed-in credential would; counts the asks. */
class TestTokenCredential implements TokenCredential {
  calls = 0;
  constructor(private readonly token = 'test-token') {}
  async getToken(): Promise<AccessToken> {
    this.calls += 1;
    return { token: this.token, expiresOnTimestamp: Date.now() + 3_600_000 };
  }
}

let arm: ReplayServer;
let prices: ReplayServer;

beforeAll(async () => {
  const scenario = azureScenario({ pricesPageSize: 2 });
  const tls = localhostCertificate();
  arm = await ReplayServer.start({ handlers: azureHandlers(scenario), faults: AZURE_FAULT_REPLIES, tls });
  prices = await ReplayServer.start({ handlers: azureHandlers(scenario), faults: AZURE_FAULT_REPLIES });
});
afterAll(async () => {
  await arm.close();
  await prices.close();
});
afterEach(() => {
  for (const server of [arm, prices]) {
    server.clearFaults();
    server.requests.length = 0;
  }
});

function options(overrides: Partial<AzureRefreshOptions> = {}): AzureRefreshOptions {
  return {
    subscriptionId: SUBSCRIPTION,
    locations: ['eastus'],
    endpoint: arm.url,
    pricesUrl: `${prices.url}/api/retail/prices`,
    credential: new TestTokenCredential(),
    trustedCa: localhostCertificate().cert,
    retryDelayMs: 10,
    pricesRetry: { baseDelayMs: 10 },
    now: () => NOW,
    ...overrides,
  };
}

describe('refreshAzure against recorded answers', () => {
  it('lists the GPU sizes of both SKU pages with their GPU counts', async () => {
    const result = await refreshAzure(options());
    // Page 1 (recorded): 4 SKUs, only Standard_NV6 has a GPUs capability. Page 2: 5 GPU sizes.
    expect(result.instances.map((instance) => instance.name)).toEqual([
      'Standard_NV6', 'Standard_NC4as_T4_v3', 'Standard_NC24ads_A100_v4', 'Standard_ND96isr_H100_v5', 'Standard_NV6ads_A10_v5', 'Standard_NV36ads_A10_v5',
    ]);
    const skuRequests = arm.requestsFor('arm');
    expect(skuRequests).toHaveLength(2);
    expect(skuRequests[0]!.url.searchParams.get('$filter')).toBe("location eq 'eastus'");
    expect(skuRequests[1]!.url.searchParams.get('$skiptoken')).toBe('1');
    expect(skuRequests[0]!.headers.authorization).toBe('Bearer test-token');

    // Recorded Standard_NV6: vCPUs "6", MemoryGB "56", GPUs "1"; an M60, which the GPU table lacks.
    expect(result.instances[0]).toMatchObject({ provider: 'azure', region: 'eastus', gpuModelKey: 'unknown', gpuModelName: 'Tesla M60', gpuCount: 1, vcpus: 6, memoryGiB: 56, networkGbps: null });
    expect(result.instances.find((instance) => instance.name === 'Standard_ND96isr_H100_v5')).toMatchObject({ gpuModelKey: 'h100-sxm-80gb', gpuCount: 8, vcpus: 96, memoryGiB: 1900, vramPerGpuMiB: 81559 });
  });

  it('prices a size from its pay-as-you-go, spot, reservation and savings-plan rows, following NextPageLink', async () => {
    const result = await refreshAzure(options());
    const a100 = result.instances.find((instance) => instance.name === 'Standard_NC24ads_A100_v4');
    expect(a100).toMatchObject({ gpuModelKey: 'a100-pcie-80gb', gpuCount: 1, vramPerGpuMiB: 81920, vcpus: 24, memoryGiB: 220 });
    // Rows: Linux 3.673, Spot 0.444433, Windows 9.99 (ignored), Low Priority 0.99 (ignored),
    // Reservation 1 Year 17520 / 8760 h = 2.00, Reservation 3 Years 39420 / 26280 h = 1.50,
    // savings plan on the Linux row: 1 Year 3.0, 3 Years 2.5.
    expect(a100?.prices).toEqual({
      onDemand: 3.673, spot: 0.444433, reserved1y: 2, reserved3y: 1.5, savingsPlan1y: 3, savingsPlan3y: 2.5,
      // The retail rows say when a price took effect, not when it was seen: the refresh's day dates the spot price.
      spotObservedAt: '2026-11-30',
      sources: ['azure:retail-prices eastus 2026-11-30 (Linux; reservations per hour of the term)'],
    });
    // 6 rows at 2 per page: 3 requests, the 2nd and 3rd by NextPageLink ($skip 2, 4).
    const a100Pages = prices.requestsFor('prices').filter((request) => (request.url.searchParams.get('$filter') ?? '').includes("'Standard_NC24ads_A100_v4'"));
    expect(a100Pages.map((request) => request.url.searchParams.get('$skip'))).toEqual([null, '2', '4']);
    expect(a100Pages[0]!.url.searchParams.get('$filter')).toBe("serviceName eq 'Virtual Machines' and armRegionName eq 'eastus' and armSkuName eq 'Standard_NC24ads_A100_v4'");

    expect(result.regions).toEqual([{ region: 'eastus', instanceTypes: 6, withOnDemandPrice: 5, withSpotPrice: 3 }]);
  });

  it('takes a partial-GPU size as a share of one GPU, not the whole GPU its capability claims', async () => {
    const result = await refreshAzure(options());
    // GPUs capability "1"; the size gets 1/6 of an A10 with 4 GiB (nva10v5-series.md).
    expect(result.instances.find((instance) => instance.name === 'Standard_NV6ads_A10_v5')).toMatchObject({
      gpuModelKey: 'a10', gpuCount: 0, gpuPartitionSize: 1 / 6, vramPerGpuMiB: 4096, prices: { onDemand: 0.454, spot: null },
    });
    expect(result.instances.find((instance) => instance.name === 'Standard_NV36ads_A10_v5')).toMatchObject({ gpuCount: 1, gpuPartitionSize: 1, prices: { onDemand: 3.2, spot: 0.8 } });
  });
});

describe('refreshAzure when Azure pushes back', () => {
  it('retries a throttled SKU list and a throttled price page', async () => {
    arm.inject({ service: 'arm', kind: 'throttle', times: 1 });
    prices.inject({ service: 'prices', kind: 'throttle', times: 1 });
    const result = await refreshAzure(options());
    expect(result.instances).toHaveLength(6);
    expect(arm.requestsFor('arm')).toHaveLength(3);
  });

  it('names the credential source when ARM rejects an expired token', async () => {
    arm.inject({ service: 'arm', kind: 'expired-token' });
    const failure = await refreshAzure(options({ credentialSource: 'DefaultAzureCredential (Azure CLI)' })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).message).toBe('eastus: Azure credentials from DefaultAzureCredential (Azure CLI) were rejected (ExpiredAuthenticationToken)');
    expect((failure as UpstreamError).endpoint).toBe(arm.url);
    expect((failure as UpstreamError).status).toBe(401);
  });

  it('keeps the locations that worked and lists the one that failed', async () => {
    arm.inject({ service: 'arm', region: 'westus', kind: 'region-denied' });
    const result = await refreshAzure(options({ locations: ['eastus', 'westus'] }));
    expect(result.regions.map((region) => region.region)).toEqual(['eastus']);
    expect(result.failures).toEqual([{
      region: 'westus', endpoint: arm.url, status: 400,
      // The paged list keeps ARM's error code, not its message.
      error: 'LocationNotAvailableForResourceType',
    }]);
  });

  it('fails a location whose price answers are cut off midway on every attempt', async () => {
    prices.inject({ service: 'prices', kind: 'abort-mid-body' });
    const failure = await refreshAzure(options({ pricesRetry: { maxAttempts: 2, baseDelayMs: 1 } })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).endpoint).toBe(prices.url);
    expect((failure as UpstreamError).message).toMatch(/^eastus: .*\(after 2 attempts\)$/);
  });
});

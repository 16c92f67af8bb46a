/**
 * The small pure pieces of a refresh, each on inputs small enough to check by hand: retail
 * price rules, medians, network figures, SKU mapping, redaction, credential naming, the
 * bounded HTTP retry, and the guard against listings that never end.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceSku } from '@azure/arm-compute';
import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { categoryOf, fetchRetailPrices, pricesFromRetailItems, type RetailPriceItem } from '../../src/catalog/refresh/azure-retail-prices.js';
import { networkGbpsOf, instanceFromAws } from '../../src/catalog/refresh/aws-instance-types.js';
import { instanceFromAzureSku } from '../../src/catalog/refresh/azure-skus.js';
import { awsCredentialSource, azureCredentialSource } from '../../src/catalog/refresh/credential-source.js';
import { tableGpuLookup } from '../../src/catalog/refresh/gpu-lookup.js';
import { getJsonWithRetry } from '../../src/catalog/refresh/http-json.js';
import { guardPages, mapLimit } from '../../src/catalog/refresh/paging.js';
import { safeMessage } from '../../src/catalog/refresh/redact.js';
import { median } from '../../src/catalog/refresh/spot-prices.js';
import { corpusPath } from '../helpers/corpus.js';

function row(fields: Partial<RetailPriceItem>): RetailPriceItem {
  return {
    currencyCode: 'USD', retailPrice: 0, armRegionName: 'eastus', armSkuName: 'Standard_NC128ds_xl_RTXPRO6000BSE_v6',
    productName: 'Virtual Machines NCdsxlRTXPRO6000BSEv6 Series', meterName: 'NC128ds xl RTXPRO6000BSE v6', type: 'Consumption', ...fields,
  };
}

describe('Azure retail price rows', () => {
  it('reads pay-as-you-go, spot and savings-plan rates of one size', () => {
    // Values: datameaning/azure-gpu-vm-prices, Standard_NC128ds_xl_RTXPRO6000BSE_v6 eastus
    // (../shared/catalog/commitment-prices.json): Linux 6.38, spot 1.179024, savings plan 1y
    // 5.3592, 3y 3.9556. Row layout per the documented shape; meter words are illustrative.
    const prices = pricesFromRetailItems([
      row({ retailPrice: 6.38, savingsPlan: [{ term: '1 Year', retailPrice: 5.3592 }, { term: '3 Years', retailPrice: 3.9556 }] }),
      row({ retailPrice: 1.179024, meterName: 'NC128ds xl RTXPRO6000BSE v6 Spot' }),
    ]);
    expect(prices).toEqual({ onDemand: 6.38, spot: 1.179024, reserved1y: null, reserved3y: null, savingsPlan1y: 5.3592, savingsPlan3y: 3.9556 });
  });

  it.each([
    ['Windows', row({ productName: 'Virtual Machines NCdsxlRTXPRO6000BSEv6 Series Windows' }), 'ignored'],
    ['Low Priority (Batch)', row({ meterName: 'NC128ds xl RTXPRO6000BSE v6 Low Priority' }), 'ignored'],
    ['a non-USD currency', row({ currencyCode: 'EUR' }), 'ignored'],
    ['DevTest pricing', row({ type: 'DevTestConsumption' }), 'ignored'],
    ['spot named in skuName only', row({ skuName: 'NC128ds xl RTXPRO6000BSE v6 Spot' }), 'spot'],
    ['a reservation', row({ type: 'Reservation', reservationTerm: '1 Year' }), 'reservation'],
    ['Linux pay-as-you-go', row({}), 'on-demand'],
  ])('files %s under %s', (_, item, category) => {
    expect(categoryOf(item)).toBe(category);
  });

  it('spreads a reservation over its term and takes the newest of re-priced rows', () => {
    const prices = pricesFromRetailItems([
      // 1 Year total 8760 over 8760 h = 1.00/h; 3 Years 13140 over 26280 h = 0.50/h.
      row({ type: 'Reservation', reservationTerm: '1 Year', retailPrice: 8760 }),
      row({ type: 'Reservation', reservationTerm: '3 Years', retailPrice: 13140 }),
      row({ retailPrice: 2, effectiveStartDate: '2025-01-01T00:00:00Z' }),
      row({ retailPrice: 3, effectiveStartDate: '2026-06-01T00:00:00Z' }),
    ]);
    expect(prices).toMatchObject({ onDemand: 3, reserved1y: 1, reserved3y: 0.5, spot: null });
  });
});

describe('medians and network figures', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('reads the headline bandwidth, else the sum of the network cards', () => {
    expect(networkGbpsOf({ NetworkInfo: { NetworkPerformance: 'Up to 25 Gigabit' } })).toBe(25);
    expect(networkGbpsOf({ NetworkInfo: { NetworkPerformance: '3200 Gigabit' } })).toBe(3200);
    expect(networkGbpsOf({ NetworkInfo: { NetworkPerformance: 'Moderate' } })).toBeNull();
    expect(networkGbpsOf({ NetworkInfo: { NetworkPerformance: 'High', NetworkCards: [{ PeakBandwidthInGbps: 100 }, { PeakBandwidthInGbps: 100 }] } })).toBe(200);
  });

  it('skips a type without GPUs (the recorded t3.micro)', () => {
    const recorded = JSON.parse(readFileSync(corpusPath('aws', 'ec2-describe-instance-types__t3.micro_p3.16xlarge.json'), 'utf8')) as { InstanceTypes: InstanceTypeInfo[] };
    expect(instanceFromAws(recorded.InstanceTypes[0]!, 'us-east-1', 'test', tableGpuLookup)).toBeUndefined();
  });
});

describe('Azure SKUs', () => {
  const recorded = JSON.parse(readFileSync(corpusPath('azure', 'compute-resource-skus__eastus__skewer-testdata.json'), 'utf8')) as { value: ResourceSku[] };
  const nv6 = recorded.value.find((sku) => sku.name === 'Standard_NV6')!;

  it('ignores sizes without GPUs and keeps a GPU size restricted only in some zones', () => {
    expect(instanceFromAzureSku(recorded.value[0]!, 'eastus', 'test', tableGpuLookup)).toEqual({ kind: 'not-gpu' });
    // The recorded NV6 carries a Zone restriction (zones 1-3): still deployable in the region.
    expect(instanceFromAzureSku(nv6, 'eastus', 'test', tableGpuLookup)).toMatchObject({ kind: 'instance', instance: { name: 'Standard_NV6', gpuCount: 1 } });
  });

  it('skips a size the subscription cannot deploy in the location, and says so', () => {
    // The recorded D13_v2_Promo restriction: type Location, NotAvailableForSubscription.
    const locationRestriction = recorded.value.find((sku) => sku.name === 'Standard_D13_v2_Promo')!.restrictions!.filter((entry) => entry.type === 'Location');
    const restricted = { ...nv6, restrictions: locationRestriction };
    expect(instanceFromAzureSku(restricted, 'eastus', 'test', tableGpuLookup)).toEqual({ kind: 'skipped', notice: 'Standard_NV6: not offered to this subscription in eastus (NotAvailableForSubscription); skipped' });
  });

  it('keeps a GPU size of an unknown family with its count and an unknown model', () => {
    const unknown = { ...nv6, name: 'Standard_NX12ads_Future_v9' };
    expect(instanceFromAzureSku(unknown, 'eastus', 'test', tableGpuLookup)).toMatchObject({
      kind: 'instance', instance: { gpuModelKey: 'unknown', gpuModelName: 'unknown', gpuCount: 1 },
      notice: 'Standard_NX12ads_Future_v9: GPU model not known for this size family (the API gives only a count); model key "unknown"',
    });
  });
});

describe('what reaches a message', () => {
  it('removes key ids, signatures, bearer tokens and JWTs', () => {
    const text = 'denied AKIAABCDEFGHIJKLMNOP Credential=AKID/20261130/us-east-1/ec2/aws4_request, Signature=0123abcd X-Amz-Security-Token=FQoG%2B Bearer abc.def eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig';
    expect(safeMessage(text)).toBe('denied [redacted key id] Credential=[redacted], Signature=[redacted] X-Amz-Security-Token=[redacted] Bearer [redacted] [redacted token]');
  });

  it('names where credentials came from by variable, never by value', () => {
    expect(awsCredentialSource({ AWS_ACCESS_KEY_ID: 'AKIDSECRETVALUE', AWS_PROFILE: 'ci' })).toBe('environment variables (AWS_ACCESS_KEY_ID, default chain)');
    expect(awsCredentialSource({ AWS_PROFILE: 'billing' })).toBe('profile "billing" (AWS_PROFILE, default chain)');
    expect(awsCredentialSource({})).toBe('the default chain');
    expect(azureCredentialSource({ AZURE_CLIENT_SECRET: 'shh' })).toBe('DefaultAzureCredential (environment: client secret)');
  });
});

describe('the bounded HTTP retry and page guards', () => {
  let server: http.Server;
  let origin: string;
  const hits = new Map<string, number>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const path = req.url ?? '/';
      const count = (hits.get(path) ?? 0) + 1;
      hits.set(path, count);
      if (path === '/busy-then-ok') {
        if (count === 1) res.writeHead(429, { 'retry-after': '0' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } else if (path === '/missing') {
        res.writeHead(404).end();
      } else if (path === '/always-busy') {
        res.writeHead(503).end();
      } else if (path.startsWith('/api/retail/prices')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ Items: [], NextPageLink: 'https://elsewhere.example/api/retail/prices?$skip=1000' }));
      } else {
        res.writeHead(500).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('waits out a 429 and answers the next attempt', async () => {
    expect(await getJsonWithRetry(`${origin}/busy-then-ok`, { baseDelayMs: 1 })).toEqual({ ok: true });
    expect(hits.get('/busy-then-ok')).toBe(2);
  });

  it('does not retry a 404, and stops a 503 after the set attempts', async () => {
    await expect(getJsonWithRetry(`${origin}/missing`, { baseDelayMs: 1 })).rejects.toThrow(`${origin}: HTTP 404 Not Found`);
    expect(hits.get('/missing')).toBe(1);
    await expect(getJsonWithRetry(`${origin}/always-busy`, { baseDelayMs: 1, maxAttempts: 3 })).rejects.toThrow(`${origin}: HTTP 503 Service Unavailable (after 3 attempts)`);
    expect(hits.get('/always-busy')).toBe(3);
  });

  it('refuses a NextPageLink that leaves the prices host', async () => {
    await expect(fetchRetailPrices(`${origin}/api/retail/prices`, "armSkuName eq 'x'", { baseDelayMs: 1 })).rejects.toThrow('NextPageLink points at another host (https://elsewhere.example); not followed');
  });

  it('stops a paginator that never ends', async () => {
    async function* endless(): AsyncGenerator<number> {
      for (let page = 0; ; page += 1) yield page;
    }
    const seen: number[] = [];
    await expect((async () => {
      for await (const page of guardPages(endless(), 'DescribeInstanceTypes', 3)) seen.push(page);
    })()).rejects.toThrow('DescribeInstanceTypes: more than 3 pages; the listing does not end');
    expect(seen).toEqual([0, 1, 2]);
  });

  it('runs at most the given number of tasks at once, keeping their order', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapLimit([30, 10, 20, 5], 2, async (delay, index) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, delay));
      running -= 1;
      return index;
    });
    expect(results).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
  });
});

/**
 * The AWS answers the replay server builds, read back through the real SDK clients: the
 * EC2 query-protocol XML made from JSON recordings must decode to exactly the recorded
 * values, and the Price List's JSON-in-a-string products must parse to their terms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EC2Client, paginateDescribeInstanceTypes, paginateDescribeSpotPriceHistory, type SpotPrice } from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { pricesFromProduct, effectiveHourlyRate } from '../../src/catalog/refresh/aws-price-list.js';
import { typicalSpotPrices } from '../../src/catalog/refresh/spot-prices.js';
import { AWS_FAULT_REPLIES, awsHandlers } from '../replay/aws-service.js';
import { ReplayServer } from '../replay/server.js';
import { recordedInstanceTypes, recordedProductM5Large, recordedSpotHistoryM5Large } from '../replay/scenarios.js';

const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' };

/** The SDK leaves out members the wire did not carry; recordings spell them `null`. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== null).map(([key, member]) => [key, withoutNulls(member)]));
  }
  return value;
}

describe('EC2 XML built from JSON recordings, decoded by @aws-sdk/client-ec2', () => {
  let server: ReplayServer;
  let client: EC2Client;

  beforeAll(async () => {
    server = await ReplayServer.start({
      handlers: awsHandlers({
        instanceTypes: { 'us-east-1': recordedInstanceTypes() },
        spotPrices: { 'us-east-1': recordedSpotHistoryM5Large() },
        products: [{ ...recordedProductM5Large() }],
        savingsPlanRates: [],
        maxPageSize: 25,
      }),
      faults: AWS_FAULT_REPLIES,
    });
    client = new EC2Client({ region: 'us-east-1', endpoint: server.url, credentials, maxAttempts: 1 });
  });
  afterAll(async () => {
    client.destroy();
    await server.close();
  });

  it('gives back every recorded DescribeInstanceTypes item unchanged, across pages', async () => {
    const recorded = recordedInstanceTypes();
    const decoded = [];
    for await (const page of paginateDescribeInstanceTypes({ client, pageSize: 100 }, {})) decoded.push(...(page.InstanceTypes ?? []));
    // 3 instance-selector items + 70 moto items = 73, served 25 per page: 25 + 25 + 23, 3 pages.
    expect(decoded).toHaveLength(73);
    expect(server.requestsFor('ec2', 'DescribeInstanceTypes')).toHaveLength(3);
    expect(decoded).toEqual(withoutNulls(recorded));
  });

  it('decodes the recorded spot history and takes the newest price per zone, then the median', async () => {
    const history: SpotPrice[] = [];
    for await (const page of paginateDescribeSpotPriceHistory({ client, pageSize: 100 }, { InstanceTypes: ['m5.large'] })) history.push(...(page.SpotPriceHistory ?? []));
    expect(history).toHaveLength(250);
    expect(history[0]).toEqual({ AvailabilityZone: 'us-east-1f', InstanceType: 'm5.large', ProductDescription: 'Linux/UNIX', SpotPrice: '0.043700', Timestamp: new Date('2021-02-09T01:40:10Z') });
    // Newest per zone in the recording: 1a 0.0423 (02-08 23:58), 1b 0.0389, 1c 0.0381, 1d 0.0431,
    // 1f 0.0437 (02-09 01:40); no 1e. Sorted 0.0381 0.0389 0.0423 0.0431 0.0437: median 0.0423.
    expect(typicalSpotPrices(history).get('m5.large')).toBe(0.0423);
  });

  it('reads the recorded m5.large price list product through the Pricing client', async () => {
    const pricing = new PricingClient({ region: 'us-east-1', endpoint: server.url, credentials, maxAttempts: 1 });
    try {
      const answer = await pricing.send(new GetProductsCommand({ ServiceCode: 'AmazonEC2' }));
      expect(answer.PriceList).toHaveLength(1);
      const prices = pricesFromProduct(JSON.parse(String(answer.PriceList![0])));
      // OnDemand JRTCKXETXF: "0.0960000000" per Hrs. Reserved, standard class, No Upfront:
      // 1yr 4NA7Y494T4 "0.0600000000"/h, 3yr BPH4J8HBKS "0.0410000000"/h (no upfront fee).
      expect(prices).toEqual({ instanceType: 'm5.large', onDemand: 0.096, reserved1y: 0.06, reserved3y: 0.041 });
    } finally {
      pricing.destroy();
    }
  });
});

describe('price list terms', () => {
  const product = recordedProductM5Large() as { terms: { Reserved: Record<string, Parameters<typeof effectiveHourlyRate>[0]> } };

  it('spreads an upfront fee over the term hours', () => {
    // 1yr standard Partial Upfront (HU7G6KETJZ): 252 upfront + 0.029/h; 252 / 8760 = 0.0287671...
    // so 0.0287671 + 0.029 = 0.0577671 per hour.
    expect(effectiveHourlyRate(product.terms.Reserved['6C86BEPQVG73ZGGR.HU7G6KETJZ']!, 8760)).toBeCloseTo(0.0577671, 7);
    // 3yr standard All Upfront (NQ3QZPMQV9): 949 upfront + 0/h; 949 / 26280 = 0.0361111 per hour.
    expect(effectiveHourlyRate(product.terms.Reserved['6C86BEPQVG73ZGGR.NQ3QZPMQV9']!, 26280)).toBeCloseTo(0.0361111, 7);
  });

  it('leaves out products that are not Linux on shared tenancy', () => {
    const document = recordedProductM5Large() as { product: { attributes: Record<string, string> } };
    const windows = { ...document, product: { ...document.product, attributes: { ...document.product.attributes, operatingSystem: 'Windows' } } };
    const dedicated = { ...document, product: { ...document.product, attributes: { ...document.product.attributes, tenancy: 'Dedicated', usagetype: 'DedicatedUsage:m5.large' } } };
    expect(pricesFromProduct(windows)).toBeUndefined();
    expect(pricesFromProduct(dedicated)).toBeUndefined();
  });
});

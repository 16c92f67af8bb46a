/**
 * `refreshAws` through the real @aws-sdk/client-ec2 and @aws-sdk/client-pricing against the
 * local replay server: recorded DescribeInstanceTypes items (instance-selector 2020, moto
 * 2026-08), synthetic GPU spot history and price list products (test/fixtures/cloud/aws,
 * values from ../shared/catalog), served in pages of 25.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { refreshAws, type AwsRefreshOptions } from '../../src/catalog/aws.js';
import { UpstreamError } from '../../src/support/errors.js';
import { AWS_FAULT_REPLIES, awsHandlers } from '../replay/aws-service.js';
import { ReplayServer } from '../replay/server.js';
import { awsScenario } from '../replay/scenarios.js';

const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' };
const NOW = new Date('2026-11-30T08:00:00Z');

let server: ReplayServer;

beforeAll(async () => {
  server = await ReplayServer.start({ handlers: awsHandlers(awsScenario({ maxPageSize: 25 })), faults: AWS_FAULT_REPLIES });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.clearFaults();
  server.requests.length = 0;
  vi.unstubAllEnvs();
});

function options(overrides: Partial<AwsRefreshOptions> = {}): AwsRefreshOptions {
  return { regions: ['us-east-1'], endpoint: server.url, credentials, now: () => NOW, ...overrides };
}

describe('refreshAws against recorded answers', () => {
  it('lists every GPU type of the region across pages and prices it', async () => {
    const result = await refreshAws(options());

    // Served: t3.micro, p3.16xlarge (instance-selector), g2.2xlarge, 70 moto GPU types. The
    // instance-type filter g*/p* drops t3.micro on the server: 72 types, 25 per page, 3 pages.
    expect(result.instances).toHaveLength(72);
    expect(server.requestsFor('ec2', 'DescribeInstanceTypes')).toHaveLength(3);
    expect(result.regions).toEqual([{ region: 'us-east-1', instanceTypes: 72, withOnDemandPrice: 5, withSpotPrice: 3 }]);
    expect(result.failures).toEqual([]);
    expect(result.fetchedAt).toBe('2026-11-30T08:00:00.000Z');

    const p5 = result.instances.find((instance) => instance.name === 'p5.48xlarge');
    expect(p5).toMatchObject({
      provider: 'aws', region: 'us-east-1', gpuModelKey: 'h100-sxm-80gb', gpuModelName: 'NVIDIA H100 80GB HBM3',
      // moto: Count 8, MemoryInfo 81920 MiB per GPU (the GPU table's driver-reported 81559 is kept:
      // within 5%, the same board), DefaultVCpus 192, 2097152 MiB = 2048 GiB, "3200 Gigabit".
      gpuCount: 8, gpuPartitionSize: 1, vramPerGpuMiB: 81559, vcpus: 192, memoryGiB: 2048, networkGbps: 3200,
    });
    // Spot per zone (fixture): 30.326 27.6948 20.9934 29.3511 25.8774 25.3026; sorted, the middle
    // two are 25.8774 and 27.6948: (25.8774 + 27.6948) / 2 = 26.7861.
    expect(p5?.prices.spot).toBeCloseTo(26.7861, 10);
    expect(p5?.prices.onDemand).toBe(55.04);
    expect(p5?.prices.reserved1y).toBeNull();
    expect(p5?.prices.sources).toEqual([
      'aws:pricing:GetProducts us-east-1 2026-11-30 (Linux, shared tenancy; reserved = standard class, No Upfront preferred)',
      'aws:ec2:DescribeSpotPriceHistory us-east-1 2026-11-30 (median across zones)',
      'aws:savingsplans:DescribeSavingsPlansOfferingRates us-east-1 2026-11-30 (EC2Instance Savings Plan, No Upfront, Linux, shared tenancy; the lowest rate)',
    ]);
    expect(p5?.prices.spotObservedAt).toBe('2026-11-30');

    // g4dn.xlarge spot per zone: 0.201 0.186 0.1869 0.1845 0.1872; sorted, the middle one is 0.1869.
    expect(result.instances.find((instance) => instance.name === 'g4dn.xlarge')?.prices).toMatchObject({ onDemand: 0.526, spot: 0.1869 });
  });

  it('reads the Savings Plans rates through the real client: the lowest No Upfront rate per term, Linux on shared tenancy in the region', async () => {
    const result = await refreshAws(options());
    // Fixture (synthetic test values): p5.48xlarge 1y EC2Instance 40 < Compute 44; 3y EC2Instance 28 < Compute 32.
    // Left out: All Upfront 38, dedicated 70, Windows 60, us-west-2 41.
    const p5 = result.instances.find((instance) => instance.name === 'p5.48xlarge')!;
    expect(p5.prices).toMatchObject({ savingsPlan1y: 40, savingsPlan3y: 28 });
    // g6.xlarge has a Compute rate only, for 1 year.
    expect(result.instances.find((instance) => instance.name === 'g6.xlarge')!.prices).toMatchObject({ savingsPlan1y: 0.6, savingsPlan3y: null });
    const [request] = server.requestsFor('savingsplans', 'DescribeSavingsPlansOfferingRates');
    const body = JSON.parse(request!.body) as { filters: { name: string; values: string[] }[]; savingsPlanPaymentOptions: string[]; savingsPlanTypes: string[] };
    expect(body.savingsPlanPaymentOptions).toEqual(['No Upfront']);
    expect(body.savingsPlanTypes).toEqual(['EC2Instance', 'Compute']);
    expect(body.filters.find((filter) => filter.name === 'region')!.values).toEqual(['us-east-1']);
    expect(body.filters.find((filter) => filter.name === 'instanceType')!.values).toContain('p5.48xlarge');
    // The global endpoint is signed for us-east-1.
    expect(request!.region).toBe('us-east-1');
  });

  it('keeps the region without savings-plan rates where Savings Plans refuses, and says so', async () => {
    server.inject({ service: 'savingsplans', kind: 'region-denied' });
    const result = await refreshAws(options({ maxAttempts: 1 }));
    expect(result.failures).toEqual([]);
    expect(result.instances.find((instance) => instance.name === 'p5.48xlarge')!.prices).toMatchObject({ onDemand: 55.04, savingsPlan1y: null, savingsPlan3y: null });
    expect(result.notices.filter((notice) => notice.includes('savings-plan'))).toEqual([
      expect.stringMatching(/^us-east-1: savings-plan rates not read from http:\/\/127\.0\.0\.1:\d+: .*not authorized/),
    ]);
  });

  it('follows the Savings Plans nextToken across pages', async () => {
    const paged = await ReplayServer.start({ handlers: awsHandlers(awsScenario({ maxPageSize: 2 })), faults: AWS_FAULT_REPLIES });
    try {
      const result = await refreshAws(options({ endpoint: paged.url }));
      expect(paged.requestsFor('savingsplans').length).toBeGreaterThan(1);
      expect(result.instances.find((instance) => instance.name === 'p5.48xlarge')!.prices).toMatchObject({ savingsPlan1y: 40, savingsPlan3y: 28 });
    } finally {
      await paged.close();
    }
  });

  it('keeps a fractional GPU type as a partition of one GPU, never dividing by its zero count', async () => {
    const result = await refreshAws(options());
    // moto g6f.large: Count 0, GpuPartitionSize 0.125, MemoryInfo 2861 MiB (the slice's memory).
    expect(result.instances.find((instance) => instance.name === 'g6f.large')).toMatchObject({
      gpuModelKey: 'l4', gpuCount: 0, gpuPartitionSize: 0.125, vramPerGpuMiB: 2861, prices: { onDemand: 0.202, spot: null },
    });
  });

  it('reads a 2020 recording without partition sizes as whole GPUs and says which GPUs it cannot name', async () => {
    const result = await refreshAws(options());
    expect(result.instances.find((instance) => instance.name === 'p3.16xlarge')).toMatchObject({ gpuModelKey: 'v100-sxm2-16gb', gpuCount: 8, gpuPartitionSize: 1, networkGbps: 25 });
    // g2.2xlarge: "Moderate" network has no number; the K520 is not in the GPU table.
    expect(result.instances.find((instance) => instance.name === 'g2.2xlarge')).toMatchObject({ gpuModelKey: 'unknown', gpuModelName: 'GRID K520', networkGbps: null });
    expect(result.notices).toContain('us-east-1: GPU "NVIDIA K520" is not in the GPU table; model key "unknown" for g2.2xlarge');
    // 6 g5g sizes carry the T4g: one notice for the GPU, not six.
    expect(result.notices).toContain('us-east-1: GPU "NVIDIA T4g" is not in the GPU table; model key "unknown" for 6 types: g5g.16xlarge, g5g.2xlarge, g5g.4xlarge, g5g.8xlarge and 2 more');
  });

  it('asks EC2 for GPU families only, Linux spot prices as of now, and the region\'s Linux list prices', async () => {
    await refreshAws(options());
    const describe = new URLSearchParams(server.requestsFor('ec2', 'DescribeInstanceTypes')[0]!.body);
    expect([describe.get('Filter.1.Name'), describe.get('Filter.1.Value.1'), describe.get('Filter.1.Value.2')]).toEqual(['instance-type', 'g*', 'p*']);
    const spot = new URLSearchParams(server.requestsFor('ec2', 'DescribeSpotPriceHistory')[0]!.body);
    expect(spot.get('ProductDescription.1')).toBe('Linux/UNIX');
    expect(spot.get('StartTime')).toBe('2026-11-30T08:00:00Z');
    const products = JSON.parse(server.requestsFor('pricing', 'GetProducts')[0]!.body) as { Filters: { Field: string; Value: string }[] };
    expect(products.Filters.map((filter) => `${filter.Field}=${filter.Value}`)).toEqual([
      'regionCode=us-east-1', 'operatingSystem=Linux', 'tenancy=Shared', 'preInstalledSw=NA', 'capacitystatus=Used', 'licenseModel=No License required',
    ]);
    // The Price List is signed for its own region, whatever region is being refreshed.
    expect(server.requestsFor('pricing')[0]!.region).toBe('us-east-1');
  });
});

describe('refreshAws when AWS pushes back', () => {
  it('retries throttling (RequestLimitExceeded, ThrottlingException) and then succeeds', async () => {
    server.inject({ service: 'ec2', operation: 'DescribeInstanceTypes', kind: 'throttle', times: 2 });
    server.inject({ service: 'pricing', kind: 'throttle', times: 1 });
    const result = await refreshAws(options());
    expect(result.instances).toHaveLength(72);
    // 2 throttled + 3 pages; 1 throttled + 1 page of 5 products (25 per page).
    expect(server.requestsFor('ec2', 'DescribeInstanceTypes')).toHaveLength(5);
    expect(server.requestsFor('pricing', 'GetProducts')).toHaveLength(2);
  });

  it('gives up after the bounded number of attempts', async () => {
    server.inject({ service: 'ec2', operation: 'DescribeInstanceTypes', kind: 'throttle' });
    await expect(refreshAws(options({ maxAttempts: 3 }))).rejects.toThrow(/us-east-1: RequestLimitExceeded: Request limit exceeded/);
    expect(server.requestsFor('ec2', 'DescribeInstanceTypes')).toHaveLength(3);
  });

  it('names the credential source when AWS rejects expired credentials from the default chain', async () => {
    // The SDK's own default chain finds these environment variables first.
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDTEST');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    vi.stubEnv('AWS_SESSION_TOKEN', 'session');
    server.inject({ service: 'ec2', kind: 'expired-token' });
    const failure = await refreshAws(options({ credentials: undefined })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    const upstream = failure as UpstreamError;
    expect(upstream.message).toBe('us-east-1: AWS credentials from environment variables (AWS_ACCESS_KEY_ID, default chain) were rejected (ExpiredToken)');
    expect(upstream.endpoint).toBe(server.url);
    expect(upstream.status).toBe(400);
    // Rejected credentials are not retried.
    expect(server.requestsFor('ec2')).toHaveLength(1);
  });

  it('keeps the regions that worked and lists the one that failed, with its error', async () => {
    server.inject({ service: 'ec2', region: 'eu-west-1', kind: 'region-denied' });
    const result = await refreshAws(options({ regions: ['us-east-1', 'eu-west-1'] }));
    expect(result.regions.map((region) => region.region)).toEqual(['us-east-1']);
    expect(result.instances.every((instance) => instance.region === 'us-east-1')).toBe(true);
    expect(result.failures).toEqual([{ region: 'eu-west-1', endpoint: server.url, status: 403, error: 'UnauthorizedOperation: You are not authorized to perform this operation.' }]);
  });

  it('fails a region whose answer is cut off midway on every attempt', async () => {
    server.inject({ service: 'ec2', operation: 'DescribeInstanceTypes', kind: 'abort-mid-body' });
    await expect(refreshAws(options({ maxAttempts: 2 }))).rejects.toBeInstanceOf(UpstreamError);
    expect(server.requestsFor('ec2', 'DescribeInstanceTypes')).toHaveLength(2);
  });
});

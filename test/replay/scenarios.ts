/**
 * The recorded worlds the replay server plays back: real recordings from ../shared/corpus
 * where they exist, and the project's synthetic fixtures (test/fixtures/cloud, each saying
 * where its values come from) where no recording exists.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusPath, repoRoot } from '../helpers/corpus.js';
import type { AwsScenario } from './aws-service.js';
import type { AzureScenario } from './azure-service.js';

type Json = Record<string, unknown>;

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export function fixturePath(...parts: string[]): string {
  return path.join(repoRoot, 'test/fixtures/cloud', ...parts);
}

/** Real DescribeInstanceTypes items: the 2020 instance-selector recordings (t3.micro, p3.16xlarge, g2.2xlarge) and moto's 70 GPU types (2026-08). */
export function recordedInstanceTypes(): Json[] {
  const selector = [
    ...readJson<{ InstanceTypes: Json[] }>(corpusPath('aws', 'ec2-describe-instance-types__t3.micro_p3.16xlarge.json')).InstanceTypes,
    ...readJson<{ InstanceTypes: Json[] }>(corpusPath('aws', 'ec2-describe-instance-types__g2.2xlarge.json')).InstanceTypes,
  ];
  const moto = readJson<Record<string, Json>>(corpusPath('aws', 'moto-instance-types__gpu-subset__head.json'));
  return [...selector, ...Object.keys(moto).sort().map((key) => moto[key]!)];
}

export function recordedSpotHistoryM5Large(): Json[] {
  return readJson<{ SpotPriceHistory: Json[] }>(corpusPath('aws', 'ec2-describe-spot-price-history__m5.large.json')).SpotPriceHistory;
}

export function recordedProductM5Large(): Json {
  return readJson<Json>(corpusPath('aws', 'pricing-get-products__m5.large.json'));
}

/** us-east-1: every recorded instance type, synthetic GPU spot history and price list products. */
export function awsScenario(overrides: Partial<AwsScenario> = {}): AwsScenario {
  const spot = readJson<{ SpotPriceHistory: Json[] }>(fixturePath('aws', 'spot-price-history__us-east-1__gpu.json')).SpotPriceHistory;
  const products = readJson<{ products: Json[] }>(fixturePath('aws', 'get-products__us-east-1__gpu.json')).products;
  const savingsPlanRates = readJson<{ searchResults: Json[] }>(fixturePath('aws', 'savings-plans-offering-rates__us-east-1__gpu.json')).searchResults;
  return {
    instanceTypes: { 'us-east-1': recordedInstanceTypes() },
    spotPrices: { 'us-east-1': spot },
    products,
    savingsPlanRates,
    ...overrides,
  };
}

/** eastus: the real 4-SKU skewer recording as page 1, the synthetic GPU SKUs as page 2, synthetic retail rows. */
export function azureScenario(overrides: Partial<AzureScenario> = {}): AzureScenario {
  const recorded = readJson<Json>(corpusPath('azure', 'compute-resource-skus__eastus__skewer-testdata.json'));
  const secondPage = readJson<{ body: Json }>(fixturePath('azure', 'resource-skus__eastus__gpu-page2.json')).body;
  const retail = readJson<{ Items: Json[] }>(fixturePath('azure', 'retail-prices__eastus__gpu.json')).Items;
  return {
    skuPages: { eastus: [recorded, secondPage] },
    retailItems: retail,
    ...overrides,
  };
}

/**
 * Replay answers for the AWS calls of `catalog refresh --aws`: EC2 `DescribeInstanceTypes`
 * and `DescribeSpotPriceHistory` (query protocol, XML), Price List `GetProducts` (JSON 1.1) and
 * Savings Plans `DescribeSavingsPlansOfferingRates` (REST JSON).
 * The server applies the request's filters and pages the way the services do, so the SDK's
 * paginators and the refresh's filters meet a faithful counterpart.
 */
import type { Reply, ReplayRequest, ReplayServerOptions, ServiceHandler } from './server.js';
import { ec2ErrorResponse, ec2Response } from './ec2-xml.js';

type Json = Record<string, unknown>;

export interface AwsScenario {
  /** `DescribeInstanceTypes` items (SDK JSON shape) per region. */
  instanceTypes: Record<string, Json[]>;
  /** `DescribeSpotPriceHistory` records per region. */
  spotPrices: Record<string, Json[]>;
  /** Price List product documents (decoded), matched on their `regionCode` attribute. */
  products: Json[];
  /** Savings Plans offering rates (SDK JSON shape), matched on their properties and offering. */
  savingsPlanRates: Json[];
  /** The most items the server puts in one page, whatever MaxResults asks (EC2 may answer fewer). */
  maxPageSize?: number;
}

/** `Filter.1.Name=instance-type&Filter.1.Value.1=g*` -> { 'instance-type': ['g*'] }. */
function queryFilters(form: URLSearchParams): Map<string, string[]> {
  const filters = new Map<string, string[]>();
  for (const [key, value] of form) {
    const match = /^Filter\.(\d+)\.Name$/.exec(key);
    if (match === null) continue;
    const values: string[] = [];
    for (let index = 1; form.has(`Filter.${match[1]}.Value.${index}`); index += 1) values.push(form.get(`Filter.${match[1]}.Value.${index}`)!);
    filters.set(value, values);
  }
  return filters;
}

function queryList(form: URLSearchParams, prefix: string): string[] {
  const values: string[] = [];
  for (let index = 1; form.has(`${prefix}.${index}`); index += 1) values.push(form.get(`${prefix}.${index}`)!);
  return values;
}

/** EC2 filter wildcards: `*` any run, `?` one character. */
function wildcardMatch(pattern: string, value: string): boolean {
  const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return regex.test(value);
}

interface Page<T> {
  items: T[];
  nextToken: string | undefined;
}

function page<T>(items: readonly T[], token: string | null | undefined, maxResults: number): Page<T> {
  const start = token === null || token === undefined || token === '' ? 0 : Number(token.replace(/^page-/, ''));
  const end = start + maxResults;
  return { items: items.slice(start, end), nextToken: end < items.length ? `page-${end}` : undefined };
}

function pageSize(requested: string | number | null | undefined, cap: number | undefined): number {
  const asked = requested === null || requested === undefined ? 1000 : Number(requested);
  return Math.min(asked, cap ?? asked);
}

let requestCounter = 0;
const requestId = (): string => `replay-${(requestCounter += 1).toString().padStart(6, '0')}`;

function xmlReply(body: string, status = 200): Reply {
  return { status, headers: { 'content-type': 'text/xml;charset=UTF-8' }, body };
}

function describeInstanceTypes(scenario: AwsScenario, request: ReplayRequest, form: URLSearchParams): Reply {
  const all = scenario.instanceTypes[request.region ?? ''] ?? [];
  const patterns = queryFilters(form).get('instance-type');
  const matching = patterns === undefined ? all : all.filter((item) => patterns.some((pattern) => wildcardMatch(pattern, String(item.InstanceType))));
  const { items, nextToken } = page(matching, form.get('NextToken'), pageSize(form.get('MaxResults'), scenario.maxPageSize));
  return xmlReply(ec2Response('DescribeInstanceTypes', { InstanceTypes: items, ...(nextToken === undefined ? {} : { NextToken: nextToken }) }, requestId()));
}

function describeSpotPriceHistory(scenario: AwsScenario, request: ReplayRequest, form: URLSearchParams): Reply {
  const types = queryList(form, 'InstanceType');
  const products = queryList(form, 'ProductDescription');
  const matching = (scenario.spotPrices[request.region ?? ''] ?? []).filter((record) =>
    (types.length === 0 || types.includes(String(record.InstanceType))) && (products.length === 0 || products.includes(String(record.ProductDescription))));
  const { items, nextToken } = page(matching, form.get('NextToken'), pageSize(form.get('MaxResults'), scenario.maxPageSize));
  // EC2 ends this listing with an empty <nextToken/> rather than none (SOURCES.md §3, aws-sdk-rust #391).
  return xmlReply(ec2Response('DescribeSpotPriceHistory', { SpotPriceHistory: items, NextToken: nextToken ?? '' }, requestId()));
}

function ec2Handler(scenario: AwsScenario): ServiceHandler {
  return (request) => {
    const form = new URLSearchParams(request.body);
    if (request.operation === 'DescribeInstanceTypes') return describeInstanceTypes(scenario, request, form);
    if (request.operation === 'DescribeSpotPriceHistory') return describeSpotPriceHistory(scenario, request, form);
    return xmlReply(ec2ErrorResponse('InvalidAction', `The action ${request.operation} is not valid for this web service.`, requestId()), 400);
  };
}

interface PriceListRequest {
  ServiceCode?: string;
  Filters?: { Type: string; Field: string; Value: string }[];
  MaxResults?: number;
  NextToken?: string;
}

function jsonReply(body: unknown, status = 200, errorType?: string): Reply {
  return { status, headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': requestId(), ...(errorType === undefined ? {} : { 'x-amzn-errortype': errorType }) }, body: JSON.stringify(body) };
}

function pricingHandler(scenario: AwsScenario): ServiceHandler {
  return (request) => {
    if (request.operation !== 'GetProducts') return jsonReply({ __type: 'UnknownOperationException' }, 400, 'UnknownOperationException');
    const input = JSON.parse(request.body) as PriceListRequest;
    const matching = scenario.products.filter((product) => {
      const document = product as { serviceCode?: string; product?: { attributes?: Record<string, string> } };
      if (input.ServiceCode !== undefined && document.serviceCode !== input.ServiceCode) return false;
      return (input.Filters ?? []).every((filter) => filter.Type !== 'TERM_MATCH' || document.product?.attributes?.[filter.Field] === filter.Value);
    });
    const { items, nextToken } = page(matching, input.NextToken, pageSize(input.MaxResults, scenario.maxPageSize));
    // On the wire every product is a JSON document inside a string.
    return jsonReply({ FormatVersion: 'aws_v1', PriceList: items.map((item) => JSON.stringify(item)), ...(nextToken === undefined ? {} : { NextToken: nextToken }) });
  };
}

interface OfferingRatesRequest {
  savingsPlanPaymentOptions?: string[];
  savingsPlanTypes?: string[];
  products?: string[];
  serviceCodes?: string[];
  filters?: { name: string; values: string[] }[];
  maxResults?: number;
  nextToken?: string;
}

function restJsonReply(body: unknown, status = 200, errorType?: string): Reply {
  return { status, headers: { 'content-type': 'application/json', 'x-amzn-requestid': requestId(), ...(errorType === undefined ? {} : { 'x-amzn-errortype': errorType }) }, body: JSON.stringify(body) };
}

/** `DescribeSavingsPlansOfferingRates`: every filter is an AND of its values' OR, on the rate's properties. */
function savingsPlansHandler(scenario: AwsScenario): ServiceHandler {
  return (request) => {
    if (request.operation !== 'DescribeSavingsPlansOfferingRates') return restJsonReply({ message: `unknown operation ${request.operation}` }, 404, 'ResourceNotFoundException');
    const input = JSON.parse(request.body === '' ? '{}' : request.body) as OfferingRatesRequest;
    const matching = scenario.savingsPlanRates.filter((rate) => {
      const offering = (rate.savingsPlanOffering ?? {}) as Record<string, unknown>;
      const properties = new Map(((rate.properties ?? []) as { name: string; value: string }[]).map((entry) => [entry.name, entry.value]));
      if (input.savingsPlanPaymentOptions !== undefined && !input.savingsPlanPaymentOptions.includes(String(offering.paymentOption))) return false;
      if (input.savingsPlanTypes !== undefined && !input.savingsPlanTypes.includes(String(offering.planType))) return false;
      if (input.products !== undefined && !input.products.includes(String(rate.productType))) return false;
      if (input.serviceCodes !== undefined && !input.serviceCodes.includes(String(rate.serviceCode))) return false;
      return (input.filters ?? []).every((filter) => filter.values.includes(properties.get(filter.name) ?? ''));
    });
    const { items, nextToken } = page(matching, input.nextToken, pageSize(input.maxResults, scenario.maxPageSize));
    return restJsonReply({ searchResults: items, ...(nextToken === undefined ? {} : { nextToken }) });
  };
}

/** Error answers as the services send them (codes the SDKs classify: throttling, credentials). */
export const AWS_FAULT_REPLIES: NonNullable<ReplayServerOptions['faults']> = {
  ec2: {
    throttle: xmlReply(ec2ErrorResponse('RequestLimitExceeded', 'Request limit exceeded.', 'replay-throttle'), 503),
    'expired-token': xmlReply(ec2ErrorResponse('ExpiredToken', 'The security token included in the request is expired', 'replay-expired'), 400),
    'region-denied': xmlReply(ec2ErrorResponse('UnauthorizedOperation', 'You are not authorized to perform this operation.', 'replay-denied'), 403),
    'server-error': xmlReply(ec2ErrorResponse('InternalError', 'An internal error has occurred.', 'replay-internal'), 500),
  },
  savingsplans: {
    throttle: restJsonReply({ message: 'Rate exceeded' }, 429, 'ThrottlingException'),
    'expired-token': restJsonReply({ message: 'The security token included in the request is expired' }, 403, 'ExpiredTokenException'),
    'region-denied': restJsonReply({ message: 'User is not authorized to perform: savingsplans:DescribeSavingsPlansOfferingRates' }, 403, 'AccessDeniedException'),
    'server-error': restJsonReply({ message: 'An internal error occurred' }, 500, 'InternalServerException'),
  },
  pricing: {
    throttle: jsonReply({ __type: 'ThrottlingException', message: 'Rate exceeded' }, 400, 'ThrottlingException'),
    'expired-token': jsonReply({ __type: 'ExpiredTokenException', message: 'The security token included in the request is expired' }, 400, 'ExpiredTokenException'),
    'region-denied': jsonReply({ __type: 'AccessDeniedException', message: 'User is not authorized to perform: pricing:GetProducts' }, 400, 'AccessDeniedException'),
    'server-error': jsonReply({ __type: 'InternalErrorException', message: 'An error on the server occurred' }, 500, 'InternalErrorException'),
  },
};

export function awsHandlers(scenario: AwsScenario): ReplayServerOptions['handlers'] {
  return { ec2: ec2Handler(scenario), pricing: pricingHandler(scenario), savingsplans: savingsPlansHandler(scenario) };
}

/**
 * Replay answers for the Azure calls of `catalog refresh --azure`: the Resource SKUs list of
 * Azure Resource Manager (pages joined by `nextLink`) and the Retail Prices API (rows chosen
 * by the `$filter`, pages joined by `NextPageLink`).
 */
import type { Reply, ReplayServerOptions, ServiceHandler } from './server.js';

type Json = Record<string, unknown>;

export interface AzureScenario {
  /** Pages of the SKU list per location, each a `{ value: [...] }` body; the server adds `nextLink`. */
  skuPages: Record<string, Json[]>;
  /** Every retail price row; the server keeps those the request's `$filter` names. */
  retailItems: Json[];
  /** Rows per Retail Prices page (the API pages at 1000). */
  pricesPageSize?: number;
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}

const UNAUTHENTICATED = json({ error: { code: 'AuthenticationFailed', message: 'Authentication failed. The Authorization header is missing.' } }, 401);

function armHandler(scenario: AzureScenario): ServiceHandler {
  return (request, origin) => {
    if (!/^Bearer \S+$/.test(request.headers.authorization ?? '')) return UNAUTHENTICATED;
    const location = request.region ?? '';
    const pages = scenario.skuPages[location] ?? [{ value: [] }];
    const index = Number(request.url.searchParams.get('$skiptoken') ?? '0');
    const body = pages[index] ?? { value: [] };
    if (index + 1 >= pages.length) return json(body);
    const next = new URL(request.url.pathname, origin);
    for (const [key, value] of request.url.searchParams) if (key !== '$skiptoken') next.searchParams.set(key, value);
    next.searchParams.set('$skiptoken', String(index + 1));
    return json({ ...body, nextLink: next.toString() });
  };
}

/** The equality clauses of an OData filter: `armSkuName eq 'X' and ...` -> { armSkuName: 'X' }. */
function equalities(filter: string): Record<string, string> {
  const clauses: Record<string, string> = {};
  for (const match of filter.matchAll(/(\w+) eq '((?:[^']|'')*)'/g)) clauses[match[1]!] = match[2]!.replace(/''/g, "'");
  return clauses;
}

function pricesHandler(scenario: AzureScenario): ServiceHandler {
  return (request, origin) => {
    const clauses = equalities(request.url.searchParams.get('$filter') ?? '');
    const rows = scenario.retailItems.filter((row) => Object.entries(clauses).every(([field, value]) => row[field] === value));
    const size = scenario.pricesPageSize ?? 1000;
    const skip = Number(request.url.searchParams.get('$skip') ?? '0');
    const items = rows.slice(skip, skip + size);
    let nextPageLink: string | null = null;
    if (skip + size < rows.length) {
      const next = new URL(request.url.pathname, origin);
      for (const [key, value] of request.url.searchParams) if (key !== '$skip') next.searchParams.set(key, value);
      next.searchParams.set('$skip', String(skip + size));
      nextPageLink = next.toString();
    }
    return json({ BillingCurrency: 'USD', CustomerEntityId: 'Default', CustomerEntityType: 'Retail', Items: items, NextPageLink: nextPageLink, Count: items.length });
  };
}

export const AZURE_FAULT_REPLIES: NonNullable<ReplayServerOptions['faults']> = {
  arm: {
    // ARM asks for a retry after the number of seconds in Retry-After; 0 keeps tests quick.
    throttle: json({ error: { code: 'TooManyRequests', message: 'The request is being throttled.' } }, 429, { 'retry-after': '0' }),
    'expired-token': json(
      { error: { code: 'ExpiredAuthenticationToken', message: 'The access token expiry UTC time is earlier than current UTC time.' } },
      401,
      { 'www-authenticate': 'Bearer authorization_uri="https://login.windows.net/", error="invalid_token", error_description="The access token has expired."' },
    ),
    'region-denied': json({ error: { code: 'LocationNotAvailableForResourceType', message: 'The provided location is not available for resource type Microsoft.Compute/skus.' } }, 400),
    'server-error': json({ error: { code: 'InternalServerError', message: 'Encountered internal server error.' } }, 500),
  },
  prices: {
    throttle: json({ Message: 'Too many requests' }, 429, { 'retry-after': '0' }),
    'server-error': json({ Message: 'An error has occurred.' }, 500),
  },
};

export function azureHandlers(scenario: AzureScenario): ReplayServerOptions['handlers'] {
  return { arm: armHandler(scenario), prices: pricesHandler(scenario) };
}

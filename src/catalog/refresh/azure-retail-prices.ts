/**
 * The Azure Retail Prices API (https://prices.azure.com/api/retail/prices): public, no auth.
 * Pages carry `Items` and an absolute `NextPageLink` (null on the last page).
 *
 * Telling the rows of one VM size apart (Microsoft Learn, "Azure Retail Prices REST API"):
 * Linux pay-as-you-go is `type` Consumption without " Windows" at the end of `productName`
 * and without " Spot" / " Low Priority" in the meter; spot is a Consumption row whose meter
 * ends in " Spot"; Low Priority is Batch's and not a VM price; reservations are `type`
 * Reservation whose `retailPrice` is the total for the whole term; savings plans ride on the
 * Consumption row as `savingsPlan[]` (api-version 2023-01-01-preview).
 */
import { z } from 'zod';
import type { InstancePrices } from '../../model/index.js';
import { getJsonWithRetry, type HttpRetryOptions } from './http-json.js';
import { MAX_PAGES } from './paging.js';

export const DEFAULT_RETAIL_PRICES_URL = 'https://prices.azure.com/api/retail/prices';
/** The version that carries savings-plan rates; older versions answer the same rows without them. */
const API_VERSION = '2023-01-01-preview';

const retailItemSchema = z.object({
  currencyCode: z.string(),
  retailPrice: z.number(),
  unitPrice: z.number().optional(),
  armRegionName: z.string(),
  armSkuName: z.string(),
  productName: z.string(),
  meterName: z.string(),
  skuName: z.string().optional(),
  type: z.string(),
  reservationTerm: z.string().nullish(),
  unitOfMeasure: z.string().optional(),
  effectiveStartDate: z.string().optional(),
  savingsPlan: z.array(z.object({ term: z.string(), retailPrice: z.number().optional(), unitPrice: z.number().optional() }).loose()).nullish(),
}).loose();

const retailPageSchema = z.object({
  Items: z.array(retailItemSchema),
  NextPageLink: z.string().nullish(),
}).loose();

export type RetailPriceItem = z.infer<typeof retailItemSchema>;

const HOURS_PER_TERM: Readonly<Record<string, number>> = { '1 Year': 8760, '3 Years': 26280 };

type Category = 'on-demand' | 'spot' | 'reservation' | 'ignored';

/** The rules in the header, as data: the first rule that matches decides. */
const CATEGORY_RULES: readonly { test: (item: RetailPriceItem) => boolean; category: Category }[] = [
  { test: (item) => item.currencyCode !== 'USD', category: 'ignored' },
  { test: (item) => / Windows$/i.test(item.productName.trim()), category: 'ignored' },
  { test: (item) => /low priority/i.test(`${item.meterName} ${item.skuName ?? ''}`), category: 'ignored' },
  { test: (item) => item.type === 'Reservation', category: 'reservation' },
  { test: (item) => item.type !== 'Consumption', category: 'ignored' },
  { test: (item) => / Spot$/i.test(item.meterName.trim()) || / Spot$/i.test((item.skuName ?? '').trim()), category: 'spot' },
  { test: () => true, category: 'on-demand' },
];

export function categoryOf(item: RetailPriceItem): Category {
  return CATEGORY_RULES.find((rule) => rule.test(item))!.category;
}

/** Among several rows for one price (a meter re-priced over time), the newest applies. */
function newest(items: readonly RetailPriceItem[]): RetailPriceItem | undefined {
  return [...items].sort((a, b) => (b.effectiveStartDate ?? '').localeCompare(a.effectiveStartDate ?? ''))[0];
}

function savingsPlanRate(item: RetailPriceItem | undefined, term: string): number | null {
  const plan = item?.savingsPlan?.find((entry) => entry.term === term);
  return plan?.retailPrice ?? plan?.unitPrice ?? null;
}

export type RetailPrices = Omit<InstancePrices, 'sources'>;

/** Hourly prices of one VM size in one region from its retail rows (any order). */
export function pricesFromRetailItems(items: readonly RetailPriceItem[]): RetailPrices {
  const byCategory = (category: Category): RetailPriceItem[] => items.filter((item) => categoryOf(item) === category);
  const onDemand = newest(byCategory('on-demand'));
  const spot = newest(byCategory('spot'));
  const reservation = (term: string): number | null => {
    const row = newest(byCategory('reservation').filter((item) => item.reservationTerm === term));
    const hours = HOURS_PER_TERM[term];
    // A reservation's retailPrice is the whole term's price; spread it over the term's hours.
    return row === undefined || hours === undefined ? null : row.retailPrice / hours;
  };
  return {
    onDemand: onDemand?.retailPrice ?? null,
    spot: spot?.retailPrice ?? null,
    reserved1y: reservation('1 Year'),
    reserved3y: reservation('3 Years'),
    savingsPlan1y: savingsPlanRate(onDemand, '1 Year'),
    savingsPlan3y: savingsPlanRate(onDemand, '3 Years'),
  };
}

/** OData string literal: single quotes doubled. */
function odataString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function retailPricesFilter(location: string, skuName: string): string {
  return `serviceName eq 'Virtual Machines' and armRegionName eq ${odataString(location)} and armSkuName eq ${odataString(skuName)}`;
}

export function retailPricesUrl(baseUrl: string, filter: string): string {
  const url = new URL(baseUrl);
  url.searchParams.set('api-version', API_VERSION);
  // Primary meter regions only: without it the same price can come back once per meter region.
  url.searchParams.set('meterRegion', "'primary'");
  url.searchParams.set('$filter', filter);
  return url.toString();
}

/**
 * Every item matching `filter`, following `NextPageLink`. A next link that leaves the first
 * page's origin is refused rather than followed.
 */
export async function fetchRetailPrices(baseUrl: string, filter: string, options: HttpRetryOptions = {}): Promise<RetailPriceItem[]> {
  const first = new URL(retailPricesUrl(baseUrl, filter));
  const items: RetailPriceItem[] = [];
  let next: string | null | undefined = first.toString();
  for (let page = 0; next !== null && next !== undefined && next !== ''; page += 1) {
    if (page >= MAX_PAGES) throw new Error(`${first.origin}: more than ${MAX_PAGES} pages of retail prices; the listing does not end`);
    const url = new URL(next);
    if (url.origin !== first.origin) throw new Error(`${first.origin}: NextPageLink points at another host (${url.origin}); not followed`);
    const parsed = retailPageSchema.safeParse(await getJsonWithRetry(url.toString(), options));
    if (!parsed.success) throw new Error(`${first.origin}: retail prices page ${page + 1} is not in the documented shape (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})`);
    items.push(...parsed.data.Items);
    next = parsed.data.NextPageLink;
  }
  return items;
}

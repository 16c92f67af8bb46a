/**
 * AWS Price List `GetProducts` product documents -> hourly on-demand and reserved prices.
 *
 * Each `PriceList` element is a JSON string holding one product: `product.attributes` says
 * what it is, `terms.OnDemand` and `terms.Reserved` hold offer terms whose
 * `priceDimensions` carry `pricePerUnit.USD` as strings. Partial and All Upfront reserved
 * terms have two dimensions: unit "Quantity" (the upfront fee) and unit "Hrs".
 */
import { z } from 'zod';

/**
 * The product attributes that make a price comparable with the rest of the catalog: Linux,
 * shared tenancy, no pre-installed software or licence, capacity actually used. Sent as
 * TERM_MATCH filters and checked again on every product that comes back.
 */
export const PRICE_LIST_ATTRIBUTES: Readonly<Record<string, string>> = {
  operatingSystem: 'Linux',
  tenancy: 'Shared',
  preInstalledSw: 'NA',
  capacitystatus: 'Used',
  licenseModel: 'No License required',
};

/** On-demand usage of a shared instance ("BoxUsage:g5.xlarge", "USW2-BoxUsage:g5.xlarge"); dedicated, host and capacity-block usage are other products. */
const BOX_USAGE = /(^|-)BoxUsage:/;

/**
 * Which reserved offer becomes `reserved1y`/`reserved3y`: the standard class, and among its
 * purchase options the first one offered in this order. No Upfront comes first because it
 * has the same cash profile as on-demand, so the two hourly figures compare directly; an
 * upfront fee is spread over the term's hours (effective hourly rate).
 */
const RESERVED_OFFERING_CLASS = 'standard';
const RESERVED_PURCHASE_PREFERENCE = ['No Upfront', 'Partial Upfront', 'All Upfront'] as const;
const TERM_HOURS: Readonly<Record<string, number>> = { '1yr': 8760, '3yr': 26280 };

const priceDimensionSchema = z.object({
  unit: z.string(),
  pricePerUnit: z.object({ USD: z.string().optional() }).loose(),
}).loose();

const offerTermSchema = z.object({
  priceDimensions: z.record(z.string(), priceDimensionSchema),
  termAttributes: z.record(z.string(), z.string()).optional(),
}).loose();

const productDocumentSchema = z.object({
  product: z.object({ attributes: z.record(z.string(), z.string()) }).loose(),
  terms: z.object({
    OnDemand: z.record(z.string(), offerTermSchema).optional(),
    Reserved: z.record(z.string(), offerTermSchema).optional(),
  }).loose().optional(),
}).loose();

type OfferTerm = z.infer<typeof offerTermSchema>;

export interface AwsListPrices {
  instanceType: string;
  onDemand: number | null;
  reserved1y: number | null;
  reserved3y: number | null;
}

function usd(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** Hourly rate of one term: the "Hrs" dimensions plus any upfront fee spread over `termHours`. */
export function effectiveHourlyRate(term: OfferTerm, termHours: number | undefined): number | null {
  let hourly = 0;
  let sawHourly = false;
  for (const dimension of Object.values(term.priceDimensions)) {
    const price = usd(dimension.pricePerUnit.USD);
    if (price === null) return null;
    if (dimension.unit === 'Hrs') {
      hourly += price;
      sawHourly = true;
    } else if (dimension.unit === 'Quantity') {
      if (termHours === undefined) return null;
      hourly += price / termHours;
    } else {
      return null;
    }
  }
  return sawHourly ? hourly : null;
}

function onDemandRate(terms: Record<string, OfferTerm> | undefined): number | null {
  for (const term of Object.values(terms ?? {})) {
    const rate = effectiveHourlyRate(term, undefined);
    // A zero on-demand rate is not a price of a running instance.
    if (rate !== null && rate > 0) return rate;
  }
  return null;
}

function reservedRate(terms: Record<string, OfferTerm> | undefined, lease: string): number | null {
  const standard = Object.values(terms ?? {}).filter((term) => term.termAttributes?.LeaseContractLength === lease && term.termAttributes.OfferingClass === RESERVED_OFFERING_CLASS);
  for (const option of RESERVED_PURCHASE_PREFERENCE) {
    const term = standard.find((candidate) => candidate.termAttributes?.PurchaseOption === option);
    if (term !== undefined) return effectiveHourlyRate(term, TERM_HOURS[lease]);
  }
  return null;
}

/** Whether a product is the Linux, shared, licence-free on-demand box the catalog prices. */
export function isComparableProduct(attributes: Record<string, string>): boolean {
  const matches = Object.entries(PRICE_LIST_ATTRIBUTES).every(([field, value]) => attributes[field] === undefined || attributes[field] === value);
  return matches && attributes.operatingSystem !== undefined && BOX_USAGE.test(attributes.usagetype ?? '');
}

/**
 * Prices of one product document (already decoded from its JSON string), or undefined when
 * it is not a comparable compute product (or not a product document at all).
 */
export function pricesFromProduct(document: unknown): AwsListPrices | undefined {
  const result = productDocumentSchema.safeParse(document);
  if (!result.success) return undefined;
  const parsed = result.data;
  const attributes = parsed.product.attributes;
  const instanceType = attributes.instanceType;
  if (instanceType === undefined || !isComparableProduct(attributes)) return undefined;
  return {
    instanceType,
    onDemand: onDemandRate(parsed.terms?.OnDemand),
    reserved1y: reservedRate(parsed.terms?.Reserved, '1yr'),
    reserved3y: reservedRate(parsed.terms?.Reserved, '3yr'),
  };
}

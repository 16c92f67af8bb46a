/**
 * Savings Plans `DescribeSavingsPlansOfferingRates` answers -> the 1- and 3-year savings-plan
 * rate per instance type of a region. Each search result is one offering's rate for one usage
 * (`properties` name the instance type, region, tenancy and product description). The catalog
 * keeps, per type and term, the lowest No Upfront rate among the plan types (an EC2 Instance
 * Savings Plan, bound to the family in the region, is usually below the Compute Savings Plan
 * for the same usage), for Linux/UNIX on shared tenancy, and names the plan type it took.
 */
import type { SavingsPlanOfferingRate } from '@aws-sdk/client-savingsplans';

/** Seconds of a 1- and a 3-year term, as the offerings state `durationSeconds`. */
export const TERM_SECONDS = { '1y': 31_536_000, '3y': 94_608_000 } as const;
export const SAVINGS_PLAN_PAYMENT_OPTION = 'No Upfront';
export const SAVINGS_PLAN_TYPES = ['EC2Instance', 'Compute'] as const;
const PRODUCT_DESCRIPTION = 'Linux/UNIX';
const TENANCY = 'shared';

export interface SavingsPlanRate {
  usdPerHour: number;
  planType: string;
}

export interface SavingsPlanRates {
  savingsPlan1y: SavingsPlanRate | null;
  savingsPlan3y: SavingsPlanRate | null;
}

function property(rate: SavingsPlanOfferingRate, name: string): string | undefined {
  return rate.properties?.find((entry) => entry.name === name)?.value;
}

/** The rates per instance type of `region`, from search results in any order. */
export function savingsPlanRates(results: readonly SavingsPlanOfferingRate[], region: string): Map<string, SavingsPlanRates> {
  const rates = new Map<string, SavingsPlanRates>();
  for (const result of results) {
    const offering = result.savingsPlanOffering;
    const type = property(result, 'instanceType');
    const usd = Number(result.rate);
    if (offering === undefined || type === undefined || result.rate === undefined || !Number.isFinite(usd) || usd <= 0) continue;
    if (result.unit !== undefined && result.unit !== 'Hrs') continue;
    if (offering.currency !== undefined && offering.currency !== 'USD') continue;
    if (offering.paymentOption !== SAVINGS_PLAN_PAYMENT_OPTION) continue;
    if (property(result, 'region') !== region) continue;
    if ((property(result, 'tenancy') ?? TENANCY).toLowerCase() !== TENANCY) continue;
    if ((property(result, 'productDescription') ?? PRODUCT_DESCRIPTION) !== PRODUCT_DESCRIPTION) continue;
    const field = offering.durationSeconds === TERM_SECONDS['1y'] ? 'savingsPlan1y' : offering.durationSeconds === TERM_SECONDS['3y'] ? 'savingsPlan3y' : undefined;
    if (field === undefined) continue;
    const entry = rates.get(type) ?? { savingsPlan1y: null, savingsPlan3y: null };
    const seen = entry[field];
    if (seen === null || usd < seen.usdPerHour) entry[field] = { usdPerHour: usd, planType: offering.planType ?? 'unknown' };
    rates.set(type, entry);
  }
  return rates;
}

/**
 * Per-region results -> one provider refresh. Shared by AWS (regions) and Azure (locations):
 * the regions that worked are kept, the failed ones listed; when none worked the refresh
 * fails as a whole, preferring a credential failure as the reason (it is the one to fix).
 */
import type { InstanceType } from '../../model/index.js';
import { UpstreamError } from '../../support/index.js';
import type { ProviderRefresh, RefreshProvider, RegionFailure, RegionSummary } from './types.js';

export type RegionOutcome =
  | { ok: true; instances: InstanceType[]; summary: RegionSummary; notices: string[] }
  | { ok: false; failure: RegionFailure; credentials: boolean };

export function regionSummary(region: string, instances: readonly InstanceType[]): RegionSummary {
  return {
    region,
    instanceTypes: instances.length,
    withOnDemandPrice: instances.filter((instance) => instance.prices.onDemand !== null).length,
    withSpotPrice: instances.filter((instance) => instance.prices.spot !== null).length,
  };
}

export function failureOutcome(region: string, endpoint: string, error: string, status: number | undefined, credentials: boolean): RegionOutcome {
  return { ok: false, credentials, failure: { region, endpoint, error, ...(status === undefined ? {} : { status }) } };
}

/**
 * Throws UpstreamError when no region worked (`word` names a region: "region", "location");
 * `fallbackEndpoint` is reported when no region was asked for at all.
 */
export function combineOutcomes(provider: RefreshProvider, fetchedAt: Date, outcomes: readonly RegionOutcome[], word: string, fallbackEndpoint: string): ProviderRefresh {
  const succeeded = outcomes.filter((outcome) => outcome.ok);
  const failed = outcomes.filter((outcome) => !outcome.ok);
  if (succeeded.length === 0) {
    const first = failed.find((outcome) => outcome.credentials) ?? failed[0];
    if (first === undefined) throw new UpstreamError(`no ${word} to refresh was given`, { endpoint: fallbackEndpoint });
    const more = failed.length - 1;
    const others = more > 0 ? ` (and ${more} more ${word}${more > 1 ? 's' : ''} failed)` : '';
    const { region, error, endpoint, status } = first.failure;
    throw new UpstreamError(`${region}: ${error}${others}`, { endpoint, ...(status === undefined ? {} : { status }) });
  }
  return {
    provider,
    fetchedAt: fetchedAt.toISOString(),
    regions: succeeded.map((outcome) => outcome.summary),
    failures: failed.map((outcome) => outcome.failure),
    instances: succeeded.flatMap((outcome) => outcome.instances),
    notices: succeeded.flatMap((outcome) => outcome.notices),
  };
}

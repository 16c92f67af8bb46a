/**
 * What a catalog refresh returns: the instance types it could fetch, per region, and the
 * regions it could not, each with its error. A partial refresh is never silent: the failed
 * regions travel with the result into the summary the CLI prints.
 */
import type { InstanceType } from '../../model/index.js';

export type RefreshProvider = 'aws' | 'azure';

export interface RegionSummary {
  /** AWS region or Azure location. */
  region: string;
  instanceTypes: number;
  /** Types whose on-demand price was found. */
  withOnDemandPrice: number;
  withSpotPrice: number;
}

export interface RegionFailure {
  region: string;
  /** One line; never holds credentials or tokens. */
  error: string;
  /** The service that failed, e.g. `https://ec2.eu-west-1.amazonaws.com`. */
  endpoint: string;
  status?: number;
}

export interface ProviderRefresh {
  provider: RefreshProvider;
  /** ISO timestamp of the refresh. */
  fetchedAt: string;
  regions: RegionSummary[];
  failures: RegionFailure[];
  instances: InstanceType[];
  /** Things worth telling the user that did not fail a region (e.g. a GPU name not in the table). */
  notices: string[];
}

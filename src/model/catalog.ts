/**
 * Catalog shapes shared by catalog/ (which builds them), analysis/ and recommend/
 * (which read them). Money is USD per hour unless a name says otherwise.
 */

export type Confidence = 'seen' | 'derived' | 'recalled' | 'unverified';

/** A number with where it came from and how far to trust it. */
export interface SourcedValue<T = number> {
  value: T;
  /** Source tags or URLs, as in shared reference data. */
  sources: string[];
  check: Confidence;
}

export interface GpuModelSpec {
  /** Project key, e.g. `h100-sxm5-80gb`. */
  key: string;
  vendor: string;
  architecture: string | null;
  /** Every spelling nvidia-smi, DCGM or a cloud API prints for it. */
  productNames: string[];
  /** Upper 16 bits of `pci_device_id`, e.g. `0x20B2`. */
  pciDeviceIds: string[];
  vramMiB: SourcedValue | null;
  memoryBandwidthGBps: SourcedValue | null;
  bf16DenseTflops: SourcedValue | null;
  fp16DenseTflops: SourcedValue | null;
  fp32Tflops: SourcedValue | null;
  tdpW: SourcedValue | null;
  migSupported: boolean;
  asOf: string;
}

export interface InstancePrices {
  onDemand: number | null;
  spot: number | null;
  reserved1y: number | null;
  reserved3y: number | null;
  savingsPlan1y: number | null;
  savingsPlan3y: number | null;
  /** Day (YYYY-MM-DD) the spot price was observed; absent where its source gives no date. */
  spotObservedAt?: string;
  /** Where each non-null price came from. */
  sources: string[];
}

export interface InstanceType {
  provider: 'aws' | 'azure' | 'gcp';
  name: string;
  region: string;
  /** GPU model key in the project's GPU table, or `unknown`. */
  gpuModelKey: string;
  gpuModelName: string;
  /** Whole GPUs; fractional types (AWS g6f) have 0 here and a partition size below 1. */
  gpuCount: number;
  gpuPartitionSize: number;
  vramPerGpuMiB: number | null;
  vcpus: number | null;
  memoryGiB: number | null;
  networkGbps: number | null;
  prices: InstancePrices;
  /** Day (YYYY-MM-DD) the provider retires or retired the type: listed only on request, never proposed. */
  retiredOn?: string;
  sources: string[];
}

export const PRICING_MODELS = ['on-demand', 'spot', 'reserved-1y', 'reserved-3y'] as const;
export type PricingModel = (typeof PRICING_MODELS)[number];

export const PROVIDERS = ['aws', 'azure', 'gcp'] as const;

export interface InstanceCatalog {
  name: string;
  /** ISO date the data was compiled or refreshed. */
  asOf: string;
  origin: 'bundled' | 'cache';
  /** Age of a cache in days at load time; null for the bundled snapshot. */
  ageDays: number | null;
  instances: InstanceType[];
}

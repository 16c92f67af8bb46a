/**
 * Prices of an instance under a pricing model, per instance and per GPU.
 *
 * Per GPU-hour = instance price / GPUs. Fractional types (AWS g6f: 0 whole GPUs, a quarter of
 * an L4) are priced per whole-GPU-equivalent instead: price / partition size, so a quarter L4 at
 * $0.475/h is $1.90 per L4-hour. That figure says what a whole GPU would cost at that rate; it is
 * labelled as such wherever it is shown. Nothing here divides by zero: no GPU, no per-GPU price.
 */
import type { InstanceType, PricingModel } from '../model/index.js';

/** Which price answered: a 1-year commitment may be a reservation or a savings plan. */
export type PriceTerm = 'on-demand' | 'spot' | 'reserved-1y' | 'reserved-3y' | 'savings-plan-1y' | 'savings-plan-3y';

export interface TermPrice {
  usdPerHour: number;
  term: PriceTerm;
}

export type PerGpuBasis = 'per-gpu' | 'per-whole-gpu-equivalent';

export interface GpuHourPrice {
  usdPerGpuHour: number;
  basis: PerGpuBasis;
}

/**
 * The instance's hourly price under a pricing model. For a commitment the reservation is
 * taken where known, else the savings plan of the same length (both are a 1- or 3-year
 * promise to pay; the term says which one answered). Null where the catalog has neither.
 */
export function priceAt(instance: InstanceType, pricing: PricingModel): TermPrice | null {
  const { prices } = instance;
  const candidates: readonly [number | null, PriceTerm][] =
    pricing === 'on-demand'
      ? [[prices.onDemand, 'on-demand']]
      : pricing === 'spot'
        ? [[prices.spot, 'spot']]
        : pricing === 'reserved-1y'
          ? [[prices.reserved1y, 'reserved-1y'], [prices.savingsPlan1y, 'savings-plan-1y']]
          : [[prices.reserved3y, 'reserved-3y'], [prices.savingsPlan3y, 'savings-plan-3y']];
  for (const [usdPerHour, term] of candidates) {
    if (usdPerHour !== null && Number.isFinite(usdPerHour)) return { usdPerHour, term };
  }
  return null;
}

export function instancePrice(instance: InstanceType, pricing: PricingModel): number | null {
  return priceAt(instance, pricing)?.usdPerHour ?? null;
}

/**
 * How many whole GPUs the instance amounts to: its GPU count, or for a fractional type its
 * partition size (0.25 for a quarter GPU). Null when neither is a positive number.
 */
export function gpuEquivalents(instance: InstanceType): number | null {
  if (instance.gpuCount > 0) return instance.gpuCount;
  if (instance.gpuPartitionSize > 0 && instance.gpuPartitionSize < 1) return instance.gpuPartitionSize;
  return null;
}

export function isFractionalGpu(instance: InstanceType): boolean {
  return instance.gpuCount === 0 && instance.gpuPartitionSize > 0 && instance.gpuPartitionSize < 1;
}

/** Price per GPU-hour with its basis, or null where the price or the GPU count is unknown. */
export function gpuHourPrice(instance: InstanceType, pricing: PricingModel): GpuHourPrice | null {
  const price = instancePrice(instance, pricing);
  const gpus = gpuEquivalents(instance);
  if (price === null || gpus === null) return null;
  return { usdPerGpuHour: price / gpus, basis: isFractionalGpu(instance) ? 'per-whole-gpu-equivalent' : 'per-gpu' };
}

export function pricePerGpuHour(instance: InstanceType, pricing: PricingModel): number | null {
  return gpuHourPrice(instance, pricing)?.usdPerGpuHour ?? null;
}

/**
 * Price per hour of one GPU device as the host sees it, for costing observed GPU-hours:
 * a fractional type shows its slice as one logical GPU, which costs the whole instance price.
 * (pricePerGpuHour would charge a quarter-L4 host for a whole L4.)
 */
export function pricePerDeviceHour(instance: InstanceType, pricing: PricingModel): number | null {
  const price = instancePrice(instance, pricing);
  if (price === null) return null;
  if (instance.gpuCount > 0) return price / instance.gpuCount;
  return isFractionalGpu(instance) ? price : null;
}

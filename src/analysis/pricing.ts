/**
 * The catalog's facts put on the profiled GPUs: each GPU model's catalog key (and a MIG
 * device's profile where its source did not name it), and each host's instance type and price
 * per GPU at the pricing model in force. Pure: catalog and settings in, new entries out.
 *
 * A host's instance type is, first that wins: --instance-type, gpu-audit.yaml `hosts:`, its
 * Kubernetes node's instance-type label, else inferred from GPU model x count (lower confidence).
 */
import { UNKNOWN_GPU_KEY, inferMigProfile, modelKeyOf, pricePerDeviceHour, resolveInstanceType } from '../catalog/index.js';
import type { GpuEntry, InstanceCatalog, InstanceType, InstanceTypeBasis, NodeInfo, PricingModel } from '../model/index.js';
import { applyGpuCosts, applyModelKeys } from './cost.js';
import type { DeviceFacts } from './gpu-entry.js';
import { matchesGlob } from './workloads/index.js';

/** Sets each GPU's catalog model key and infers the MIG profile of a MIG device that names none. */
export function identifyModels(gpus: readonly GpuEntry[], deviceFacts: ReadonlyMap<string, DeviceFacts>): GpuEntry[] {
  return applyModelKeys(gpus, (model, pciDeviceId) => modelKeyOf(model, pciDeviceId), deviceFacts).map((gpu) =>
    gpu.parentId === null || gpu.migProfile !== null
      ? gpu
      : { ...gpu, migProfile: inferMigProfile(gpu.modelKey, { memoryTotalMiB: gpu.memoryTotalMiB, multiprocessorCount: deviceFacts.get(gpu.id)?.multiprocessorCount }) ?? null },
  );
}

export interface PricingSettings {
  catalog: InstanceCatalog;
  pricing: PricingModel;
  provider?: InstanceType['provider'];
  region?: string;
  /** --instance-type: every audited host's type. */
  instanceType?: string;
  /** gpu-audit.yaml `hosts:`: instance type by host glob, first match wins. */
  hostInstanceTypes?: readonly { host: string; instanceType: string }[];
  /** gpu-audit.yaml `pricing.discounts`: a negotiated discount off on-demand replaces the catalog's commitment price. */
  commitmentDiscountPct?: Partial<Record<'reserved-1y' | 'reserved-3y', number>>;
  /** The Kubernetes node of each host, for its instance-type and GPU product labels. */
  nodeOfHost: ReadonlyMap<string, NodeInfo>;
}

/** Maps each host to an instance type and prices its GPUs. */
export function priceGpus(gpus: readonly GpuEntry[], settings: PricingSettings): GpuEntry[] {
  const physicalByHost = new Map<string, GpuEntry[]>();
  for (const gpu of gpus) {
    if (gpu.parentId !== null) continue;
    const list = physicalByHost.get(gpu.host) ?? [];
    list.push(gpu);
    physicalByHost.set(gpu.host, list);
  }
  const perHost = new Map<string, { instanceType: string; basis: InstanceTypeBasis; hourlyUsdPerGpu: number | null }>();
  for (const [host, hostGpus] of physicalByHost) {
    const node = settings.nodeOfHost.get(host);
    const telemetryModelKey = mostCommon(hostGpus.map((gpu) => gpu.modelKey));
    // GPU feature discovery's product label names the model where the telemetry does not.
    const modelKey = telemetryModelKey === UNKNOWN_GPU_KEY && node?.gpuProduct !== undefined ? modelKeyOf(node.gpuProduct) : telemetryModelKey;
    const configType = settings.hostInstanceTypes?.find((entry) => matchesGlob(entry.host, host))?.instanceType;
    const resolved = resolveInstanceType(settings.catalog, {
      explicitType: settings.instanceType ?? configType,
      explicitBasis: settings.instanceType === undefined && configType !== undefined ? 'config' : 'flag',
      nodeLabelType: node?.instanceType,
      modelKey,
      gpuCount: hostGpus.length,
      provider: settings.provider,
      region: settings.region,
    });
    if (resolved === undefined) continue;
    perHost.set(host, { instanceType: resolved.instance.name, basis: resolved.basis, hourlyUsdPerGpu: devicePrice(resolved.instance, settings) });
  }
  return applyGpuCosts(gpus, (gpu) => perHost.get(gpu.host));
}

/** Price per device-hour at the pricing model in force; a configured commitment discount applies to the on-demand price. */
function devicePrice(instance: InstanceType, settings: PricingSettings): number | null {
  const discountPct = settings.pricing === 'reserved-1y' || settings.pricing === 'reserved-3y' ? settings.commitmentDiscountPct?.[settings.pricing] : undefined;
  if (discountPct === undefined) return pricePerDeviceHour(instance, settings.pricing);
  const onDemand = pricePerDeviceHour(instance, 'on-demand');
  return onDemand === null ? null : onDemand * (1 - discountPct / 100);
}

function mostCommon(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best = UNKNOWN_GPU_KEY;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

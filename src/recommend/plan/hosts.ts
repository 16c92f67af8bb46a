/**
 * The fleet as it runs and is paid for now: each host an instance, bought whole, of the type the
 * report names for its GPUs (known from a node label, the config or the flag, else inferred from
 * the GPU model and count: the cheapest type holding them). A host of a known type with more GPUs
 * than the telemetry showed is priced whole all the same, and the plan cannot release it: the
 * GPUs it did not see may be in use.
 */
import { instancePrice, interconnectOf } from '../../catalog/index.js';
import type { GpuEntry, InstanceCatalog, InstanceType, InstanceTypeBasis, PricingModel } from '../../model/index.js';

export interface CurrentHost {
  host: string;
  instance: InstanceType | null;
  basis: InstanceTypeBasis | null;
  /** Report ids of the host's physical GPUs. */
  gpuIds: string[];
  modelKey: string;
  /** The whole instance per hour at the pricing model in force; null when unknown. */
  hourlyUsd: number | null;
  observedGpus: number;
  /**
   * The plan may release it: the telemetry showed every GPU of its known type, or its type was
   * inferred from the GPUs shown (the cheapest type holding them: the host is what was seen).
   */
  fullyObserved: boolean;
}

/** The catalog entry of a type name, in the region the report priced it in where there are several. */
function catalogEntry(catalog: InstanceCatalog, name: string, region: string | undefined): InstanceType | undefined {
  const named = catalog.instances.filter((instance) => instance.name === name);
  return named.find((instance) => region !== undefined && instance.region.toLowerCase() === region.toLowerCase()) ?? named[0];
}

export function currentHosts(gpus: readonly GpuEntry[], catalog: InstanceCatalog, pricing: PricingModel, region?: string): CurrentHost[] {
  const byHost = new Map<string, GpuEntry[]>();
  for (const gpu of gpus) {
    if (gpu.parentId !== null) continue;
    const list = byHost.get(gpu.host) ?? [];
    list.push(gpu);
    byHost.set(gpu.host, list);
  }
  return [...byHost.entries()].map(([host, boards]) => {
    const first = boards[0]!;
    const instance = first.instanceType === null ? undefined : catalogEntry(catalog, first.instanceType, region);
    const observedGpus = boards.length;
    return {
      host,
      instance: instance ?? null,
      basis: first.instanceTypeBasis,
      gpuIds: boards.map((gpu) => gpu.id),
      modelKey: first.modelKey,
      hourlyUsd: instance === undefined ? null : instancePrice(instance, pricing),
      observedGpus,
      fullyObserved: instance !== undefined && (first.instanceTypeBasis === 'inferred' || observedGpus >= instance.gpuCount),
    };
  });
}

/** The interconnect of a host's type, for the plan's rows. */
export function interconnectOfHost(host: CurrentHost): ReturnType<typeof interconnectOf>['kind'] {
  return host.instance === null ? 'none' : interconnectOf(host.instance).kind;
}

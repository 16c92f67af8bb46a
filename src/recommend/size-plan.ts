/**
 * `gpu-audit size`: the pool sizing what-if from stated figures alone. Picks the instance type
 * (named, or the cheapest way to buy the GPUs for a named GPU model) and sizes the pool with
 * ./pool.ts. Pure: catalog and request in, plan out; the CLI parses and prints.
 */
import { findInstances, gpuSpecByKey, instancePrice, matchesGpu, priceAt, closeInstanceNames } from '../catalog/index.js';
import type { InstanceCatalog, InstanceType } from '../model/index.js';
import { InputError } from '../support/index.js';
import type { PoolSizing, SizePlan, SizeRequest } from '../model/index.js';
import { sizePool } from './pool.js';

function candidatesFor(catalog: InstanceCatalog, request: SizeRequest): InstanceType[] {
  const inScope = (instance: InstanceType): boolean =>
    (request.providers === undefined || request.providers.length === 0 || request.providers.includes(instance.provider)) &&
    (request.region === undefined || instance.region.toLowerCase() === request.region.toLowerCase());
  if (request.instanceType !== undefined) {
    const named = findInstances(catalog.instances, request.instanceType).filter(inScope);
    if (named.length === 0) {
      const close = closeInstanceNames(catalog.instances, request.instanceType);
      throw new InputError(`instance type ${request.instanceType} is not in catalog ${catalog.name}${request.region === undefined ? '' : ` in ${request.region}`}${close.length > 0 ? `; did you mean ${close.join(', ')}?` : ''}`, { location: '--instance-type' });
    }
    return named;
  }
  const gpu = request.gpu!;
  const matching = catalog.instances.filter((instance) => inScope(instance) && instance.gpuCount > 0 && matchesGpu(instance, gpu));
  if (matching.length === 0) throw new InputError(`no instance type with GPU ${gpu} in catalog ${catalog.name}${request.region === undefined ? '' : ` in ${request.region}`}`, { location: '--gpu' });
  return matching;
}

export function planSize(catalog: InstanceCatalog, request: SizeRequest): SizePlan {
  if (!(request.peakPerSecond > 0)) throw new InputError('peak demand must be a number above 0', { location: '--peak' });
  if (!(request.perGpuPerSecond > 0)) throw new InputError('per-GPU throughput must be a number above 0', { location: '--per-gpu' });
  if (!(request.headroom >= 0)) throw new InputError('headroom must be 0 or more', { location: '--headroom' });
  if ((request.gpu === undefined) === (request.instanceType === undefined)) throw new InputError('name exactly one of --gpu and --instance-type');

  const size = (instance: InstanceType): PoolSizing =>
    sizePool({
      peakPerSecond: request.peakPerSecond,
      perGpuPerSecond: request.perGpuPerSecond,
      headroom: request.headroom,
      gpusPerInstance: instance.gpuCount,
      instanceUsdPerHour: instancePrice(instance, request.pricing),
      coldStartSeconds: request.coldStartSeconds,
      rampPerSecondPerMinute: request.rampPerSecondPerMinute,
    });
  // Cheapest pool first; unpriced types last, then by name and region so the answer is stable.
  const ranked = candidatesFor(catalog, request)
    .filter((instance) => instance.gpuCount > 0)
    .map((instance) => ({ instance, sizing: size(instance) }))
    .sort((a, b) => (a.sizing.hourlyUsd ?? Infinity) - (b.sizing.hourlyUsd ?? Infinity) || a.instance.name.localeCompare(b.instance.name) || a.instance.region.localeCompare(b.instance.region));
  const chosen = ranked[0];
  if (chosen === undefined) throw new InputError(`${request.instanceType ?? request.gpu} has no whole GPUs to size a pool with`);
  const { instance, sizing } = chosen;
  const term = priceAt(instance, request.pricing);
  return {
    request,
    instance: {
      provider: instance.provider,
      name: instance.name,
      region: instance.region,
      gpuModelKey: instance.gpuModelKey,
      gpuModelName: gpuSpecByKey(instance.gpuModelKey)?.productNames[0] ?? instance.gpuModelName,
      gpusPerInstance: instance.gpuCount,
    },
    priceTerm: term?.term ?? null,
    instanceUsdPerHour: term?.usdPerHour ?? null,
    sizing,
    alternatives: ranked
      .slice(1, 4)
      .filter((entry) => entry.sizing.hourlyUsd !== null)
      .map((entry) => ({ name: `${entry.instance.provider}/${entry.instance.name}/${entry.instance.region}`, instances: entry.sizing.instances, hourlyUsd: entry.sizing.hourlyUsd! })),
  };
}

/**
 * Which instance type a GPU host is, in order of authority:
 *  1. what the user said: `--instance-type` (basis `flag`) or the config's host map (`config`);
 *  2. the Kubernetes node label `node.kubernetes.io/instance-type` (`label`);
 *  3. inferred from the GPU model and count (`inferred`): the cheapest on-demand type of the
 *     provider (default aws) whose GPU model key and GPU count match the host's. The report
 *     marks it, and recommendations built on it lower their confidence.
 * A named type missing from the catalog is not replaced by a guess: a user's name is an input
 * error, a label's name leaves the host unpriced.
 */
import type { InstanceCatalog, InstanceType } from '../model/index.js';
import type { InstanceTypeBasis } from '../model/index.js';
import { InputError } from '../support/index.js';
import { UNKNOWN_GPU_KEY } from './gpu-keys.js';
import { closeInstanceNames, findInstances, sortInstances, type Provider } from './instances.js';

export { pricePerGpuHour, pricePerDeviceHour } from './pricing.js';

export const DEFAULT_PROVIDER: Provider = 'aws';

export interface HostFacts {
  /** From `--instance-type` or the config's host -> type map. */
  explicitType?: string;
  /** Where `explicitType` came from; default `flag`. */
  explicitBasis?: 'flag' | 'config';
  /** `node.kubernetes.io/instance-type` (or the older `beta.kubernetes.io/instance-type`). */
  nodeLabelType?: string;
  /** GPU table key of the host's GPUs (`unknown` prevents inference). */
  modelKey: string;
  /** Physical GPUs on the host (MIG devices count through their parent). */
  gpuCount: number;
  provider?: Provider;
  region?: string;
}

export interface ResolvedInstance {
  instance: InstanceType;
  basis: InstanceTypeBasis;
}

/** Of several regions' entries for one type: the asked region, else the first region by name. */
function pickRegion(candidates: InstanceType[], region: string | undefined): InstanceType | undefined {
  if (region !== undefined) {
    const inRegion = candidates.find((c) => c.region.toLowerCase() === region.toLowerCase());
    if (inRegion !== undefined) return inRegion;
  }
  return [...candidates].sort((a, b) => a.region.localeCompare(b.region))[0];
}

function byName(catalog: InstanceCatalog, name: string, facts: HostFacts): InstanceType | undefined {
  const all = findInstances(catalog.instances, name);
  const ofProvider = facts.provider === undefined ? all : all.filter((i) => i.provider === facts.provider);
  return pickRegion(ofProvider.length > 0 ? ofProvider : all, facts.region);
}

/**
 * The cheapest on-demand type with the host's GPU model and count. Where no type has that count
 * (a host that shows 2 of a type's 8 GPUs, an on-premises box), the type with the nearest larger
 * count, else the largest, stands in: its per-GPU price is the best estimate there is, and the
 * basis stays `inferred`. Types without an on-demand price come after priced ones, and equal
 * prices fall back to name then region, so the answer is the same on every run.
 */
export function inferInstanceType(catalog: InstanceCatalog, facts: HostFacts): InstanceType | undefined {
  if (facts.modelKey === UNKNOWN_GPU_KEY || facts.gpuCount <= 0) return undefined;
  const provider = facts.provider ?? DEFAULT_PROVIDER;
  const ofModel = catalog.instances.filter(
    (i) =>
      i.provider === provider &&
      i.gpuModelKey === facts.modelKey &&
      i.gpuCount > 0 &&
      // A retired type no longer runs anywhere: no host is taken for one.
      i.retiredOn === undefined &&
      (facts.region === undefined || i.region.toLowerCase() === facts.region.toLowerCase()),
  );
  const counts = [...new Set(ofModel.map((i) => i.gpuCount))].sort((a, b) => a - b);
  const count = counts.includes(facts.gpuCount) ? facts.gpuCount : (counts.find((c) => c > facts.gpuCount) ?? counts.at(-1));
  const matches = ofModel.filter((i) => i.gpuCount === count);
  return sortInstances(matches, { key: 'price', pricing: 'on-demand' })[0];
}

export function resolveInstanceType(catalog: InstanceCatalog, facts: HostFacts): ResolvedInstance | undefined {
  const explicit = facts.explicitType?.trim();
  if (explicit !== undefined && explicit !== '') {
    const instance = byName(catalog, explicit, facts);
    if (instance === undefined) {
      const close = closeInstanceNames(catalog.instances, explicit);
      const hint = close.length > 0 ? `; did you mean ${close.join(', ')}?` : '';
      const origin = facts.explicitBasis === 'config' ? 'the config' : '--instance-type';
      throw new InputError(`instance type ${explicit} (from ${origin}) is not in catalog ${catalog.name}${hint}`);
    }
    return { instance, basis: facts.explicitBasis ?? 'flag' };
  }
  const label = facts.nodeLabelType?.trim();
  if (label !== undefined && label !== '') {
    const instance = byName(catalog, label, facts);
    return instance === undefined ? undefined : { instance, basis: 'label' };
  }
  const inferred = inferInstanceType(catalog, facts);
  return inferred === undefined ? undefined : { instance: inferred, basis: 'inferred' };
}

/**
 * Which workload of gpu-audit.yaml each inference server belongs to, and what it costs to
 * serve: a server whose pod and namespace labels a workload's pod selector takes is that
 * workload's; else, where exactly one inference workload holds GPUs on the server's host, that
 * one. Cost per 1,000 requests (and generated tokens) is the workload's GPU cost over the
 * window, shared by its servers in proportion to their requests, over what they served: only
 * on the window basis, where the requests are those of the same hours as the cost.
 */
import type { ServingEntry, WorkloadEntry } from '../../model/index.js';
import { podMatches } from '../workloads/index.js';
import type { WorkloadDefinition } from '../workloads/index.js';

type Unjoined = Omit<ServingEntry, 'workload' | 'costPer1000RequestsUsd' | 'costPer1000TokensUsd'>;

function workloadOf(entry: Unjoined, definitions: readonly WorkloadDefinition[], hostsOf: ReadonlyMap<string, ReadonlySet<string>>): string | null {
  if (entry.pod !== null && entry.namespace !== null) {
    const byPod = definitions.filter((definition) => podMatches(definition.match, { namespace: entry.namespace!, pod: entry.pod! }));
    if (byPod.length === 1) return byPod[0]!.name;
  }
  const onHost = definitions.filter((definition) => definition.kind === 'inference' && (hostsOf.get(definition.name)?.has(entry.host) ?? false));
  return onHost.length === 1 ? onHost[0]!.name : null;
}

export function joinServing(entries: readonly Unjoined[], workloads: readonly WorkloadEntry[], definitions: readonly WorkloadDefinition[], gpuHost: ReadonlyMap<string, string>): ServingEntry[] {
  const hostsOf = new Map(workloads.map((workload) => [workload.name, new Set(workload.gpus.map((id) => gpuHost.get(id)).filter((host): host is string => host !== undefined))]));
  const joined = entries.map((entry) => ({ ...entry, workload: workloadOf(entry, definitions, hostsOf) }));
  const requestsOf = new Map<string, number>();
  for (const entry of joined) {
    if (entry.workload !== null && entry.basis === 'window' && entry.requests !== null) requestsOf.set(entry.workload, (requestsOf.get(entry.workload) ?? 0) + entry.requests);
  }
  const byName = new Map(workloads.map((workload) => [workload.name, workload]));
  return joined.map((entry) => {
    const hourly = entry.workload === null ? null : (byName.get(entry.workload)?.cost.hourlyUsd ?? null);
    const totalRequests = entry.workload === null ? 0 : (requestsOf.get(entry.workload) ?? 0);
    const usable = hourly !== null && entry.basis === 'window' && entry.windowSeconds !== null && entry.requests !== null && entry.requests > 0 && totalRequests > 0;
    const cost = usable ? (hourly * entry.windowSeconds! / 3600) * (entry.requests! / totalRequests) : null;
    return {
      ...entry,
      costPer1000RequestsUsd: cost === null ? null : (cost / entry.requests!) * 1000,
      costPer1000TokensUsd: cost === null || entry.generationTokens === null || entry.generationTokens <= 0 ? null : (cost / entry.generationTokens) * 1000,
    };
  });
}

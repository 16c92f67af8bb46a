/**
 * Findings from the serving KPIs, each with its figures:
 * - `slo-breach`: the server's e2e p95 above its workload's `slo.p95Ms` (a p95 that fell in
 *   the +Inf bucket is a lower bound, and a breach where that bound is already above);
 * - `kv-cache-pressure`: KV-cache use at or above 95% at its peak and 80% on average, or
 *   preemptions (requests evicted for want of cache);
 * - `queue-saturation`: requests waiting on average one or more per scrape, over several scrapes.
 */
import type { Finding, ServingEntry } from '../../model/index.js';
import type { WorkloadDefinition } from '../workloads/index.js';

export const SERVING_THRESHOLDS = {
  kvCachePeakPct: 95,
  kvCacheMeanPct: 80,
  waitingMean: 1,
  minScrapes: 3,
} as const;

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

function finding(code: Finding['code'], entry: ServingEntry, severity: Finding['severity'], message: string, evidence: Finding['evidence']): Finding {
  return { id: `${code}:${entry.instance}`, code, severity, target: entry.workload ?? entry.instance, message, evidence: { server: entry.server, instance: entry.instance, basis: entry.basis, ...evidence } };
}

export function servingFindings(entries: readonly ServingEntry[], definitions: readonly WorkloadDefinition[]): Finding[] {
  const sloOf = new Map(definitions.flatMap((definition) => (definition.slo === undefined ? [] : [[definition.name, definition.slo.p95Ms] as const])));
  const findings: Finding[] = [];
  for (const entry of entries) {
    const slo = entry.workload === null ? undefined : sloOf.get(entry.workload);
    const p95 = entry.e2eLatency?.p95Seconds ?? null;
    if (slo !== undefined && p95 !== null && p95 * 1000 > slo) {
      const above = entry.e2eLatency!.aboveSeconds !== null;
      findings.push(finding('slo-breach', entry, 'warning',
        `${entry.instance}: p95 end-to-end latency ${above ? 'above ' : ''}${round(p95 * 1000, 0)} ms against the ${slo} ms SLO of ${entry.workload}`,
        { p95Ms: round(p95 * 1000, 1), p95IsLowerBound: above, sloP95Ms: slo, requests: entry.requests }));
    }
    const kv = entry.kvCacheUsagePct;
    const preemptions = entry.preemptions ?? 0;
    if ((kv !== null && kv.max >= SERVING_THRESHOLDS.kvCachePeakPct && kv.mean >= SERVING_THRESHOLDS.kvCacheMeanPct) || preemptions > 0) {
      findings.push(finding('kv-cache-pressure', entry, 'warning',
        `${entry.instance}: KV cache ${kv === null ? 'use unknown' : `${round(kv.mean, 1)}% used on average, ${round(kv.max, 1)}% at peak`}${preemptions > 0 ? `; ${preemptions} requests preempted` : ''}: more KV cache (GPU memory) or fewer concurrent sequences`,
        { kvCacheMeanPct: kv === null ? null : round(kv.mean, 1), kvCacheMaxPct: kv === null ? null : round(kv.max, 1), preemptions }));
    }
    const waiting = entry.waiting;
    if (waiting !== null && entry.scrapes >= SERVING_THRESHOLDS.minScrapes && waiting.mean >= SERVING_THRESHOLDS.waitingMean) {
      findings.push(finding('queue-saturation', entry, 'warning',
        `${entry.instance}: ${round(waiting.mean, 1)} requests waiting on average (at most ${round(waiting.max, 0)}) over ${entry.scrapes} scrapes: the pool is short of capacity at these hours`,
        { waitingMean: round(waiting.mean, 2), waitingMax: waiting.max, scrapes: entry.scrapes }));
    }
  }
  return findings;
}

/**
 * What `gpu-audit size` prints: the pool a peak needs, its cost and cost per 1,000, as a
 * table of labelled rows or as JSON (src/recommend/size-plan.ts computes every figure).
 */
import type { InstanceCatalog } from '../model/index.js';
import type { SizePlan } from '../model/index.js';

export const SIZE_FORMATS = ['table', 'json'] as const;
export type SizeFormat = (typeof SIZE_FORMATS)[number];

function usd(value: number | null, digits = 2): string {
  return value === null ? 'unknown (no price at this pricing model)' : `$${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

export function renderSizeTable(plan: SizePlan): string {
  const { request, sizing, instance } = plan;
  const rows: [string, string][] = [
    ['peak demand', `${request.peakPerSecond.toLocaleString('en-US')} inferences/s`],
    ['per-GPU throughput', `${request.perGpuPerSecond.toLocaleString('en-US')} inferences/s`],
    ['headroom', `${Math.round(request.headroom * 1000) / 10}%`],
    ['instance type', `${instance.name} (${instance.provider}, ${instance.region}): ${instance.gpusPerInstance} x ${instance.gpuModelName}`],
    ['pricing', `${request.pricing}${plan.priceTerm !== null && plan.priceTerm !== request.pricing ? ` (${plan.priceTerm} price)` : ''}, ${usd(plan.instanceUsdPerHour)}/h per instance`],
    ['replicas', `${sizing.replicas} GPUs = ceil(${request.peakPerSecond} / ${request.perGpuPerSecond} x ${1 + request.headroom})`],
    ['instances', `${sizing.instances} x ${instance.name} (${sizing.instances * instance.gpusPerInstance} GPUs)`],
    ['hourly cost', `${usd(sizing.hourlyUsd)}/h`],
    ['monthly cost', `${usd(sizing.monthlyUsd, 0)}/month (730 h)`],
    ['cost per 1,000', `${usd(sizing.costPer1000AtCapacityUsd, 4)} per 1,000 inferences at full GPU throughput; ${usd(sizing.costPer1000AtPeakUsd, 4)} with the whole pool at peak`],
    [
      'warm pool',
      sizing.warmPoolReplicas === null
        ? 'give --cold-start and --ramp to size it'
        : `${sizing.warmPoolReplicas} GPUs kept warm beyond the replicas (not in the costs above): ${request.rampPerSecondPerMinute}/s per minute x ${request.coldStartSeconds} s cold start / ${request.perGpuPerSecond}/s per GPU`,
    ],
  ];
  if (plan.alternatives.length > 0) rows.push(['also compared', plan.alternatives.map((alt) => `${alt.instances} x ${alt.name} ${usd(alt.hourlyUsd)}/h`).join('; ')]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return `${rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n')}\n`;
}


export function renderSize(format: SizeFormat, plan: SizePlan, catalog: Pick<InstanceCatalog, 'name' | 'asOf'>): string {
  return format === 'json' ? `${JSON.stringify({ catalog: { name: catalog.name, asOf: catalog.asOf }, ...plan }, null, 2)}\n` : renderSizeTable(plan);
}

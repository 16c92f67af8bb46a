/**
 * Sharing one GPU, judged on joint demand minute by minute, and configured as the NVIDIA device
 * plugin applies it: node-wide, selected by label, pods requesting the shared resource.
 *
 * Two services of about 60 GiB on H100 hosts over 48 h, idle but for a 6-minute burst at 70% once
 * an hour. Each alone needs 60 x 1.15 = 69 GiB: a 1-GPU H100 at $7/h. Together they need 138 GiB:
 * one H200 of h200.1x at $10/h, $4/h less than two H100s.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jointDemand } from '../../../src/recommend/plan/joint-demand.js';
import { validateDevicePluginConfig } from '../../../src/recommend/sharing/device-plugin.js';
import { board, catalogOf, definition, hourly, instanceType, planOf, workload } from './fleet.js';

const CATALOG = catalogOf([
  instanceType('h100.1x', 'h100-sxm-80gb', 1, 7),
  instanceType('h200.1x', 'h200-sxm-141gb', 1, 10),
]);

function services(minutesA: readonly number[], minutesB: readonly number[], facts: { sloMs?: number; tenants?: [string, string] } = {}) {
  const gpus = [minutesA, minutesB].map((minutes, index) => board(`svc-host-${index}`, 0, { instanceType: 'h100.1x', hourlyUsd: 7, peakGiB: 60, meanPct: 7, p95Pct: Math.max(...minutes), minutes }));
  const workloads = gpus.map((gpu, index) => workload(`svc-${index}`, [gpu], { peakGiB: 60, meanPct: 7, p95Pct: gpu.utilization!.p95, tenant: facts.tenants?.[index] }));
  const definitions = facts.sloMs === undefined ? [] : workloads.map((profile) => definition(profile.name, { slo: { p95Ms: facts.sloMs! } }));
  return planOf({ gpus, workloads, definitions }, CATALOG);
}

const onTheHour = hourly(48, (minute) => minute < 6, 70);
const halfPast = hourly(48, (minute) => minute >= 30 && minute < 36, 70);

describe('joint demand', () => {
  it('adds the members minute by minute: bursts 30 minutes apart never meet', () => {
    const series = (minutes: number[]) => ({ start: '2026-11-23T00:00:00.000Z', bucketSeconds: 60, meanPct: minutes });
    const apart = jointDemand([series(onTheHour), series(halfPast)], 5)!;
    // 2,880 minutes; 12 of each 60 at 70% (6 of each member): the sum is 70 at most, never over one GPU.
    expect(apart).toMatchObject({ buckets: 2880, bucketSeconds: 60, maxPct: 70, overShare: 0, slowdown: 1, concurrentShare: 0 });
    // 20% of minutes at 70: p95 is 70.
    expect(apart.p95Pct).toBe(70);
    const together = jointDemand([series(onTheHour), series(onTheHour)], 5)!;
    // 6 of 60 minutes at 140%: 10% of the time over one GPU, 1.4x slower then.
    expect(together).toMatchObject({ maxPct: 140, overShare: 0.1, concurrentShare: 0.1 });
    expect(together.slowdown).toBeCloseTo(1.4, 12);
  });

  it('judges a finer series on the coarser one\'s buckets', () => {
    const minute = { start: '2026-11-23T00:00:00.000Z', bucketSeconds: 60, meanPct: [100, 0, 100, 0] };
    const twoMinutes = { start: '2026-11-23T00:00:00.000Z', bucketSeconds: 120, meanPct: [40, 40] };
    // Minutes widened to 2-minute means of 50: sums of 90.
    expect(jointDemand([minute, twoMinutes], 5)).toMatchObject({ buckets: 2, bucketSeconds: 120, maxPct: 90, overShare: 0 });
  });
});

describe('co-location', () => {
  it('time-slices two services whose bursts fall in different minutes of the hour onto one GPU', () => {
    const outcome = services(onTheHour, halfPast);
    const placements = outcome.plan.placements;
    expect(placements.map((placement) => [placement.workload, placement.instanceType, placement.gpus])).toEqual([['svc-0', 'h200.1x', 0.5], ['svc-1', 'h200.1x', 0.5]]);
    expect(placements[0]!.sharing).toEqual({ mode: 'time-slicing', with: ['svc-1'], replicas: 2, nodeConfig: 'gpu-audit-time-slicing-2', resource: 'nvidia.com/gpu.shared' });
    expect(placements[0]!.host).toBe(placements[1]!.host);
    expect(placements[0]!.reason).toMatch(/shares one GPU with svc-1 by time-slicing \(joint p95 70% of one GPU, over it in 0\.0% of 1-minute buckets\)/);
    // 2 x $7 = $14/h now, $10/h shared: $4 x 730 = $2,920 a month.
    expect(outcome.plan.monthlySavingsUsd).toBe(2920);
    expect(outcome.plan.steps).toHaveLength(1);
  });

  it('writes the device plugin config node-wide, with the node label and the resource pods request', () => {
    const step = services(onTheHour, halfPast).plan.steps[0]!;
    expect(step.config!.format).toBe('device-plugin');
    const text = step.config!.text;
    expect(text).toContain('h200.1x #1: kubectl label node <its node> nvidia.com/device-plugin.config=gpu-audit-time-slicing-2 --overwrite');
    expect(text).toContain('svc-0: nvidia.com/gpu.shared: 1 per pod (time-slicing)');
    const configMap = parse(text) as { kind: string; data: Record<string, string> };
    expect(configMap.kind).toBe('ConfigMap');
    expect(Object.keys(configMap.data)).toEqual(['gpu-audit-time-slicing-2']);
    const config = configMap.data['gpu-audit-time-slicing-2']!;
    expect(validateDevicePluginConfig(config)).toEqual({ ok: true, mode: 'time-slicing', resources: [{ name: 'nvidia.com/gpu', replicas: 2, advertisedAs: 'nvidia.com/gpu.shared' }] });
    expect(parse(config)).toEqual({ version: 'v1', sharing: { timeSlicing: { renameByDefault: true, failRequestsGreaterThanOne: true, resources: [{ name: 'nvidia.com/gpu', replicas: 2 }] } } });
    expect(step.risks.join(' ')).toMatch(/isolates neither memory nor faults/);
  });

  it('does not share services that burst in the same minutes, and says why and what would make it work', () => {
    const outcome = services(onTheHour, onTheHour);
    expect(outcome.plan.placements.map((placement) => [placement.instanceType, placement.sharing])).toEqual([['h100.1x', undefined], ['h100.1x', undefined]]);
    const rejected = outcome.plan.alternatives.find((alternative) => alternative.option === 'share one GPU with svc-1')!;
    // Time-slicing: over one GPU in 10% of minutes, 1.4x slower; MPS: a 50% share for a 70% p95.
    expect(rejected.reason).toBe('their summed compute passes one GPU in 10.0% of 1-minute buckets (p99 140%, 1.40x slower while it does), more than the 5.0% tolerated, and MPS would cap each at 50% of the GPU while its p95 is 70%');
    const finding = outcome.findings.find((candidate) => candidate.code === 'sharing-contention')!;
    expect(finding.evidence).toMatchObject({ with: 'svc-1', overOneGpuShare: 0.1, slowdownWhileOver: 1.4, monthlySavingsIfSharedUsd: 2920 });
    expect(finding.message).toMatch(/Staggering their bursts, a MIG split or a larger GPU would make it work/);
  });

  it('tolerates less contention where a service has a latency SLO', () => {
    // 3 minutes of each hour together (5%): within the default 5%, not within an SLO's 1%.
    const early = hourly(48, (minute) => minute < 6, 70);
    const overlapping = hourly(48, (minute) => minute >= 3 && minute < 9, 70);
    expect(services(early, overlapping).plan.placements[0]!.sharing?.mode).toBe('time-slicing');
    expect(services(early, overlapping, { sloMs: 200 }).plan.placements[0]!.sharing).toBeUndefined();
  });

  it('gives steady services that are busy together MPS, each within its equal share of threads and memory', () => {
    const steady = hourly(48, () => true, 30);
    const outcome = services(steady, steady);
    expect(outcome.plan.placements[0]!.sharing).toMatchObject({ mode: 'mps', nodeConfig: 'gpu-audit-mps-2' });
    const config = (parse(outcome.plan.steps[0]!.config!.text) as { data: Record<string, string> }).data['gpu-audit-mps-2']!;
    expect(validateDevicePluginConfig(config)).toMatchObject({ ok: true, mode: 'mps' });
    expect(outcome.plan.steps[0]!.risks.join(' ')).toMatch(/half the threads and half the memory.*fatal fault in one still reaches every client/);
    // A member at p95 80% does not fit its 50% share: no MPS; and their sum, 110%, passes one GPU all the time.
    const heavier = hourly(48, () => true, 80);
    expect(services(heavier, steady).plan.placements[0]!.sharing).toBeUndefined();
  });

  it('never shares workloads of different tenants', () => {
    const outcome = services(onTheHour, halfPast, { tenants: ['team-a', 'team-b'] });
    expect(outcome.plan.placements.every((placement) => placement.sharing === undefined)).toBe(true);
    expect(outcome.plan.alternatives.find((alternative) => alternative.option === 'share one GPU with svc-1')?.reason).toBe('tenants team-a and team-b stay apart: neither time-slicing nor MPS isolates faults');
  });
});

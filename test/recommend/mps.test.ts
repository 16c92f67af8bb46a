import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { mps } from '../../src/recommend/sharing/mps.js';
import { options, unit } from './helpers.js';

/** A service needing about 60 GB (57,220 MiB = 60e9 bytes), busy in short bursts. */
function sporadicService(id: string, tenant: string | null = null) {
  return unit({ id, tenant, kind: 'inference', vram: { peakMiB: 57220, p95MiB: 57000, requiredMiB: 57220, basis: 'upper-bound' }, compute: { basis: 'sm-active', meanPct: 3, p95Pct: 25, busyFraction: 0.1, bound: 'unknown' } });
}

describe('MPS co-location', () => {
  it('puts two sporadic ~60 GB services on one 141 GB GPU, with the isolation caveat (field example)', () => {
    // VRAM: 2 x 57,220 = 114,440 MiB <= 143,771; the device plugin gives each replica 143,771 / 2 = 71,885 MiB >= 57,220.
    // Compute: p95 25% + 25% = 50% <= the 80% limit. One GPU freed: $10 x 730 = $7,300.
    const { recommendations } = mps([sporadicService('chat'), sporadicService('summarize')], options());
    expect(recommendations).toHaveLength(1);
    const [advice] = recommendations;
    expect(advice!.kind).toBe('mps');
    expect(advice!.targets).toEqual(['chat', 'summarize']);
    expect(advice!.monthlySavingsUsd).toBe(7300);
    expect(advice!.evidence).toMatchObject({ requiredVramMiBSum: 114440, vramPerReplicaMiB: 71885, computeP95PctSum: 50, gpusFreed: 1 });
    expect(advice!.risks[0]).toMatch(/no memory or fault isolation/);
    expect(advice!.risks.join(' ')).toMatch(/tenants of these workloads are unknown/);
    expect(advice!.risks.join(' ')).toMatch(/gpu-memory-utilization/);
  });

  it('emits the device plugin sharing.mps config and per-client limits that parse back', () => {
    const [advice] = mps([sporadicService('chat'), sporadicService('summarize')], options()).recommendations;
    const documents = parseAllDocuments(advice!.config!.text).map((document) => document.toJS() as Record<string, unknown>);
    expect(documents[0]).toEqual({ version: 'v1', sharing: { mps: { resources: [{ name: 'nvidia.com/gpu', replicas: 2 }] } } });
    expect(documents[1]).toEqual({
      clients: [
        { workload: 'chat', env: { CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: '50', CUDA_MPS_PINNED_DEVICE_MEM_LIMIT: '0=57220M' } },
        { workload: 'summarize', env: { CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: '50', CUDA_MPS_PINNED_DEVICE_MEM_LIMIT: '0=57220M' } },
      ],
    });
  });

  it('never puts different tenants on one MPS-shared GPU, and says why', () => {
    const result = mps([sporadicService('chat', 'team-a'), sporadicService('summarize', 'team-b')], options());
    expect(result.recommendations).toEqual([]);
    expect(result.notEnoughData).toHaveLength(1);
    expect(result.notEnoughData[0]!.reason).toMatch(/tenants team-a and team-b differ: MPS gives no memory or fault isolation/);
  });

  it('shares across tenants only where the config allows it, and names the tenants', () => {
    const [advice] = mps([sporadicService('chat', 'team-a'), sporadicService('summarize', 'team-b')], options({ allowCrossTenantSharing: true })).recommendations;
    expect(advice!.evidence.tenants).toBe('team-a, team-b');
  });

  it('keeps summed compute under the limit: 50% + 40% = 90% > 80% stays apart', () => {
    const busy = unit({ id: 'busy', vram: { peakMiB: 40000, p95MiB: 40000, requiredMiB: 46000, basis: 'measured' }, compute: { basis: 'sm-active', meanPct: 30, p95Pct: 50, busyFraction: 0.9, bound: 'unknown' } });
    const other = unit({ id: 'other', vram: { peakMiB: 40000, p95MiB: 40000, requiredMiB: 46000, basis: 'measured' }, compute: { basis: 'sm-active', meanPct: 30, p95Pct: 40, busyFraction: 0.9, bound: 'unknown' } });
    expect(mps([busy, other], options()).recommendations).toEqual([]);
  });

  it('needs each client to fit its even share of memory: 80 GB + 20 GB do not fit two 70 GB replicas', () => {
    const large = unit({ id: 'large', vram: { peakMiB: 76000, p95MiB: 76000, requiredMiB: 76000, basis: 'upper-bound' } });
    const small = unit({ id: 'small', vram: { peakMiB: 19000, p95MiB: 19000, requiredMiB: 19000, basis: 'upper-bound' } });
    expect(mps([large, small], options()).recommendations).toEqual([]);
  });

  it('says "not enough data" for a client without a compute figure', () => {
    const blind = unit({ id: 'blind', compute: { basis: 'processes', meanPct: null, p95Pct: null, busyFraction: 0.3, bound: 'unknown' } });
    expect(mps([blind, sporadicService('chat')], options()).notEnoughData).toEqual([{ strategy: 'mps', targets: ['blind'], reason: 'no compute figure to bound an MPS client (basis processes)' }]);
  });
});

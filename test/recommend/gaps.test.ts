import { describe, expect, it } from 'vitest';
import { gapFindings } from '../../src/recommend/gaps.js';

describe('"not enough data" and tenant refusals as findings', () => {
  it('gives one finding per target, naming every strategy that stopped and why', () => {
    const findings = gapFindings([
      { strategy: 'replicas', targets: ['chat'], reason: 'per-GPU throughput and peak demand not declared' },
      { strategy: 'autoscale', targets: ['chat'], reason: 'no queue-length or latency metric declared' },
      { strategy: 'autoscale', targets: ['code'], reason: 'no queue-length or latency metric declared' },
    ]);
    expect(findings.map((finding) => [finding.id, finding.code, finding.severity, finding.target])).toEqual([
      ['not-enough-data:chat', 'not-enough-data', 'info', 'chat'],
      ['not-enough-data:code', 'not-enough-data', 'info', 'code'],
    ]);
    expect(findings[0]!.message).toBe('No replicas, autoscale recommendation: replicas: per-GPU throughput and peak demand not declared; autoscale: no queue-length or latency metric declared.');
    expect(findings[1]!.message).toBe('No autoscale recommendation: no queue-length or latency metric declared.');
  });

  it('reports a refusal to share across tenants apart from missing data, with the other workload', () => {
    const [finding] = gapFindings([
      { strategy: 'mps', targets: ['chat', 'code'], reason: 'tenants a and b differ', declined: true },
      { strategy: 'time-slicing', targets: ['chat', 'code'], reason: 'tenants a and b differ', declined: true },
    ]);
    expect(finding).toMatchObject({ id: 'tenant-isolation:chat', code: 'tenant-isolation', evidence: { strategies: 'mps, time-slicing', with: 'code' } });
    expect(finding!.message).toBe('Not shared with code by mps or time-slicing: tenants a and b differ.');
  });
});

/**
 * `gpu-audit size` through the built CLI, as a consultant at a whiteboard runs it.
 * Prices are the bundled snapshot's (--bundled), so the figures do not move with a local cache.
 */
import { describe, expect, it } from 'vitest';
import { runBuiltCli } from '../helpers/cli.js';

interface SizeJson {
  instance: { name: string; provider: string; gpusPerInstance: number };
  sizing: { replicas: number; instances: number; hourlyUsd: number; monthlyUsd: number; costPer1000AtCapacityUsd: number; warmPoolReplicas: number | null };
}

describe('gpu-audit size', () => {
  it('sizes 1,000/s at 200/s per GPU with 20% headroom to 6 GPUs on the cheapest H100 instance', () => {
    const run = runBuiltCli(['size', '--peak', '1000', '--per-gpu', '200', '--headroom', '0.2', '--gpu', 'h100', '--provider', 'aws', '--bundled', '--format', 'json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const plan = JSON.parse(run.stdout) as SizeJson;
    // Bundled AWS H100 types: p5.4xlarge (1 GPU, $6.88/h) and p5.48xlarge (8 GPUs, $55.04/h).
    // 6 x p5.4xlarge = $41.28/h beats 1 x p5.48xlarge = $55.04/h.
    expect(plan.instance).toMatchObject({ name: 'p5.4xlarge', provider: 'aws', gpusPerInstance: 1 });
    expect(plan.sizing).toMatchObject({ replicas: 6, instances: 6, warmPoolReplicas: null });
    expect(plan.sizing.hourlyUsd).toBeCloseTo(41.28, 9);
    expect(plan.sizing.monthlyUsd).toBeCloseTo(30134.4, 6);
    // $6.88 / (200 x 3.6) = $0.009556 per 1,000 inferences.
    expect(plan.sizing.costPer1000AtCapacityUsd).toBeCloseTo(0.0095556, 6);
  });

  it('prints every figure with its unit, for a named instance type, with a warm pool', () => {
    const run = runBuiltCli(['size', '--peak', '1000', '--per-gpu', '200', '--instance-type', 'p5.48xlarge', '--provider', 'aws', '--pricing', 'on-demand', '--cold-start', '90s', '--ramp', '200/min', '--bundled']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^replicas\s+6 GPUs = ceil\(1000 \/ 200 x 1\.2\)$/m);
    expect(run.stdout).toMatch(/^instances\s+1 x p5\.48xlarge \(8 GPUs\)$/m);
    expect(run.stdout).toMatch(/^hourly cost\s+\$55\.04\/h$/m);
    expect(run.stdout).toMatch(/^monthly cost\s+\$40,179\/month \(730 h\)$/m);
    expect(run.stdout).toMatch(/^cost per 1,000\s+\$0\.0096 per 1,000 inferences/m);
    // 200/s gained per minute x 1.5 min = 300/s: 2 GPUs of 200/s kept warm.
    expect(run.stdout).toMatch(/^warm pool\s+2 GPUs kept warm/m);
  });

  it('accepts headroom as a percentage', () => {
    const run = runBuiltCli(['size', '--peak', '1000', '--per-gpu', '200', '--headroom', '50%', '--gpu', 'h100', '--provider', 'aws', '--bundled', '--format', 'json']);
    // 1000 / 200 x 1.5 = 7.5 -> 8.
    expect((JSON.parse(run.stdout) as SizeJson).sizing.replicas).toBe(8);
  });

  it('exits 2 naming the flag for an unknown instance type, with close names', () => {
    const run = runBuiltCli(['size', '--peak', '1000', '--per-gpu', '200', '--instance-type', 'p5.48xlarj', '--bundled']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--instance-type: instance type p5\.48xlarj is not in catalog .*did you mean p5\.48xlarge/);
  });

  it('exits 2 when a mandatory figure is missing or not a number', () => {
    expect(runBuiltCli(['size', '--per-gpu', '200', '--gpu', 'h100']).status).toBe(2);
    const run = runBuiltCli(['size', '--peak', 'lots', '--per-gpu', '200', '--gpu', 'h100']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/expected a number above 0/);
  });

  it('shows examples in --help', () => {
    const run = runBuiltCli(['size', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('gpu-audit size --peak 1000 --per-gpu 200 --headroom 0.2 --gpu h100');
  });
});

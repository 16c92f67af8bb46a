import { describe, expect, it } from 'vitest';
import { sizePool } from '../../src/recommend/pool.js';

describe('pool sizing', () => {
  it('200 inferences/s per GPU, a 1,000/s peak and 20% headroom need 6 GPUs (field example)', () => {
    // 1000 / 200 x 1.2 = 6 exactly (6.000000000000001 in floating point: no seventh GPU for that).
    const sizing = sizePool({ peakPerSecond: 1000, perGpuPerSecond: 200, headroom: 0.2, gpusPerInstance: 1, instanceUsdPerHour: 6.88 });
    expect(sizing.replicas).toBe(6);
    expect(sizing.instances).toBe(6);
    // 6 x $6.88 = $41.28/h; x 730 = $30,134.40/month.
    expect(sizing.hourlyUsd).toBeCloseTo(41.28, 9);
    expect(sizing.monthlyUsd).toBeCloseTo(30134.4, 6);
    // $6.88 / (200 x 3.6) = $0.009556 per 1,000 at full throughput; $41.28 / (1000 x 3.6) = $0.011467 at peak.
    expect(sizing.costPer1000AtCapacityUsd).toBeCloseTo(0.0095556, 6);
    expect(sizing.costPer1000AtPeakUsd).toBeCloseTo(0.0114667, 6);
  });

  it('buys whole instances: 6 GPUs on 8-GPU instances is 1 instance', () => {
    const sizing = sizePool({ peakPerSecond: 1000, perGpuPerSecond: 200, headroom: 0.2, gpusPerInstance: 8, instanceUsdPerHour: 55.04 });
    expect(sizing).toMatchObject({ replicas: 6, instances: 1, hourlyUsd: 55.04 });
    // Per GPU $55.04 / 8 = $6.88: the same cost per 1,000 at full throughput.
    expect(sizing.costPer1000AtCapacityUsd).toBeCloseTo(0.0095556, 6);
  });

  it('sizes the warm pool from cold start and ramp: 200/s more per minute x 1.5 min = 300/s = 2 GPUs of 200/s', () => {
    expect(sizePool({ peakPerSecond: 1000, perGpuPerSecond: 200, headroom: 0.2, gpusPerInstance: 1, instanceUsdPerHour: null, coldStartSeconds: 90, rampPerSecondPerMinute: 200 })).toMatchObject({
      warmPoolReplicas: 2,
      hourlyUsd: null,
      costPer1000AtCapacityUsd: null,
    });
  });
});

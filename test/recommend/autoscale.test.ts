import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { autoscale } from '../../src/recommend/autoscale.js';
import { options, unit } from './helpers.js';

const queueMetric = { query: 'sum(vllm:num_requests_waiting{service="chat"})', serverAddress: 'http://prometheus:9090', targetPerReplica: 8 };

describe('autoscaling manifests', () => {
  it('scales on the queue metric between the warm pool and the peak pool (KEDA ScaledObject)', () => {
    const service = unit({
      id: 'Chat_Service',
      kind: 'inference',
      serving: { unit: null, perGpuThroughputPerSecond: 200, peakDemandPerSecond: 1000, latencySloMs: 300, coldStartSeconds: 90, rampPerMinute: 200, queueMetric },
    });
    const [advice] = autoscale([service], options()).recommendations;
    // Warm pool 2 (see pool.test.ts), peak pool 6.
    expect(advice!.evidence).toMatchObject({ minReplicas: 2, maxReplicas: 6 });
    expect(advice!.monthlySavingsUsd).toBe(0);
    expect(parse(advice!.config!.text)).toEqual({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 'chat-service-gpu' },
      spec: {
        scaleTargetRef: { name: 'chat-service' },
        minReplicaCount: 2,
        maxReplicaCount: 6,
        triggers: [{ type: 'prometheus', metadata: { serverAddress: 'http://prometheus:9090', query: queueMetric.query, threshold: '8' } }],
      },
    });
  });

  it('refuses to scale on utilization alone: "not enough data" without a queue or latency metric', () => {
    const result = autoscale([unit({ id: 'chat', kind: 'inference' })], options());
    expect(result.recommendations).toEqual([]);
    expect(result.notEnoughData[0]!.reason).toMatch(/utilization.gpu alone/);
  });
});

/**
 * How chunk answers combine into one device's aggregates. The server is replaced by a table
 * of answers keyed by the tag and chunk, worked by hand; the real server is in
 * test/integration/prometheus.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { InputError, UpstreamError } from '../../../../src/support/errors.js';
import type { InstantSample, PartialAnswer, PrometheusClient, RangeSeries } from '../../../../src/sources/live/prometheus/client.js';
import { bucketOfPoint, collectFromPrometheus, partialWarnings, withinLimits } from '../../../../src/sources/live/prometheus/read-prometheus.js';
import { QueryLimitError } from '../../../../src/sources/live/prometheus/client.js';
import { RANGE_RULE_PROBE } from '../../../../src/sources/live/prometheus/queries.js';

const H = 3_600_000;
const START = Date.parse('2026-11-02T00:00:00Z');
const GPU = { UUID: 'GPU-aaaa', gpu: '0', Hostname: 'node-1', modelName: 'NVIDIA H100 80GB HBM3' };

/** Answers per (metric, tag, chunk end); one GPU, two 1-hour chunks, 5-minute steps. */
const UTIL: Record<string, [number, number]> = {
  // tag: [first chunk, second chunk]
  count: [10, 30],
  sum: [200, 300],
  max: [50, 40],
  steps: [10, 2],
  idle_steps: [4, 1],
};
/** Presence over all metrics: steps, first and last step (Unix seconds). */
const DEVICE: Record<string, [number, number]> = {
  steps: [12, 3],
  first: [START / 1000 + 300, START / 1000 + 3600 + 300],
  last: [START / 1000 + 3600, START / 1000 + 2 * 3600 - 600],
};

interface Faults {
  /** The second chunk's queries fail for good (after the client's retries). */
  secondChunkFails?: boolean;
  /** The second chunk's answers carry a partial-data warning. */
  secondChunkPartial?: boolean;
  /** What the range rule probe answers (default 3: Prometheus 2.x). */
  probe?: number;
  /** Pod aggregates the device query adds, per chunk. */
  pods?: [InstantSample[], InstantSample[]];
  /** The first chunk's presence (device) query answers nothing. */
  firstPresenceEmpty?: boolean;
  /** Series the client left out for a label cap. */
  skipped?: { count: number; first: string };
}

function fakeClient(names: string[], faults: Faults = {}): PrometheusClient {
  const partialAnswers: PartialAnswer[] = [];
  let aborted = false;
  const instant = (query: string, timeMs: number, coversFromMs = timeMs): Promise<InstantSample[]> => {
    // A Prometheus 2.x (closed ranges), without node_exporter or cAdvisor.
    if (query === RANGE_RULE_PROBE) return Promise.resolve([{ labels: {}, value: faults.probe ?? 3 }]);
    if (query.includes('node_cpu_seconds_total') || query.includes('container_cpu_')) return Promise.resolve([]);
    const chunk = timeMs === START + H ? 0 : 1;
    if (chunk === 1 && !query.includes('quantile_over_time')) {
      if (faults.secondChunkFails === true) {
        return Promise.reject(new UpstreamError('no answer after 4 attempts: HTTP 503', { endpoint: 'http://prom:9090/api/v1/query', status: 503 }));
      }
      if (faults.secondChunkPartial === true) partialAnswers.push({ warning: 'partial response: store B unavailable', fromMs: coversFromMs, toMs: timeMs });
    }
    const samples: InstantSample[] = [];
    if (query.startsWith('max by') && query.includes('quantile_over_time(0.95')) samples.push({ labels: GPU, value: 45 });
    else if (query.includes('quantile_over_time(0.5')) samples.push({ labels: GPU, value: 9 });
    else if (query.includes('group by')) {
      if (chunk === 0 && faults.firstPresenceEmpty === true) return Promise.resolve([]);
      for (const [tag, values] of Object.entries(DEVICE)) samples.push({ labels: { ...GPU, gpu_audit: tag }, value: values[chunk]! });
      samples.push(...(faults.pods?.[chunk] ?? []));
    }
    else for (const [tag, values] of Object.entries(UTIL)) samples.push({ labels: { ...GPU, gpu_audit: tag }, value: values[chunk]! });
    return Promise.resolve(samples);
  };
  // Hourly points stand at each hour's end; this fake answers 1 ms early, as an engine may move them within the step.
  // The query planner's series estimate finds none: one shard, chunks as asked.
  const range = (query: string): Promise<RangeSeries[]> => Promise.resolve(query.includes('gpu_audit_shard') ? [] : [{ labels: GPU, points: [[(START + H - 1) / 1000, 20], [(START + 2 * H - 1) / 1000, 12.5]] }]);
  return {
    connection: { displayUrl: 'http://prom:9090' },
    warnings: new Set<string>(),
    partialAnswers,
    skippedSeries: faults.skipped ?? { count: 0, first: '' },
    abort: () => {
      aborted = true;
    },
    get aborted() {
      return aborted;
    },
    labelValues: () => Promise.resolve(names),
    instant,
    range,
  } as unknown as PrometheusClient;
}

describe('combining chunks', () => {
  it('sums counts, sums and steps, keeps the largest max, the earliest first and latest last step', async () => {
    const collection = await collectFromPrometheus(fakeClient(['DCGM_FI_DEV_GPU_UTIL']), {
      window: { startMs: START, endMs: START + 2 * H, stepSeconds: 300 },
      matchers: [],
      idleThresholdPct: 5,
      defaultHost: 'prom:9090',
      chunkSeconds: 3600,
    });
    expect(collection.metrics).toEqual(['DCGM_FI_DEV_GPU_UTIL']);
    const [device] = collection.devices;
    expect(device).toMatchObject({
      ref: { host: 'node-1', uuid: 'GPU-aaaa', index: 0 },
      model: 'NVIDIA H100 80GB HBM3',
      // mean = (200 + 300) / (10 + 30) = 12.5; max = max(50, 40)
      percent: { utilizationPct: { mean: 12.5, p50: 9, p95: 45, max: 50 } },
      // observed = (10 + 2) steps x 300 s = 3600 s; idle = (4 + 1) x 300 s = 1500 s
      idle: { utilization: { observedSeconds: 3600, idleSeconds: 1500 } },
      // presence over all metrics: (12 + 3) steps x 300 s
      observedSeconds: 4500,
      samples: 40,
      firstSeenMs: START + 300_000,
      lastSeenMs: START + 2 * H - 600_000,
      hourlyComputePct: { startMs: START, values: [20, 12.5] },
    });
  });

  it('says when the server has none of the series, naming the window and selector', async () => {
    const collect = collectFromPrometheus(fakeClient([]), {
      window: { startMs: START, endMs: START + H, stepSeconds: 300 },
      matchers: ['namespace="ml"'],
      idleThresholdPct: 5,
      defaultHost: 'prom:9090',
    });
    await expect(collect).rejects.toThrow(InputError);
    await expect(collect).rejects.toThrow('between 2026-11-02T00:00:00.000Z and 2026-11-02T01:00:00.000Z matching {namespace="ml"}');
  });
});

describe('answers that disagree', () => {
  it('never counts less observed time than a signal saw, and says an answer lacked data', async () => {
    const collection = await collectFromPrometheus(fakeClient(['DCGM_FI_DEV_GPU_UTIL'], { firstPresenceEmpty: true }), {
      window: { startMs: START, endMs: START + 2 * H, stepSeconds: 300 },
      matchers: [],
      idleThresholdPct: 5,
      defaultHost: 'prom:9090',
      chunkSeconds: 3600,
    });
    // Presence: 0 + 3 steps; utilization: 10 + 2 steps, 5 of them idle: observed is 12 x 300 s.
    expect(collection.devices[0]).toMatchObject({ observedSeconds: 3600, idle: { utilization: { observedSeconds: 3600, idleSeconds: 1500 } } });
    expect(collection.warnings).toContain('GPU-aaaa on node-1: the presence query answered 3 steps, a signal 12: an answer lacked data; observed time is the signal\'s');
  });
});

describe('a window with a part missing', () => {
  const options = {
    window: { startMs: START, endMs: START + 2 * H, stepSeconds: 300 },
    matchers: [],
    idleThresholdPct: 5,
    defaultHost: 'prom:9090',
    chunkSeconds: 3600,
  };

  it('fails the whole audit (exit 3) when one chunk fails for good, rather than report the other chunk as the window', async () => {
    const client = fakeClient(['DCGM_FI_DEV_GPU_UTIL'], { secondChunkFails: true });
    const collect = collectFromPrometheus(client, options);
    await expect(collect).rejects.toThrow(UpstreamError);
    await expect(collect).rejects.toThrow('no answer after 4 attempts: HTTP 503');
    // The queries still running are cancelled.
    expect((client as unknown as { aborted: boolean }).aborted).toBe(true);
  });

  it('names the part of the window whose answers were partial', async () => {
    const collection = await collectFromPrometheus(fakeClient(['DCGM_FI_DEV_GPU_UTIL'], { secondChunkPartial: true }), options);
    // The second chunk is [START + 1 h, START + 2 h): 01:00 to 02:00.
    expect(collection.warnings).toEqual([
      'Prometheus: partial response: store B unavailable (partial answers for 2026-11-02T01:00:00Z to 2026-11-02T02:00:00Z: ' +
      'figures may lack data from that part of the window)',
    ]);
  });

  it('says how many series a label cap left out, and why the first was', async () => {
    const skipped = { count: 3, first: 'more than 256 labels (--input-limit labels=N reads more)' };
    const collection = await collectFromPrometheus(fakeClient(['DCGM_FI_DEV_GPU_UTIL'], { skipped }), options);
    expect(collection.warnings).toEqual(['3 series left out of the answers for a label cap (the first: more than 256 labels (--input-limit labels=N reads more))']);
  });

  it('merges overlapping and adjacent spans per warning, clips them to the window and says when they cover all of it', () => {
    const window = { startMs: START, endMs: START + 4 * H };
    const answers: PartialAnswer[] = [
      { warning: 'w1', fromMs: START + 2 * H, toMs: START + 3 * H },
      { warning: 'w1', fromMs: START - H, toMs: START + H },
      { warning: 'w1', fromMs: START + 3 * H, toMs: START + 3.5 * H },
      { warning: 'w2', fromMs: START, toMs: START + 5 * H },
    ];
    expect(partialWarnings(answers, window)).toEqual([
      // [-1 h, 1 h] clipped to [0, 1 h]; [2 h, 3 h] and [3 h, 3.5 h] touch: [2 h, 3.5 h].
      'Prometheus: w1 (partial answers for 2026-11-02T00:00:00Z to 2026-11-02T01:00:00Z, 2026-11-02T02:00:00Z to 2026-11-02T03:30:00Z: ' +
      'figures may lack data from that part of the window)',
      'Prometheus: w2 (partial answers for 2026-11-02T00:00:00Z to 2026-11-02T04:00:00Z, the whole window: figures may lack data from that part of the window)',
    ]);
  });
});

describe('pods on a device', () => {
  const options = {
    window: { startMs: START, endMs: START + 2 * H, stepSeconds: 300 },
    matchers: [],
    idleThresholdPct: 5,
    defaultHost: 'prom:9090',
    chunkSeconds: 3600,
  };
  const pod = (labels: Record<string, string>, tag: string, value: number): InstantSample => ({ labels: { ...GPU, ...labels, gpu_audit: tag }, value });
  const trainer = { namespace: 'ml', pod: 'trainer-0', container: 'trainer' };
  // Scraped through a ServiceMonitor: pod/namespace name the exporter, exported_* the workload.
  const operator = { service: 'dcgm-exporter', endpoint: 'metrics', namespace: 'gpu-operator', pod: 'dcgm-exporter-x1', exported_namespace: 'ml', exported_pod: 'eval-1' };

  it('sums the steps of each container over the chunks, keeps its first and last step, and reads the pod as the file sources do', async () => {
    const collection = await collectFromPrometheus(fakeClient(['DCGM_FI_DEV_GPU_UTIL'], {
      pods: [
        // First hour: trainer-0 for 8 steps (00:05 to 00:40).
        [pod(trainer, 'pod_steps', 8), pod(trainer, 'pod_first', START / 1000 + 300), pod(trainer, 'pod_last', START / 1000 + 2400)],
        // Second hour: trainer-0 for 2 more steps (01:05, 01:10), then eval-1 for 4 (01:20 to 01:35).
        [
          pod(trainer, 'pod_steps', 2), pod(trainer, 'pod_first', START / 1000 + 3900), pod(trainer, 'pod_last', START / 1000 + 4200),
          pod(operator, 'pod_steps', 4), pod(operator, 'pod_first', START / 1000 + 4800), pod(operator, 'pod_last', START / 1000 + 5700),
        ],
      ],
    }), options);
    expect(collection.devices[0]!.pods).toEqual([
      { namespace: 'ml', pod: 'eval-1', steps: 4, firstSeenMs: START + 4_800_000, lastSeenMs: START + 5_700_000 },
      // 8 + 2 steps; first 00:05, last 01:10.
      { namespace: 'ml', pod: 'trainer-0', container: 'trainer', steps: 10, firstSeenMs: START + 300_000, lastSeenMs: START + 4_200_000 },
    ]);
    expect(collection.rangeRule).toBe('closed');
    expect(collection.cpu).toEqual({ hosts: [], containers: [] });
  });

  it('leaves a device without a pod mapping without pods', async () => {
    const collection = await collectFromPrometheus(fakeClient(['DCGM_FI_DEV_GPU_UTIL']), options);
    expect(collection.devices[0]!.pods).toBeUndefined();
  });

  it('fails (exit 3) on a server whose range rule it cannot tell, before reading figures it might count twice', async () => {
    const collect = collectFromPrometheus(fakeClient(['DCGM_FI_DEV_GPU_UTIL'], { probe: 5 }), options);
    await expect(collect).rejects.toThrow(UpstreamError);
    await expect(collect).rejects.toThrow('count_over_time(vector(1)[2s:1s]) answered [5], expected [3] (Prometheus 2.x) or [2] (3.x)');
  });
});

describe('bucketOfPoint: which bucket a range point stands for, on any engine', () => {
  const grid = { startMs: Date.parse('2026-11-20T08:00:00Z'), bucketMs: 3_600_000 };
  it('reads the point at a bucket\'s end (asked there, offset 1 ms back) as that bucket', () => {
    expect(bucketOfPoint((grid.startMs + grid.bucketMs) / 1000, grid)).toBe(grid.startMs);
    expect(bucketOfPoint((grid.startMs + 3 * grid.bucketMs) / 1000, grid)).toBe(grid.startMs + 2 * grid.bucketMs);
  });

  it('takes a point an engine moved within the step (1 ms early, a second late) as the bucket whose end is nearest', () => {
    expect(bucketOfPoint((grid.startMs + grid.bucketMs - 1) / 1000, grid)).toBe(grid.startMs);
    expect(bucketOfPoint((grid.startMs + 2 * grid.bucketMs + 1000) / 1000, grid)).toBe(grid.startMs + grid.bucketMs);
  });
});

describe('withinLimits: a query the engine refuses for its size, asked again in halves', () => {
  const refusal = new QueryLimitError('the engine refused the query for its size: too many samples', { endpoint: 'http://prom:9090/api/v1/query' });

  it('splits on whole steps until each part answers, and counts the splits', async () => {
    const asked: [number, number][] = [];
    const splits = { count: 0 };
    // Refuses anything over 2 steps of 300 s.
    await withinLimits({ startMs: 0, endMs: 1_500_000 }, 300_000, splits, async (part) => {
      if (part.endMs - part.startMs > 600_000) throw refusal;
      asked.push([part.startMs, part.endMs]);
    });
    // 5 steps: 2 + 3; the 3 again: 1 + 2.
    expect(asked).toEqual([[0, 600_000], [600_000, 900_000], [900_000, 1_500_000]]);
    expect(splits.count).toBe(2);
  });

  it('gives up on one step, and never splits other failures', async () => {
    const splits = { count: 0 };
    await expect(withinLimits({ startMs: 0, endMs: 300_000 }, 300_000, splits, () => Promise.reject(refusal))).rejects.toBe(refusal);
    const down = new UpstreamError('no answer after 4 attempts: HTTP 503', { endpoint: 'x' });
    await expect(withinLimits({ startMs: 0, endMs: 3_000_000 }, 300_000, splits, () => Promise.reject(down))).rejects.toBe(down);
    expect(splits.count).toBe(0);
  });
});

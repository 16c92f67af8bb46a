/**
 * node_exporter and cAdvisor counters pushed down (src/sources/live/prometheus/cpu.ts): the PromQL
 * sent, and how answers become per-host and per-container increases. The server is replaced by
 * answers worked by hand; the real one is in test/integration/prometheus-kubernetes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { InstantSample, PrometheusClient } from '../../../../src/sources/live/prometheus/client.js';
import {
  MAX_QUERY_CHARS, PODS_PER_CONTAINER_QUERY, withinQueryLength, containerCpuQuery, counterIncrease, exactAlternatives, fetchContainerCpu, fetchHostCpu, hostCpuQuery,
} from '../../../../src/sources/live/prometheus/cpu.js';

const S = Date.parse('2026-11-20T08:00:00Z');
const WINDOW = { startMs: S, endMs: S + 3 * 3_600_000, stepSeconds: 1800 };

function fakeClient(answer: (query: string) => InstantSample[]): PrometheusClient & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    instant: (query: string) => {
      queries.push(query);
      return Promise.resolve(answer(query));
    },
  } as unknown as PrometheusClient & { queries: string[] };
}

describe('PromQL sent', () => {
  it('takes a counter\'s increase as last - first reading where it was never reset, else increase()', () => {
    expect(counterIncrease('c', '1h')).toBe('(last_over_time(c[1h]) - min_over_time(c[1h])) and (resets(c[1h]) == 0) or increase(c[1h])');
  });

  it('asks per host the increase by mode, the CPUs, resets and first and last step, all in one request', () => {
    const query = hostCpuQuery(WINDOW, 'closed');
    const parts = query.split('\nor label_replace(');
    expect(parts).toHaveLength(5);
    // 3 h = 10,800,000 ms, one short under the closed rule.
    expect(query).toContain('sum by (node, nodename, Hostname, instance, mode) ((last_over_time(node_cpu_seconds_total[10799999ms])');
    expect(query).toContain('count by (node, nodename, Hostname, instance) (count by (node, nodename, Hostname, instance, cpu) (last_over_time(node_cpu_seconds_total[10799999ms])))');
    expect(query).toContain('min_over_time((group by (node, nodename, Hostname, instance) (node_cpu_seconds_total{cpu="0",mode="idle"}) * time())[10799999ms:1800s])');
    expect(hostCpuQuery(WINDOW, 'left-open')).toContain('[10800000ms]');
  });

  it('asks for the containers of the pods seen on GPUs only, leaving the pod cgroup and the pause container out', () => {
    const query = containerCpuQuery(WINDOW, 'closed', [{ namespace: 'ml', pod: 'trainer-0' }, { namespace: 'serving', pod: 'api.v2-7d' }]);
    expect(query).toContain('container_cpu_usage_seconds_total{container!~"|POD",namespace=~"ml|serving",pod=~"api\\\\.v2-7d|trainer-0"}');
    for (const tag of ['usage', 'usage_first', 'usage_last', 'periods', 'throttled']) expect(query).toContain(`"gpu_audit", "${tag}"`);
  });

  it('escapes regex and string metacharacters in the names it matches exactly', () => {
    // a.b -> a\.b (regex), then \ -> \\ inside the PromQL string; duplicates once, sorted.
    expect(exactAlternatives(['a.b', 'c', 'a.b'])).toBe('a\\\\.b|c');
    expect(exactAlternatives(['x"y'])).toBe('x\\"y');
  });
});

describe('host CPU', () => {
  it('sums the increases by mode per host, named as the file source names it (instance without its port)', async () => {
    const labels = { instance: 'gpu-node-1:9100', job: 'node' };
    // 2 CPUs over 3 h: user 10,000 s, idle 10,800 s, iowait 800 s; first step 08:00, last 11:00.
    const client = fakeClient((): InstantSample[] => [
      { labels: { ...labels, mode: 'user', gpu_audit: 'seconds' }, value: 10_000 },
      { labels: { ...labels, mode: 'idle', gpu_audit: 'seconds' }, value: 10_800 },
      { labels: { ...labels, mode: 'iowait', gpu_audit: 'seconds' }, value: 800 },
      { labels: { ...labels, gpu_audit: 'cores' }, value: 2 },
      { labels: { ...labels, gpu_audit: 'resets' }, value: 1 },
      { labels: { ...labels, gpu_audit: 'first' }, value: S / 1000 },
      { labels: { ...labels, gpu_audit: 'last' }, value: S / 1000 + 10_800 },
      // Kubernetes service discovery's node label wins over instance.
      { labels: { instance: '10.0.0.7:9100', node: 'gpu-node-2', mode: 'user', gpu_audit: 'seconds' }, value: 5 },
    ]);
    expect(await fetchHostCpu(client, WINDOW, 'closed')).toEqual([
      { host: 'gpu-node-1', cores: 2, secondsByMode: { user: 10_000, idle: 10_800, iowait: 800 }, windowSeconds: 10_800, counterResets: 1 },
      { host: 'gpu-node-2', cores: 0, secondsByMode: { user: 5 }, windowSeconds: 0, counterResets: 0 },
    ]);
  });

  it('gives no hosts, and no error, where node_exporter is not scraped', async () => {
    expect(await fetchHostCpu(fakeClient(() => []), WINDOW, 'closed')).toEqual([]);
  });
});

describe('container CPU', () => {
  const pods = [{ namespace: 'ml', pod: 'trainer-0' }, { namespace: 'serving', pod: 'api-0' }];

  it('gives each container its usage, CFS periods and the span of its usage counter; pairs not asked for are left out', async () => {
    const trainer = { namespace: 'ml', pod: 'trainer-0', container: 'trainer', instance: 'gpu-node-1' };
    const client = fakeClient(() => [
      { labels: { ...trainer, gpu_audit: 'usage' }, value: 5400 },
      { labels: { ...trainer, gpu_audit: 'usage_first' }, value: S / 1000 },
      { labels: { ...trainer, gpu_audit: 'usage_last' }, value: S / 1000 + 10_800 },
      { labels: { ...trainer, gpu_audit: 'periods' }, value: 108_000 },
      { labels: { ...trainer, gpu_audit: 'throttled' }, value: 27_000 },
      // ml/api-0 matches namespace=~"ml|serving" and pod=~"api-0|trainer-0" but was not seen on a GPU.
      { labels: { namespace: 'ml', pod: 'api-0', container: 'x', gpu_audit: 'usage' }, value: 1 },
    ]);
    expect(await fetchContainerCpu(client, WINDOW, 'closed', pods)).toEqual([
      { host: 'gpu-node-1', namespace: 'ml', pod: 'trainer-0', container: 'trainer', usageSeconds: 5400, presentSeconds: 10_800, periods: 108_000, throttledPeriods: 27_000 },
    ]);
  });

  it('asks nothing without pods, and asks in batches whose every query stays within MAX_QUERY_CHARS', async () => {
    const client = fakeClient(() => []);
    expect(await fetchContainerCpu(client, WINDOW, 'closed', [])).toEqual([]);
    expect(client.queries).toHaveLength(0);
    const many = Array.from({ length: PODS_PER_CONTAINER_QUERY + 1 }, (_, n) => ({ namespace: 'ci', pod: `job-${n}` }));
    await fetchContainerCpu(client, WINDOW, 'closed', many);
    // 501 pod names four times over are some 30 KB: halved until each query is under 12,000 characters.
    expect(client.queries.length).toBeGreaterThan(2);
    expect(Math.max(...client.queries.map((query) => query.length))).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    const asked = client.queries.flatMap((query) => [...query.matchAll(/job-(\d+)/gu)].map((match) => Number(match[1])));
    expect(new Set(asked)).toEqual(new Set(many.map((_, n) => n)));
  });

  it('splits by halves until a query fits, and sends a lone item that does not fit alone', () => {
    const query = (batch: readonly string[]): string => batch.join(',');
    expect(withinQueryLength(['aaaa', 'bbbb', 'cccc', 'dddd'], query, 9)).toEqual([['aaaa', 'bbbb'], ['cccc', 'dddd']]);
    expect(withinQueryLength(['aaaaaaaaaaaa', 'b'], query, 9)).toEqual([['aaaaaaaaaaaa'], ['b']]);
    expect(withinQueryLength([], query, 9)).toEqual([]);
  });
});

/**
 * node_exporter and cAdvisor CPU counters in Prometheus text (test/fixtures/node-metrics,
 * written by the project from the documented metric shapes: see its README).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CpuUsageTable } from '../../../src/analysis/cpu-pipeline/cpu-usage.js';
import { InputError } from '../../../src/support/errors.js';
import type { ContainerCpuSample, HostCpuSample } from '../../../src/model/observations.js';
import { dcgmExporter } from '../../../src/sources/formats/dcgm-exporter.js';
import { detectParser } from '../../../src/sources/index.js';
import { nodeMetrics } from '../../../src/sources/formats/node-metrics.js';
import { repoRoot } from '../../helpers/corpus.js';
import { chunked, RecordingSink } from '../../helpers/sink.js';

class CpuRecordingSink extends RecordingSink {
  readonly hosts: HostCpuSample[] = [];
  readonly containers: ContainerCpuSample[] = [];
  hostCpu(sample: HostCpuSample): void {
    this.hosts.push(sample);
  }
  containerCpu(sample: ContainerCpuSample): void {
    this.containers.push(sample);
  }
}

const fixture = (name: string): string => readFileSync(path.join(repoRoot, 'test/fixtures/node-metrics', name), 'utf8');
const CONTEXT = { ref: 'metrics.prom', host: 'file-host', timeZone: 'UTC' };

async function parse(text: string, chunkSizes?: number[]): Promise<{ sink: CpuRecordingSink; records: number }> {
  const sink = new CpuRecordingSink();
  const { records } = await nodeMetrics.parse(chunked(text, chunkSizes), CONTEXT, sink);
  return { sink, records };
}

const T0 = 1_700_000_000_000;

describe('detection', () => {
  it('claims node_exporter and cAdvisor pages, and the registry picks this parser for them', () => {
    for (const name of ['node-exporter-federate.prom', 'cadvisor-federate.prom']) {
      expect(nodeMetrics.detect(fixture(name))).toBe(true);
      expect(dcgmExporter.detect(fixture(name))).toBe(false);
      expect(detectParser(fixture(name))?.format).toBe('node-metrics');
    }
  });

  it('leaves a page that also has DCGM series to the dcgm-exporter parser', () => {
    const mixed = `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1"} 91 ${T0}\nnode_cpu_seconds_total{cpu="0",mode="idle"} 10 ${T0}\n`;
    expect(nodeMetrics.detect(mixed)).toBe(false);
    expect(dcgmExporter.detect(mixed)).toBe(true);
  });

  it('does not claim exposition without CPU counters, or text that is not exposition', () => {
    expect(nodeMetrics.detect(`node_load1 1.5 ${T0}\n`)).toBe(false);
    expect(nodeMetrics.detect('node_cpu_seconds_total is a counter\nsee the docs\n')).toBe(false);
  });
});

describe('node_exporter', () => {
  it('sends one reading per cpu and mode per scrape, attributed to the instance without its port', async () => {
    const { sink, records } = await parse(fixture('node-exporter-federate.prom'), [7, 300, 11]);
    // 2 CPUs x 4 modes x 3 scrapes; go_goroutines and node_load1 are ignored.
    expect(records).toBe(24);
    expect(sink.hosts).toHaveLength(24);
    expect(sink.hosts[0]).toEqual({ host: 'gpu-node-1', time: T0, cpu: '0', mode: 'idle', secondsTotal: 1000 });
    expect(sink.warnings).toEqual([]);
  });

  it('gives the host busy share: 1 - (idle + iowait) / all modes, over its cores', async () => {
    const { sink } = await parse(fixture('node-exporter-federate.prom'));
    const table = new CpuUsageTable();
    for (const sample of sink.hosts) table.hostCpu(sample);
    // Over 30 s: cpu0 idle +1, iowait +0, user +28, system +1 = 30; cpu1 idle +2, iowait +1,
    // user +24, system +3 = 30. Busy = 1 - (1 + 0 + 2 + 1) / 60 = 56 / 60.
    const [host] = table.hosts();
    expect(host).toMatchObject({ host: 'gpu-node-1', cores: 2, windowSeconds: 30, counterResets: 0 });
    expect(host!.busyFraction).toBeCloseTo(56 / 60, 12);
  });
});

describe('cAdvisor', () => {
  it('reads the containers of the pod, not the pod cgroup (container="") or the pause container', async () => {
    const { sink, records } = await parse(fixture('cadvisor-federate.prom'));
    // trainer: usage, periods, throttled; loader: usage; x 3 scrapes.
    expect(records).toBe(12);
    expect(new Set(sink.containers.map((sample) => sample.container))).toEqual(new Set(['trainer', 'loader']));
    expect(sink.containers[0]).toEqual({
      host: 'gpu-node-1', time: T0, namespace: 'ml', pod: 'trainer-0', container: 'trainer', counter: 'usage-seconds', value: 1000,
    });
  });

  it('gives cores used and the throttled share, across a counter restart', async () => {
    const { sink } = await parse(fixture('cadvisor-federate.prom'));
    const table = new CpuUsageTable();
    for (const sample of sink.containers) table.containerCpu(sample);
    const byName = new Map(table.containers().map((figures) => [figures.container, figures]));
    // trainer: (1480 - 1000) s / 120 s = 4 cores; throttled (2600 - 2000) / (11200 - 10000) = 0.5.
    expect(byName.get('trainer')!.coresUsed).toBeCloseTo(4, 12);
    expect(byName.get('trainer')!.throttledFraction).toBeCloseTo(0.5, 12);
    // loader: 50 -> 80 (+30), then 30 < 80: restarted from 0, +30. 60 s / 120 s = 0.5 cores; no CPU limit, no periods.
    expect(byName.get('loader')!.coresUsed).toBeCloseTo(0.5, 12);
    expect(byName.get('loader')!.throttledFraction).toBeUndefined();
  });

  it('reads the pre-1.16 label names pod_name and container_name', async () => {
    const { sink } = await parse(`container_cpu_usage_seconds_total{namespace="ml",pod_name="p",container_name="c"} 1 ${T0}\n`);
    expect(sink.containers[0]).toMatchObject({ pod: 'p', container: 'c', host: 'file-host' });
  });
});

describe('bad input', () => {
  it('leaves out readings without a timestamp, with one warning that says why', async () => {
    const { sink, records } = await parse('node_cpu_seconds_total{cpu="0",mode="idle"} 10\nnode_cpu_seconds_total{cpu="0",mode="user"} 5\n');
    expect(records).toBe(0);
    expect(sink.warnings).toHaveLength(1);
    expect(sink.warnings[0]!.message).toMatch(/^2 CPU counter readings have no timestamp/);
  });

  it('warns about a node_cpu line without its labels and a negative counter', async () => {
    const { sink, records } = await parse(`node_cpu_seconds_total{cpu="0"} 10 ${T0}\nnode_cpu_seconds_total{cpu="0",mode="idle"} -1 ${T0}\n`);
    expect(records).toBe(0);
    expect(sink.warnings.map((warning) => warning.location)).toEqual(['line 1', 'line 2']);
  });

  it('rejects a page without any CPU counter', async () => {
    await expect(parse(`node_load1 1 ${T0}\n`)).rejects.toBeInstanceOf(InputError);
  });
});

/**
 * CPU counters in Prometheus text exposition, from node_exporter (`/metrics`) and cAdvisor
 * (the kubelet's `/metrics/cadvisor`), one scrape or many concatenated, with sample
 * timestamps (as Prometheus' `/federate` prints them):
 *
 *   node_cpu_seconds_total{cpu="0",mode="idle",instance="gpu-node-1:9100"} 123456.78 1700000000000
 *   container_cpu_usage_seconds_total{namespace="ml",pod="trainer-0",container="loader"} 5120.5 1700000000000
 *   container_cpu_cfs_periods_total{...} 81234 1700000000000
 *   container_cpu_cfs_throttled_periods_total{...} 20123 1700000000000
 *
 * Counters only become figures as rates, so a reading without a timestamp cannot be used:
 * it is counted and reported once. Other metrics of the page are ignored.
 *
 * Detection: exposition that names node_exporter's or cAdvisor's CPU counters and has no
 * DCGM_FI_ series. A page with both (one scrape of several exporters) belongs to the
 * dcgm-exporter parser, which ignores these series: gpu-audit reads each input with one
 * parser, and the GPU figures matter more. Save node metrics to their own file to use them.
 *
 * Host: the series' `node` label (Kubernetes service discovery), else `nodename` (copied from
 * node_uname_info by relabelling), else `Hostname`, else `instance` without its `:port`, else
 * the input's host (file name or --host). The live-Prometheus source uses the same rule.
 */
import { InputError } from '../../support/index.js';
import type { ContainerCpuCounter } from '../../model/index.js';
import type { ParseResult, SourceParser } from '../types.js';
import { DCGM_METRIC_PREFIX } from '../dcgm/fields.js';
import { scanExpositionLine, UNCAPPED_LABELS, type ExpositionSample } from '../dcgm/exposition.js';
import { inputLimitsOf } from '../input-limits.js';
import { forEachLine } from '../lexers/text/lines.js';
import { WarningLimiter } from '../lexers/text/warnings.js';

export const NODE_CPU_METRIC = 'node_cpu_seconds_total';

/** cAdvisor counters and what each becomes. */
export const CONTAINER_CPU_METRICS: Readonly<Record<string, ContainerCpuCounter>> = {
  container_cpu_usage_seconds_total: 'usage-seconds',
  container_cpu_cfs_periods_total: 'cfs-periods',
  container_cpu_cfs_throttled_periods_total: 'cfs-throttled-periods',
};

const CPU_METRICS: readonly string[] = [NODE_CPU_METRIC, ...Object.keys(CONTAINER_CPU_METRICS)];
/** cAdvisor's pod-level cgroup (`container=""`) and the pause container (`POD`) are not containers of the pod spec. */
const NOT_A_CONTAINER: readonly string[] = ['', 'POD'];
export const CPU_HOST_LABELS: readonly string[] = ['node', 'nodename', 'Hostname', 'instance'];
const PORT = /:\d+$/;
const COMMENT_NAMING = /^#\s*(?:HELP|TYPE)\s+(\S+)/;

function detect(head: string): boolean {
  let cpu = false;
  let exposition = 0;
  let other = 0;
  for (const raw of head.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const scanned = scanExpositionLine(line, undefined, UNCAPPED_LABELS);
    if (scanned.kind === 'blank') continue;
    if (scanned.kind === 'invalid') {
      other += 1;
      continue;
    }
    exposition += 1;
    const name = scanned.kind === 'comment' ? COMMENT_NAMING.exec(line)?.[1] : scanned.sample.name;
    if (name === undefined) continue;
    if (name.startsWith(DCGM_METRIC_PREFIX)) return false;
    if (CPU_METRICS.includes(name)) cpu = true;
  }
  return cpu && exposition > other;
}

export function hostOf(labels: ReadonlyMap<string, string>, fallback: string): string {
  for (const label of CPU_HOST_LABELS) {
    const value = labels.get(label);
    if (value !== undefined && value !== '') return label === 'instance' ? value.replace(PORT, '') : value;
  }
  return fallback;
}

/** cAdvisor before Kubernetes 1.16 named these labels `pod_name` and `container_name`. */
const labelOf = (labels: ReadonlyMap<string, string>, name: string): string | undefined => labels.get(name) ?? labels.get(`${name}_name`);

export const nodeMetrics: SourceParser = {
  format: 'node-metrics',
  description: 'node_exporter / cAdvisor CPU counters (Prometheus text with timestamps)',
  detect,
  async parse(chunks, context, sink): Promise<ParseResult> {
    const limits = inputLimitsOf(context.limits);
    const limiter = new WarningLimiter(sink);
    let readings = 0;
    let cpuLines = 0;
    let untimedLine: number | undefined;
    let untimed = 0;

    const read = (sample: ExpositionSample, time: number, lineNumber: number): void => {
      const value = Number(sample.value);
      if (!Number.isFinite(value) || value < 0) {
        limiter.warn(`line ${lineNumber}`, `${sample.name} value ${sample.value} is not a counter reading; left out`);
        return;
      }
      const host = hostOf(sample.labels, context.host);
      if (sample.name === NODE_CPU_METRIC) {
        const cpu = sample.labels.get('cpu');
        const mode = sample.labels.get('mode');
        if (cpu === undefined || mode === undefined) {
          limiter.warn(`line ${lineNumber}`, `${NODE_CPU_METRIC} without cpu and mode labels; left out`);
          return;
        }
        sink.hostCpu?.({ host, time, cpu, mode, secondsTotal: value });
        readings += 1;
        return;
      }
      const namespace = sample.labels.get('namespace');
      const pod = labelOf(sample.labels, 'pod');
      const container = labelOf(sample.labels, 'container') ?? '';
      if (namespace === undefined || pod === undefined || NOT_A_CONTAINER.includes(container)) return;
      sink.containerCpu?.({ host, time, namespace, pod, container, counter: CONTAINER_CPU_METRICS[sample.name]!, value });
      readings += 1;
    };

    const lines = await forEachLine(chunks, context.ref, (line, lineNumber) => {
      const scanned = scanExpositionLine(line, undefined, limits);
      if (scanned.kind !== 'sample' || !CPU_METRICS.includes(scanned.sample.name)) return;
      cpuLines += 1;
      const { sample } = scanned;
      if (sample.time === undefined) {
        untimed += 1;
        untimedLine ??= lineNumber;
        return;
      }
      read(sample, sample.time, lineNumber);
    });

    if (cpuLines === 0) {
      throw new InputError(`no ${CPU_METRICS.join(' or ')} series found`, { file: context.ref, location: `line ${lines}` });
    }
    if (untimedLine !== undefined) {
      limiter.warn(
        `line ${untimedLine}`,
        `${untimed} CPU counter readings have no timestamp and were left out: rates need timed scrapes (save Prometheus /federate output, or add the scrape time to each line)`,
      );
    }
    limiter.finish(`line ${lines}`);
    return { records: readings };
  },
};

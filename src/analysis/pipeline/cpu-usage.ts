/**
 * CPU figures over the window from node_exporter and cAdvisor counters (DESIGN.md definitions
 * in src/report/definitions.ts, "CPU busy share, throttled share"):
 *
 *  - host busy share = 1 - (increase of `idle` + `iowait` seconds) / (increase of all modes'
 *    seconds), summed over the host's CPUs; cores = distinct `cpu` labels. iowait counts as not
 *    busy: a CPU waiting on disk is free to feed the GPU, and a saturated pipeline shows as
 *    user/system time.
 *  - container cores used = increase of `container_cpu_usage_seconds_total` / window seconds;
 *    throttled share = increase of throttled periods / increase of periods (CFS quota).
 *
 * Bounded: one small record per counter series, at most MAX_CPU_SERIES of them; the rest are
 * counted and dropped.
 */
import type { ContainerCpuCounter, ContainerCpuSample, ContainerCpuTotals, HostCpuSample, HostCpuTotals } from '../../model/observations.js';
import { CounterTable, ratePerSecond } from './counters.js';

export const MAX_CPU_SERIES = 200_000;
/** Modes in which a CPU does no work (node_exporter's `mode` label). */
export const NOT_BUSY_MODES: readonly string[] = ['idle', 'iowait'];

export interface HostCpuFigures {
  host: string;
  cores: number;
  /** Share of the host's CPU time spent busy over the window, 0-1. */
  busyFraction: number;
  windowSeconds: number;
  counterResets: number;
}

export interface ContainerCpuFigures {
  host: string;
  namespace: string;
  pod: string;
  container: string;
  /** Mean cores used over the window; undefined without two usage readings. */
  coresUsed?: number;
  /** Share of CFS periods throttled, 0-1; undefined without period counters (no CPU limit). */
  throttledFraction?: number;
}

/** The busy share by the definition above, from totals a query summed (live Prometheus); none when the counters never advanced. */
export function hostCpuFromTotals(totals: HostCpuTotals): HostCpuFigures[] {
  const modes = Object.entries(totals.secondsByMode);
  const total = modes.reduce((sum, [, seconds]) => sum + seconds, 0);
  const notBusy = modes.filter(([mode]) => NOT_BUSY_MODES.includes(mode)).reduce((sum, [, seconds]) => sum + seconds, 0);
  if (!(total > 0)) return [];
  return [{ host: totals.host, cores: totals.cores, busyFraction: 1 - notBusy / total, windowSeconds: totals.windowSeconds, counterResets: totals.counterResets }];
}

export function containerCpuFromTotals(totals: ContainerCpuTotals): ContainerCpuFigures {
  const { host, namespace, pod, container } = totals;
  const figures: ContainerCpuFigures = { host, namespace, pod, container };
  if (totals.usageSeconds !== undefined && (totals.presentSeconds ?? 0) > 0) figures.coresUsed = totals.usageSeconds / totals.presentSeconds!;
  if (totals.periods !== undefined && totals.throttledPeriods !== undefined && totals.periods > 0) figures.throttledFraction = totals.throttledPeriods / totals.periods;
  return figures;
}

const SEP = '\u0000';

export class CpuUsageTable {
  private readonly hostCounters = new CounterTable();
  private readonly containerCounters = new CounterTable();
  /** Readings dropped because MAX_CPU_SERIES series were already held. */
  droppedReadings = 0;

  private admit(table: CounterTable, key: string): boolean {
    if (this.hostCounters.size + this.containerCounters.size < MAX_CPU_SERIES || table.get(key) !== undefined) return true;
    this.droppedReadings += 1;
    return false;
  }

  hostCpu(sample: HostCpuSample): void {
    const key = [sample.host, sample.cpu, sample.mode].join(SEP);
    if (this.admit(this.hostCounters, key)) this.hostCounters.add(key, sample.time, sample.secondsTotal);
  }

  containerCpu(sample: ContainerCpuSample): void {
    const key = [sample.host, sample.namespace, sample.pod, sample.container, sample.counter].join(SEP);
    if (this.admit(this.containerCounters, key)) this.containerCounters.add(key, sample.time, sample.value);
  }

  /** Busy share per host; hosts whose counters never advanced are absent. */
  hosts(): HostCpuFigures[] {
    const byHost = new Map<string, { cpus: Set<string>; total: number; notBusy: number; firstMs: number; lastMs: number; resets: number }>();
    for (const key of this.hostCounters.keys()) {
      const [host, cpu, mode] = key.split(SEP) as [string, string, string];
      const counter = this.hostCounters.get(key)!;
      if (counter.readings < 2) continue;
      let figures = byHost.get(host);
      if (figures === undefined) {
        figures = { cpus: new Set(), total: 0, notBusy: 0, firstMs: counter.firstMs, lastMs: counter.lastMs, resets: 0 };
        byHost.set(host, figures);
      }
      figures.cpus.add(cpu);
      figures.total += counter.increase;
      if (NOT_BUSY_MODES.includes(mode)) figures.notBusy += counter.increase;
      figures.firstMs = Math.min(figures.firstMs, counter.firstMs);
      figures.lastMs = Math.max(figures.lastMs, counter.lastMs);
      figures.resets += counter.resets;
    }
    return [...byHost]
      .filter(([, figures]) => figures.total > 0)
      .map(([host, figures]) => ({
        host,
        cores: figures.cpus.size,
        busyFraction: 1 - figures.notBusy / figures.total,
        windowSeconds: (figures.lastMs - figures.firstMs) / 1000,
        counterResets: figures.resets,
      }));
  }

  /** Cores used and throttled share per container. */
  containers(): ContainerCpuFigures[] {
    const seen = new Map<string, ContainerCpuFigures>();
    for (const key of this.containerCounters.keys()) {
      const parts = key.split(SEP) as [string, string, string, string, ContainerCpuCounter];
      const id = parts.slice(0, 4).join(SEP);
      if (seen.has(id)) continue;
      const [host, namespace, pod, container] = parts;
      const counterOf = (counter: ContainerCpuCounter) => this.containerCounters.get([id, counter].join(SEP));
      const figures: ContainerCpuFigures = { host, namespace, pod, container };
      const coresUsed = ratePerSecond(counterOf('usage-seconds'));
      if (coresUsed !== undefined) figures.coresUsed = coresUsed;
      const periods = counterOf('cfs-periods');
      const throttled = counterOf('cfs-throttled-periods');
      if (periods !== undefined && throttled !== undefined && periods.increase > 0) figures.throttledFraction = throttled.increase / periods.increase;
      seen.set(id, figures);
    }
    return [...seen.values()];
  }
}

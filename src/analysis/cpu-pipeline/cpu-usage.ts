/**
 * CPU figures over the window from node_exporter and cAdvisor counters (DESIGN.md definitions
 * in src/render/definitions.ts, "CPU busy share, throttled share"):
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
import type { ContainerCpuCounter, ContainerCpuSample, ContainerCpuTotals, HostCpuSample, HostCpuTotals } from '../../model/index.js';
import { CounterTable } from './counters.js';

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

/** A host's CPU seconds over the window: in all modes, and in the modes that are not busy. */
interface ModeSeconds {
  total: number;
  notBusy: number;
}

function addModeSeconds(sums: ModeSeconds, mode: string, seconds: number): void {
  sums.total += seconds;
  if (NOT_BUSY_MODES.includes(mode)) sums.notBusy += seconds;
}

/** The busy share by the definition above; none when the counters never advanced. */
function hostFigures(host: string, cores: number, sums: ModeSeconds, windowSeconds: number, counterResets: number): HostCpuFigures[] {
  if (!(sums.total > 0)) return [];
  return [{ host, cores, busyFraction: 1 - sums.notBusy / sums.total, windowSeconds, counterResets }];
}

/** Host figures from totals a query summed (live Prometheus). */
export function hostCpuFromTotals(totals: HostCpuTotals): HostCpuFigures[] {
  const sums: ModeSeconds = { total: 0, notBusy: 0 };
  for (const [mode, seconds] of Object.entries(totals.secondsByMode)) addModeSeconds(sums, mode, seconds);
  return hostFigures(totals.host, totals.cores, sums, totals.windowSeconds, totals.counterResets);
}

/**
 * Cores used and throttled share by the definitions above, from a container's counter increases:
 * summed by a query (live Prometheus), or by CpuUsageTable from raw counters.
 */
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
    // Seconds are summed per counter in the order the counters came, as they always were: a
    // sum per mode first would round differently.
    const byHost = new Map<string, { cpus: Set<string>; seconds: ModeSeconds; firstMs: number; lastMs: number; resets: number }>();
    for (const key of this.hostCounters.keys()) {
      const [host, cpu, mode] = key.split(SEP) as [string, string, string];
      const counter = this.hostCounters.get(key)!;
      if (counter.readings < 2) continue;
      let figures = byHost.get(host);
      if (figures === undefined) {
        figures = { cpus: new Set(), seconds: { total: 0, notBusy: 0 }, firstMs: counter.firstMs, lastMs: counter.lastMs, resets: 0 };
        byHost.set(host, figures);
      }
      figures.cpus.add(cpu);
      addModeSeconds(figures.seconds, mode, counter.increase);
      figures.firstMs = Math.min(figures.firstMs, counter.firstMs);
      figures.lastMs = Math.max(figures.lastMs, counter.lastMs);
      figures.resets += counter.resets;
    }
    return [...byHost].flatMap(([host, figures]) =>
      hostFigures(host, figures.cpus.size, figures.seconds, (figures.lastMs - figures.firstMs) / 1000, figures.resets));
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
      const totals: ContainerCpuTotals = { host, namespace, pod, container };
      // A rate needs two readings; they then span the seconds the counter was present.
      const usage = counterOf('usage-seconds');
      if (usage !== undefined && usage.readings >= 2) {
        totals.usageSeconds = usage.increase;
        totals.presentSeconds = (usage.lastMs - usage.firstMs) / 1000;
      }
      const periods = counterOf('cfs-periods');
      const throttled = counterOf('cfs-throttled-periods');
      if (periods !== undefined) totals.periods = periods.increase;
      if (throttled !== undefined) totals.throttledPeriods = throttled.increase;
      seen.set(id, containerCpuFromTotals(totals));
    }
    return [...seen.values()];
  }
}

/**
 * `proc-stat.csv` of a `gpu-audit collect` bundle: the aggregate `cpu` line of the host's
 * /proc/stat per sample, in cumulative clock ticks (see src/collect/bundle-writer.ts):
 *
 *   timestamp,user_ticks,nice_ticks,system_ticks,idle_ticks,iowait_ticks,irq_ticks,softirq_ticks,steal_ticks,cpus
 *   2026-11-29T16:33:24.000Z,120000,0,30000,800000,5000,0,1000,0,8
 *
 * Each row becomes `hostCpu` readings with node_exporter's mode names, so the pipeline
 * verdict takes the same rates from it as from `node_cpu_seconds_total` (busy share =
 * 1 - (idle + iowait) / all modes, src/analysis/cpu-pipeline/cpu-usage.ts).
 *
 * The file holds only the aggregate line, but the CPU table counts a host's cores as its
 * distinct `cpu` labels: the aggregate is spread evenly over the `cpus` logical CPUs of the
 * first row (the share of each CPU is the same ratio, so the busy share is unchanged and
 * the cores come out right). Ticks become seconds by the manifest's `clockTicksPerSecond`
 * (USER_HZ) when the file sits in a bundle, else by Linux's 100 (the busy share, a ratio,
 * does not depend on it).
 *
 * Detection: the exact header line the collector writes.
 */
import { CPU_TIME_FIELDS } from '../../model/index.js';
import { bundleClockTicksOf } from '../bundle.js';
import type { ParseResult, SourceParser } from '../types.js';
import { forEachLine, isFirstLine } from '../lexers/text/lines.js';
import { WarningLimiter } from '../lexers/text/warnings.js';

/** The collector writes this header (PROC_STAT_HEADER in src/collect/bundle-writer.ts; a test keeps them equal). */
export const PROC_STAT_CSV_HEADER: readonly string[] = ['timestamp', ...CPU_TIME_FIELDS.map((field) => `${field}_ticks`), 'cpus'];
const HEADER_LINE = PROC_STAT_CSV_HEADER.join(',');
const CPUS_COLUMN = PROC_STAT_CSV_HEADER.length - 1;

export const procStatCsv: SourceParser = {
  format: 'proc-stat-csv',
  description: 'gpu-audit collect proc-stat.csv (host CPU ticks)',
  detect: (head) => isFirstLine(head, HEADER_LINE),
  async parse(chunks, context, sink): Promise<ParseResult> {
    const limiter = new WarningLimiter(sink);
    const ticksPerSecond = await bundleClockTicksOf(context.ref);
    let cpus: number | undefined;
    let rows = 0;

    // forEachLine hands lines over without their `\r`.
    const lines = await forEachLine(chunks, context.ref, (line, lineNumber) => {
      if (lineNumber === 1 || line.trim() === '') return;
      const cells = line.split(',');
      const where = `line ${lineNumber}`;
      if (cells.length !== PROC_STAT_CSV_HEADER.length) {
        limiter.warn(where, `${cells.length} columns where the header has ${PROC_STAT_CSV_HEADER.length}; row left out`);
        return;
      }
      const time = Date.parse(cells[0]!);
      const values = cells.slice(1).map(Number);
      if (!Number.isFinite(time) || !values.every((value) => Number.isFinite(value) && value >= 0)) {
        limiter.warn(where, 'timestamp or tick count unreadable; row left out');
        return;
      }
      const rowCpus = values[CPUS_COLUMN - 1]!;
      if (!Number.isInteger(rowCpus) || rowCpus < 1) {
        limiter.warn(where, `cpus ${cells[CPUS_COLUMN]!} is not a CPU count; row left out`);
        return;
      }
      // CPUs brought online or offline mid-window: the spread keeps the first count, so the
      // busy share stays right and the core count is the one the window started with.
      if (cpus !== undefined && rowCpus !== cpus) limiter.warn(where, `cpus changed from ${cpus} to ${rowCpus}; cores are reported as ${cpus}`);
      cpus ??= rowCpus;
      CPU_TIME_FIELDS.forEach((mode, index) => {
        const secondsPerCpu = values[index]! / ticksPerSecond / cpus!;
        for (let cpu = 0; cpu < cpus!; cpu += 1) sink.hostCpu?.({ host: context.host, time, cpu: String(cpu), mode, secondsTotal: secondsPerCpu });
      });
      rows += 1;
    });

    // A bundle stopped right after its first sample may hold the header alone: not an error.
    if (rows === 0) limiter.warn(`line ${lines}`, 'no readable sample rows: no host CPU figures from this file');
    limiter.finish(`line ${lines}`);
    return { records: rows };
  },
};

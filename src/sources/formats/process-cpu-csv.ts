/**
 * `processes.csv` of a `gpu-audit collect` bundle: every GPU process and its descendants
 * (data-loader workers) per sample, from /proc/<pid>/stat, in cumulative clock ticks (see
 * src/collect/bundle-writer.ts):
 *
 *   timestamp,gpu_pid,pid,ppid,comm,state,utime_ticks,stime_ticks,threads,start_ticks
 *   2026-11-29T16:33:24.000Z,4242,4250,4242,pt_data_worker,R,5120,300,4,91000
 *
 * Each row becomes one `processCpu` reading: user + system ticks in seconds, by the
 * manifest's `clockTicksPerSecond` (USER_HZ) when the file sits in a bundle, else by
 * Linux's 100. Analysis turns the readings into the cores each process tree used
 * (src/analysis/cpu-pipeline/process-cpu.ts) for the CPU pipeline verdict's evidence.
 *
 * `comm` is quoted as RFC 4180 says when it holds a comma or a quote (a process may name
 * itself anything); a row whose quotes do not close on its line is left out.
 *
 * Detection: the exact header line the collector writes.
 */
import { bundleClockTicksOf } from '../bundle.js';
import type { ParseResult, SourceParser } from '../types.js';
import { forEachLine, isFirstLine } from '../lexers/text/lines.js';
import { WarningLimiter } from '../lexers/text/warnings.js';

/** The collector writes this header (PROCESSES_HEADER in src/collect/bundle-writer.ts; a test keeps them equal). */
export const PROCESS_CPU_CSV_HEADER: readonly string[] = ['timestamp', 'gpu_pid', 'pid', 'ppid', 'comm', 'state', 'utime_ticks', 'stime_ticks', 'threads', 'start_ticks'];
const HEADER_LINE = PROCESS_CPU_CSV_HEADER.join(',');
const COLUMN = Object.fromEntries(PROCESS_CPU_CSV_HEADER.map((name, index) => [name, index])) as Record<string, number>;

/** Cells of one RFC 4180 row on one line; undefined when a quoted cell does not close. */
export function splitCsvRow(line: string): string[] | undefined {
  const cells: string[] = [];
  let at = 0;
  for (;;) {
    if (line[at] === '"') {
      let cell = '';
      let from = at + 1;
      for (;;) {
        const quote = line.indexOf('"', from);
        if (quote < 0) return undefined;
        cell += line.slice(from, quote);
        if (line[quote + 1] === '"') {
          cell += '"';
          from = quote + 2;
          continue;
        }
        at = quote + 1;
        break;
      }
      cells.push(cell);
      if (at === line.length) return cells;
      if (line[at] !== ',') return undefined;
      at += 1;
      continue;
    }
    const comma = line.indexOf(',', at);
    if (comma < 0) {
      cells.push(line.slice(at));
      return cells;
    }
    cells.push(line.slice(at, comma));
    at = comma + 1;
  }
}

const wholeNumber = (text: string): number | undefined => (/^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined);

export const processCpuCsv: SourceParser = {
  format: 'process-cpu-csv',
  description: 'gpu-audit collect processes.csv (CPU ticks of GPU processes and their children)',
  detect: (head) => isFirstLine(head, HEADER_LINE),
  async parse(chunks, context, sink): Promise<ParseResult> {
    const limiter = new WarningLimiter(sink);
    const ticksPerSecond = await bundleClockTicksOf(context.ref);
    let rows = 0;

    // forEachLine hands lines over without their `\r`.
    const lines = await forEachLine(chunks, context.ref, (line, lineNumber) => {
      if (lineNumber === 1 || line.trim() === '') return;
      const where = `line ${lineNumber}`;
      const cells = splitCsvRow(line);
      if (cells === undefined) {
        limiter.warn(where, 'a quoted cell does not close on its line; row left out');
        return;
      }
      if (cells.length !== PROCESS_CPU_CSV_HEADER.length) {
        limiter.warn(where, `${cells.length} columns where the header has ${PROCESS_CPU_CSV_HEADER.length}; row left out`);
        return;
      }
      const cell = (name: string): string => cells[COLUMN[name]!]!;
      const time = Date.parse(cell('timestamp'));
      const [gpuPid, pid, utime, stime, startTicks] = ['gpu_pid', 'pid', 'utime_ticks', 'stime_ticks', 'start_ticks'].map((name) => wholeNumber(cell(name)));
      if (!Number.isFinite(time) || gpuPid === undefined || pid === undefined || utime === undefined || stime === undefined || startTicks === undefined) {
        limiter.warn(where, 'timestamp, pid or tick count unreadable; row left out');
        return;
      }
      sink.processCpu?.({ host: context.host, time, gpuPid, pid, comm: cell('comm'), startTicks, cpuSecondsTotal: (utime + stime) / ticksPerSecond });
      rows += 1;
    });

    // A bundle stopped right after its first sample, or one whose GPU processes were all in
    // another PID namespace (a container), may hold the header alone: not an error.
    if (rows === 0) limiter.warn(`line ${lines}`, 'no readable process rows: no per-process CPU figures from this file');
    limiter.finish(`line ${lines}`);
    return { records: rows };
  },
};

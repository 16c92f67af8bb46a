/**
 * Linux CPU accounting from procfs: the machine's `/proc/stat` and each process's
 * `/proc/<pid>/stat`. Values are cumulative clock ticks (USER_HZ); a reader turns two
 * samples into a rate. See proc(5) for the field numbers used here.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { CPU_TIME_FIELDS, DEFAULT_CLOCK_TICKS, type CpuTimes } from '../model/index.js';

export interface ProcStat {
  cpu: CpuTimes;
  /** `cpuN` lines: the logical CPUs online. */
  cpuCount: number;
}

/** Parses /proc/stat; undefined when its text has no aggregate `cpu` line. */
export function parseProcStat(text: string): ProcStat | undefined {
  let cpu: CpuTimes | undefined;
  let cpuCount = 0;
  for (const line of text.split('\n')) {
    if (/^cpu\d+\s/.test(line)) cpuCount += 1;
    else if (/^cpu\s/.test(line)) {
      // Kernels before 2.6.11 print fewer columns; a missing one is 0, not an error.
      const values = line.trim().split(/\s+/).slice(1).map(Number);
      const entries = CPU_TIME_FIELDS.map((field, index) => [field, Number.isFinite(values[index]) ? values[index]! : 0] as const);
      cpu = Object.fromEntries(entries) as unknown as CpuTimes;
    }
  }
  return cpu === undefined ? undefined : { cpu, cpuCount: Math.max(cpuCount, 1) };
}

/** One process from /proc/<pid>/stat. */
export interface ProcessStat {
  pid: number;
  ppid: number;
  /** The executable's name as the kernel keeps it (at most 15 bytes). */
  comm: string;
  state: string;
  utimeTicks: number;
  stimeTicks: number;
  threads: number;
  /** Ticks after boot at which it started: with the pid, tells a process from a later one that reuses its pid. */
  startTicks: number;
}

/**
 * Parses one /proc/<pid>/stat line. `comm` sits in parentheses and may itself hold spaces
 * and parentheses, so it runs to the last `)`; the numbered fields follow it.
 */
export function parseProcessStat(text: string): ProcessStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // After `)`: field 3 (state) is index 0, so field N is index N - 3.
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const field = (n: number): number => Number(rest[n - 3]);
  const stat: ProcessStat = {
    pid,
    ppid: field(4),
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '',
    utimeTicks: field(14),
    stimeTicks: field(15),
    threads: field(20),
    startTicks: field(22),
  };
  const numbers = [stat.pid, stat.ppid, stat.utimeTicks, stat.stimeTicks, stat.threads, stat.startTicks];
  return numbers.every((value) => Number.isInteger(value) && value >= 0) ? stat : undefined;
}

export async function readProcStat(procRoot: string): Promise<ProcStat | undefined> {
  const text = await readFile(path.join(procRoot, 'stat'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseProcStat(text);
}

/** Every process visible in procfs; one that exits while being read is simply absent. */
export async function readAllProcesses(procRoot: string): Promise<ProcessStat[]> {
  const names = await readdir(procRoot).catch(() => [] as string[]);
  const stats = await Promise.all(
    names.filter((name) => /^\d+$/.test(name)).map(async (name) => {
      const text = await readFile(path.join(procRoot, name, 'stat'), 'utf8').catch(() => undefined);
      return text === undefined ? undefined : parseProcessStat(text);
    }),
  );
  return stats.filter((stat): stat is ProcessStat => stat !== undefined);
}

/** A process in the tree of a GPU process: the GPU process itself or one of its descendants. */
export interface TreeProcess extends ProcessStat {
  /** The GPU process (as nvidia-smi lists it) whose tree this process belongs to. */
  gpuPid: number;
}

/**
 * The GPU processes and all their descendants (data-loader workers are children of the
 * training process), each once, under the first GPU process that reaches it. A GPU pid
 * that is not visible here (another PID namespace, already exited) contributes nothing.
 */
export function processTrees(all: readonly ProcessStat[], gpuPids: readonly number[]): TreeProcess[] {
  const byPid = new Map(all.map((stat) => [stat.pid, stat]));
  const children = new Map<number, ProcessStat[]>();
  for (const stat of all) {
    const list = children.get(stat.ppid) ?? [];
    list.push(stat);
    children.set(stat.ppid, list);
  }
  const seen = new Set<number>();
  const result: TreeProcess[] = [];
  for (const gpuPid of gpuPids) {
    const root = byPid.get(gpuPid);
    if (root === undefined || seen.has(gpuPid)) continue;
    const queue: ProcessStat[] = [root];
    while (queue.length > 0) {
      const stat = queue.shift()!;
      if (seen.has(stat.pid)) continue; // pid 0/1 loops and a GPU process inside another's tree
      seen.add(stat.pid);
      result.push({ ...stat, gpuPid });
      queue.push(...(children.get(stat.pid) ?? []));
    }
  }
  return result;
}

export async function clockTicksPerSecond(): Promise<number> {
  try {
    const { execa } = await import('execa');
    const result = await execa('getconf', ['CLK_TCK'], { timeout: 5_000 });
    const value = Number(result.stdout.trim());
    return Number.isInteger(value) && value > 0 ? value : DEFAULT_CLOCK_TICKS;
  } catch {
    return DEFAULT_CLOCK_TICKS;
  }
}

/**
 * procfs readers of `gpu-audit collect`: the text formats of proc(5), and the process
 * tree of a GPU process (its data-loader workers are its descendants), on this machine's
 * real /proc as well as on literal lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { parseProcStat, parseProcessStat, processTrees, readAllProcesses, readProcStat, type ProcessStat } from '../../src/collect/proc.js';

describe('parseProcStat', () => {
  it('reads the aggregate cpu line in ticks and counts the cpuN lines', () => {
    const text = [
      'cpu  735138 93577 109871 280623 1243 0 436 1620 0 0',
      'cpu0 367000 46000 55000 140000 600 0 200 800 0 0',
      'cpu1 368138 47577 54871 140623 643 0 236 820 0 0',
      'intr 123 0 0',
      'ctxt 999',
    ].join('\n');
    expect(parseProcStat(text)).toEqual({
      cpu: { user: 735138, nice: 93577, system: 109871, idle: 280623, iowait: 1243, irq: 0, softirq: 436, steal: 1620 },
      cpuCount: 2,
    });
  });

  it('takes a column an old kernel does not print as 0, and rejects text without a cpu line', () => {
    expect(parseProcStat('cpu  10 20 30 40\ncpu0 10 20 30 40\n')?.cpu).toEqual({ user: 10, nice: 20, system: 30, idle: 40, iowait: 0, irq: 0, softirq: 0, steal: 0 });
    expect(parseProcStat('intr 1 2 3\n')).toBeUndefined();
  });
});

describe('parseProcessStat', () => {
  it('reads comm up to the last parenthesis, so a name with spaces and parentheses keeps the fields in place', () => {
    // Fields after comm: 3 state, 4 ppid, ..., 14 utime, 15 stime, ..., 20 num_threads, 21 itrealvalue, 22 starttime.
    const line = '4242 (pt_data (worker) 3) S 4000 4000 4000 0 -1 4194560 100 0 0 0 1234 56 0 0 20 0 7 0 889900 1000000 500 18446744073709551615\n';
    expect(parseProcessStat(line)).toEqual({
      pid: 4242, ppid: 4000, comm: 'pt_data (worker) 3', state: 'S', utimeTicks: 1234, stimeTicks: 56, threads: 7, startTicks: 889900,
    });
  });

  it('rejects a truncated line instead of inventing numbers', () => {
    expect(parseProcessStat('4242 (python) S 4000')).toBeUndefined();
    expect(parseProcessStat('garbage')).toBeUndefined();
  });
});

describe('processTrees', () => {
  const stat = (pid: number, ppid: number): ProcessStat => ({ pid, ppid, comm: `p${pid}`, state: 'S', utimeTicks: pid, stimeTicks: 0, threads: 1, startTicks: 0 });
  //   1 ── 10 (GPU) ── 11
  //    │          └── 12 (GPU too) ── 13
  //    └── 20 (unrelated)
  const all = [stat(1, 0), stat(10, 1), stat(11, 10), stat(12, 10), stat(13, 12), stat(20, 1)];

  it('follows every descendant of a GPU process, each once, under the first GPU process that reaches it', () => {
    const tree = processTrees(all, [10, 12]);
    expect(tree.map((entry) => [entry.gpuPid, entry.pid])).toEqual([[10, 10], [10, 11], [10, 12], [10, 13]]);
  });

  it('leaves out a GPU pid that is not visible here (another PID namespace, or exited)', () => {
    expect(processTrees(all, [99, 12]).map((entry) => [entry.gpuPid, entry.pid])).toEqual([[12, 12], [12, 13]]);
  });
});

describe('on this machine\'s /proc', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill();
    child = undefined;
  });

  it('finds a child of this test process in its tree, with its name and parent', async () => {
    child = spawn('sleep', ['30'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const pid = child.pid!;
    // `sleep` replaces the forked node image right after the spawn: wait until the kernel shows its name.
    let entry: ProcessStat | undefined;
    for (let attempt = 0; attempt < 50 && entry?.comm !== 'sleep'; attempt += 1) {
      entry = processTrees(await readAllProcesses('/proc'), [process.pid]).find((candidate) => candidate.pid === pid);
      if (entry?.comm !== 'sleep') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(entry).toMatchObject({ pid, ppid: process.pid, comm: 'sleep', gpuPid: process.pid });
  });

  it('reads /proc/stat with at least one CPU and ticks that only grow', async () => {
    const first = await readProcStat('/proc');
    const second = await readProcStat('/proc');
    expect(first?.cpuCount).toBeGreaterThanOrEqual(1);
    expect(second!.cpu.user + second!.cpu.system).toBeGreaterThanOrEqual(first!.cpu.user + first!.cpu.system);
  });

  it('reads nothing, without failing, from a procfs that is not there', async () => {
    expect(await readProcStat('/nonexistent-proc')).toBeUndefined();
    expect(await readAllProcesses('/nonexistent-proc')).toEqual([]);
  });
});

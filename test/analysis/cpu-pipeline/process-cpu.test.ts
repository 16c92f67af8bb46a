/**
 * CPU of each GPU process tree (the GPU process and its descendants): per-process counters
 * summed over the tree's window.
 */
import { describe, expect, it } from 'vitest';
import { MAX_PROCESS_SERIES, ProcessCpuTable } from '../../../src/analysis/cpu-pipeline/process-cpu.js';
import { analyze } from '../events.js';

const T0 = 1_700_000_000_000;
const reading = (seconds: number, pid: number, startTicks: number, cpuSecondsTotal: number, gpuPid = 100) =>
  ({ host: 'h', time: T0 + seconds * 1000, gpuPid, pid, comm: pid === gpuPid ? 'python' : 'pt_data_worker', startTicks, cpuSecondsTotal });

describe('ProcessCpuTable', () => {
  it('adds up the increases of the tree\'s processes over the tree\'s window', () => {
    const table = new ProcessCpuTable();
    // Root 100: 10 -> 17 -> 24 s (+14). Worker 101: 2 -> 11 -> 20 (+18). Worker 102 starts
    // after the first sample: 1 -> 10 (+9; what it used before its first sample is not seen).
    // Tree: 14 + 18 + 9 = 41 CPU-seconds in 20 s = 2.05 cores; 2 descendants.
    for (const [seconds, root, w101, w102] of [[0, 10, 2, undefined], [10, 17, 11, 1], [20, 24, 20, 10]] as const) {
      table.add(reading(seconds, 100, 5000, root));
      table.add(reading(seconds, 101, 5100, w101));
      if (w102 !== undefined) table.add(reading(seconds, 102, 6000, w102));
    }
    // A repeated reading changes nothing; pid 101 reused by a new process (start 7000) is a
    // third descendant with no increase of its own.
    table.add(reading(20, 100, 5000, 24));
    table.add(reading(20, 101, 7000, 0.5));
    // Another GPU process seen once: no window, no figure.
    table.add(reading(20, 300, 9000, 3, 300));
    expect(table.trees()).toEqual([{ host: 'h', gpuPid: 100, comm: 'python', descendants: 3, coresUsed: 41 / 20, windowSeconds: 20 }]);
  });

  it('counts a restarted counter from 0, as for every counter', () => {
    const table = new ProcessCpuTable();
    // 5 -> 8 (+3) -> 2 (went down: +2) in 20 s = 5 / 20 = 0.25 cores.
    [5, 8, 2].forEach((value, index) => table.add(reading(index * 10, 100, 5000, value)));
    expect(table.trees()[0]!.coresUsed).toBe(0.25);
  });

  it('holds at most MAX_PROCESS_SERIES processes and counts the readings of the others', () => {
    const table = new ProcessCpuTable();
    for (let pid = 0; pid < MAX_PROCESS_SERIES + 3; pid += 1) table.add(reading(0, pid, 1, 0, 1));
    expect(table.droppedReadings).toBe(3);
  });

  it('reaches the fleet profile through the analyzer', () => {
    const profile = analyze([{
      source: 'processes.csv',
      run: (sink) => {
        sink.processCpu?.(reading(0, 100, 5000, 10));
        sink.processCpu?.(reading(10, 100, 5000, 15));
      },
    }]);
    // 5 CPU-seconds in 10 s = 0.5 cores.
    expect(profile.processCpu).toEqual([{ host: 'h', gpuPid: 100, comm: 'python', descendants: 0, coresUsed: 0.5, windowSeconds: 10 }]);
    expect(analyze([{ source: 'x' }]).processCpu).toBeUndefined();
  });
});

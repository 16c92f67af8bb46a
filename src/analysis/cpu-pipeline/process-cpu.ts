/**
 * CPU used by each GPU process and its descendants (data-loader workers), from the
 * cumulative CPU times of a collect bundle's processes.csv:
 *
 *   tree cores used = sum over the tree's processes of their CPU-seconds increase
 *                     / seconds from the tree's first to its last sample
 *
 * Each process is one counter, keyed by host, GPU process, pid and start time (a pid reused by
 * a later process is another counter). The figure is a lower bound: CPU a worker used before
 * its first sample or after its last (one that started or exited between samples) is not seen.
 *
 * Bounded: one small record per process, at most MAX_PROCESS_SERIES of them; the rest are
 * counted and dropped.
 */
import type { ProcessCpuSample } from '../../model/index.js';
import { CounterTable } from './counters.js';

export const MAX_PROCESS_SERIES = 100_000;

export interface ProcessTreeCpuFigures {
  host: string;
  /** The GPU process at the root of the tree. */
  gpuPid: number;
  /** Its kernel name (`comm`); undefined when the root itself was never sampled. */
  comm?: string;
  /** Distinct descendant processes seen (pid and start time), the GPU process not counted. */
  descendants: number;
  /** Mean cores the tree used over its window (1 = one core busy all the time). */
  coresUsed: number;
  windowSeconds: number;
}

const SEP = '\u0000';

interface TreeState {
  host: string;
  gpuPid: number;
  comm?: string;
  /** Counter keys of the tree's processes, and whether each is the GPU process itself. */
  members: { key: string; isRoot: boolean }[];
}

export class ProcessCpuTable {
  private readonly counters = new CounterTable();
  private readonly treeStates = new Map<string, TreeState>();
  /** Readings dropped because MAX_PROCESS_SERIES processes were already held. */
  droppedReadings = 0;

  add(sample: ProcessCpuSample): void {
    const treeKey = [sample.host, sample.gpuPid].join(SEP);
    const key = [treeKey, sample.pid, sample.startTicks].join(SEP);
    let tree = this.treeStates.get(treeKey);
    if (this.counters.get(key) === undefined) {
      if (this.counters.size >= MAX_PROCESS_SERIES) {
        this.droppedReadings += 1;
        return;
      }
      if (tree === undefined) {
        tree = { host: sample.host, gpuPid: sample.gpuPid, members: [] };
        this.treeStates.set(treeKey, tree);
      }
      tree.members.push({ key, isRoot: sample.pid === sample.gpuPid });
    }
    if (sample.pid === sample.gpuPid) tree!.comm ??= sample.comm;
    this.counters.add(key, sample.time, sample.cpuSecondsTotal);
  }

  /** One entry per process tree that was sampled at least twice. */
  trees(): ProcessTreeCpuFigures[] {
    const result: ProcessTreeCpuFigures[] = [];
    for (const tree of this.treeStates.values()) {
      let increase = 0;
      let firstMs = Infinity;
      let lastMs = -Infinity;
      let descendants = 0;
      for (const { key, isRoot } of tree.members) {
        const counter = this.counters.get(key)!;
        increase += counter.increase;
        firstMs = Math.min(firstMs, counter.firstMs);
        lastMs = Math.max(lastMs, counter.lastMs);
        if (!isRoot) descendants += 1;
      }
      if (lastMs <= firstMs) continue;
      const windowSeconds = (lastMs - firstMs) / 1000;
      result.push({
        host: tree.host,
        gpuPid: tree.gpuPid,
        ...(tree.comm === undefined ? {} : { comm: tree.comm }),
        descendants,
        coresUsed: increase / windowSeconds,
        windowSeconds,
      });
    }
    return result;
  }
}

/**
 * Processes seen on one device: one entry per pid and name, so memory grows with distinct
 * processes, never with samples. pid alone is not enough (pids are reused over a long log);
 * the name alone is not enough (eight workers of one server share it).
 */
import type { ProcessSample, ProcessType } from '../model/index.js';
import type { ProcessSummary } from '../model/index.js';

interface ProcessEntry {
  pid: number;
  name: string;
  type: ProcessType | null;
  maxMemoryMiB: number | null;
  samples: number;
}

/** A process listed once as compute and once as graphics is both. */
function combineTypes(a: ProcessType | null, b: ProcessType | null): ProcessType | null {
  if (a === null || a === b) return b ?? a;
  if (b === null) return a;
  return 'C+G';
}

function largerMemory(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

export class ProcessTable {
  private readonly entries = new Map<string, ProcessEntry>();

  get size(): number {
    return this.entries.size;
  }

  add(process: ProcessSample): void {
    const memory = process.usedMemoryMiB !== undefined && Number.isFinite(process.usedMemoryMiB) ? process.usedMemoryMiB : null;
    this.addEntry({ pid: process.pid, name: process.name, type: process.type ?? null, maxMemoryMiB: memory, samples: 1 });
  }

  merge(other: ProcessTable): void {
    for (const entry of other.entries.values()) this.addEntry(entry);
  }

  /** Largest memory first, then by pid; processes that never reported memory last. */
  summaries(): ProcessSummary[] {
    return [...this.entries.values()]
      .map((entry) => ({ pid: entry.pid, name: entry.name, type: entry.type, maxMemoryMiB: entry.maxMemoryMiB, samples: entry.samples }))
      .sort((a, b) => (b.maxMemoryMiB ?? -1) - (a.maxMemoryMiB ?? -1) || a.pid - b.pid || a.name.localeCompare(b.name));
  }

  private addEntry(entry: ProcessEntry): void {
    const key = `${entry.pid}\u0000${entry.name}`;
    const existing = this.entries.get(key);
    if (existing === undefined) {
      this.entries.set(key, { ...entry });
      return;
    }
    existing.samples += entry.samples;
    existing.maxMemoryMiB = largerMemory(existing.maxMemoryMiB, entry.maxMemoryMiB);
    existing.type = combineTypes(existing.type, entry.type);
  }
}

/**
 * Which Kubernetes containers were seen holding a device (dcgm-exporter's pod labels), with
 * when and how often. Bounded: a device keeps at most MAX_CONTAINERS_PER_DEVICE distinct
 * containers (a GPU shared by time-slicing sees a handful; thousands would be a broken
 * exporter), the rest are only counted. Memory grows with devices, never with samples.
 */
import type { PodAssignment } from '../model/index.js';

export interface PodAssignmentRecord {
  namespace: string;
  pod: string;
  container: string | null;
  /** Epoch ms of the first and last timed sighting; null when every sighting was a point value. */
  firstSeenMs: number | null;
  lastSeenMs: number | null;
  /** Sightings (one per scrape or query step). */
  samples: number;
}

export const MAX_CONTAINERS_PER_DEVICE = 64;

export class PodAssignmentTable {
  private readonly records = new Map<string, PodAssignmentRecord>();
  /** Sightings of containers beyond the bound, not kept. */
  overflowSamples = 0;
  /** The record of the last sighting: a device holds the same container scrape after scrape. */
  private lastRecord: PodAssignmentRecord | undefined;

  add(assignment: PodAssignment): void {
    const last = this.lastRecord;
    if (last !== undefined && last.namespace === assignment.namespace && last.pod === assignment.pod && last.container === (assignment.container ?? null)) {
      // What addRecord does for a known container, without building its key.
      const time = assignment.time ?? null;
      last.samples += 1;
      last.firstSeenMs = earliest(last.firstSeenMs, time);
      last.lastSeenMs = latest(last.lastSeenMs, time);
      return;
    }
    this.addRecord({
      namespace: assignment.namespace,
      pod: assignment.pod,
      container: assignment.container ?? null,
      firstSeenMs: assignment.time ?? null,
      lastSeenMs: assignment.time ?? null,
      samples: 1,
    });
  }

  merge(other: PodAssignmentTable): void {
    for (const record of other.records.values()) this.addRecord(record);
    this.overflowSamples += other.overflowSamples;
  }

  get size(): number {
    return this.records.size;
  }

  /** Sorted by namespace, pod, container. */
  list(): PodAssignmentRecord[] {
    return [...this.records.values()].sort(
      (a, b) => a.namespace.localeCompare(b.namespace) || a.pod.localeCompare(b.pod) || (a.container ?? '').localeCompare(b.container ?? ''),
    );
  }

  private addRecord(record: PodAssignmentRecord): void {
    const key = `${record.namespace}\u0000${record.pod}\u0000${record.container ?? ''}`;
    const known = this.records.get(key);
    if (known === undefined) {
      if (this.records.size >= MAX_CONTAINERS_PER_DEVICE) {
        this.overflowSamples += record.samples;
        return;
      }
      this.lastRecord = { ...record };
      this.records.set(key, this.lastRecord);
      return;
    }
    this.lastRecord = known;
    known.samples += record.samples;
    known.firstSeenMs = earliest(known.firstSeenMs, record.firstSeenMs);
    known.lastSeenMs = latest(known.lastSeenMs, record.lastSeenMs);
  }
}

function earliest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

function latest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

/**
 * The second way into the analysis: per-device aggregates computed elsewhere (pushed down to a
 * Prometheus server) instead of samples. It produces the same GpuEntry fields as the streaming
 * analyzer, with the same identity resolution, report ids, compute ladder and idle definitions,
 * so summaries, findings and pricing downstream are shared.
 *
 * What the aggregates mean is up to their producer, which must document how they differ from
 * DESIGN.md section 5 (src/sources/live/prometheus/queries.ts does). Producer and analysis
 * share the one type, model/aggregates.ts.
 */
import { MS_PER_HOUR } from '../model/index.js';
import type { DeviceAggregates, HourlyValues, PodOnDeviceAggregate } from '../model/index.js';
import type { GpuEntry } from '../model/index.js';
import { chooseComputeBasis } from './compute-ladder.js';
import type { FleetWindow } from './fleet-analyzer.js';
import { assignReportIds, boardIdentityOf, boardKey, resolveBoards } from './identity.js';
import { MAX_CONTAINERS_PER_DEVICE, type PodAssignmentRecord } from './pod-assignments.js';
import { HOURS_PER_WEEK, ZoneClock } from './zone-clock.js';

export interface AggregatesContext {
  /** IANA zone of the hour-of-week profile. */
  timeZone: string;
  window: { startMs: number; endMs: number };
}

export interface AggregatesProfile {
  /** modelKey `unknown` and no prices, as FleetProfile.gpus. */
  gpus: GpuEntry[];
  window: FleetWindow;
  /** The pods seen on each device, by report id (see podAssignmentsOf). */
  podAssignments: Map<string, PodAssignmentRecord[]>;
}

/**
 * Mean of the hourly means that fall in each hour of the local week (each observed hour counts
 * once; with a regular scrape every hour holds as many samples, so this is the time-weighted
 * mean). An hour of the grid goes to the local hour it starts in: in zones whose offset is not
 * whole hours, it straddles two.
 */
export function hourOfWeekProfile(hourly: HourlyValues | undefined, timeZone: string): (number | null)[] | null {
  if (hourly === undefined || hourly.values.every((value) => value === null)) return null;
  const clock = new ZoneClock(timeZone);
  const sums = new Array<number>(HOURS_PER_WEEK).fill(0);
  const counts = new Array<number>(HOURS_PER_WEEK).fill(0);
  hourly.values.forEach((value, hour) => {
    if (value === null) return;
    const slot = clock.hourOfWeek(hourly.startMs + hour * MS_PER_HOUR);
    sums[slot]! += value;
    counts[slot]! += 1;
  });
  return sums.map((sum, slot) => (counts[slot] === 0 ? null : sum / counts[slot]!));
}

function entryOf(device: DeviceAggregates, id: string, parent: GpuEntry | null, hasMigDevices: boolean, context: AggregatesContext): GpuEntry {
  const isMigDevice = device.ref.gpuInstanceId !== undefined;
  const computeBasis = chooseComputeBasis((basis) => (device.idle[basis]?.observedSeconds ?? 0) > 0, isMigDevice);
  const idle = computeBasis === 'unknown' ? undefined : device.idle[computeBasis];
  const memoryTotalMiB = device.memoryTotalMiB ?? null;
  const memoryUsedMiB = device.memoryUsedMiB ?? null;
  // As src/analysis/gpu-entry.ts: headroom is what the peak left free.
  const vramHeadroomMiB = memoryTotalMiB === null || memoryUsedMiB === null ? null : memoryTotalMiB - memoryUsedMiB.max;
  const vramHeadroomPct = vramHeadroomMiB === null || memoryTotalMiB === null || memoryTotalMiB <= 0 ? null : (vramHeadroomMiB / memoryTotalMiB) * 100;
  const timed = device.observedSeconds > 0;
  return {
    id,
    host: device.ref.host,
    index: device.ref.index ?? null,
    uuid: device.ref.uuid ?? null,
    pciBusId: device.ref.pciBusId ?? null,
    model: device.model ?? parent?.model ?? null,
    modelKey: 'unknown',
    memoryTotalMiB,
    migMode: hasMigDevices ? 'enabled' : null,
    parentId: parent?.id ?? null,
    migProfile: device.migProfile ?? null,
    instanceType: null,
    instanceTypeBasis: null,
    utilization: device.percent.utilizationPct ?? null,
    smActive: device.percent.smActivePct ?? null,
    tensorActive: device.percent.tensorActivePct ?? null,
    grEngineActive: device.percent.grEngineActivePct ?? null,
    computeBasis,
    memoryUsedMiB,
    vramHeadroomMiB,
    vramHeadroomPct,
    idleFraction: idle === undefined || idle.observedSeconds <= 0 ? null : idle.idleSeconds / idle.observedSeconds,
    idleHours: idle === undefined ? 0 : idle.idleSeconds / 3600,
    gpuHours: device.observedSeconds / 3600,
    samples: device.samples,
    firstSeen: device.firstSeenMs === undefined ? null : new Date(device.firstSeenMs).toISOString(),
    lastSeen: device.lastSeenMs === undefined ? null : new Date(device.lastSeenMs).toISOString(),
    processes: [],
    hourlyCostUsd: null,
    timeline: !timed || device.timeline === undefined
      ? null
      : {
          start: new Date(device.timeline.startMs).toISOString(),
          bucketSeconds: device.timeline.bucketSeconds,
          computeMeanPct: device.timeline.computeMeanPct,
          memoryUsedMaxMiB: device.timeline.memoryUsedMaxMiB,
        },
    hourOfWeekComputePct: timed ? hourOfWeekProfile(device.hourlyComputePct, context.timeZone) : null,
    pcieRxMiBps: device.pcieRxMiBps ?? null,
    pcieTxMiBps: device.pcieTxMiBps ?? null,
    // dcgm-exporter exports no link generation or width.
    pcieLink: null,
  };
}

/** A MIG-enabled board whose own series are missing: it exists because its instances do. */
function implicitParent(child: DeviceAggregates): DeviceAggregates {
  const { gpuInstanceId: _instance, ...ref } = child.ref;
  return { ref, ...(child.model === undefined ? {} : { model: child.model }), percent: {}, idle: {}, observedSeconds: 0, samples: 0 };
}

/**
 * GpuEntries in report order (host, index, PCI, uuid; each board followed by its MIG devices),
 * with report ids assigned as the streaming analyzer assigns them.
 */
export function gpuEntriesFromAggregates(devices: readonly DeviceAggregates[], context: AggregatesContext): AggregatesProfile {
  const physicalDevices = devices.filter((device) => device.ref.gpuInstanceId === undefined);
  const migDevices = devices.filter((device) => device.ref.gpuInstanceId !== undefined);
  const resolution = resolveBoards([...physicalDevices, ...migDevices].map((device) => boardIdentityOf(device.ref)));
  const boardOf = (device: DeviceAggregates): number | undefined => resolution.boardOf.get(boardKey(boardIdentityOf(device.ref)));

  const physicalByBoard = new Map<number, DeviceAggregates>();
  for (const device of physicalDevices) {
    const board = boardOf(device);
    if (board !== undefined && !physicalByBoard.has(board)) physicalByBoard.set(board, device);
  }
  const childrenByBoard = new Map<number, DeviceAggregates[]>();
  for (const child of migDevices) {
    const board = boardOf(child);
    if (board === undefined) continue;
    if (!physicalByBoard.has(board)) physicalByBoard.set(board, implicitParent(child));
    childrenByBoard.set(board, [...(childrenByBoard.get(board) ?? []), child]);
  }

  const order = ([, a]: [number, DeviceAggregates], [, b]: [number, DeviceAggregates]): number =>
    a.ref.host.localeCompare(b.ref.host)
    || (a.ref.index ?? Infinity) - (b.ref.index ?? Infinity)
    || (a.ref.pciBusId ?? '').localeCompare(b.ref.pciBusId ?? '')
    || (a.ref.uuid ?? '').localeCompare(b.ref.uuid ?? '');
  const boards = [...physicalByBoard.entries()].sort(order);
  const ids = assignReportIds(boards.map(([, device]) => ({
    host: device.ref.host, uuid: device.ref.uuid ?? null, pciBusId: device.ref.pciBusId ?? null, index: device.ref.index ?? null,
  })));

  const gpus: GpuEntry[] = [];
  const idOfBoard = new Map<number, string>();
  let startMs: number | null = null;
  let endMs: number | null = null;
  boards.forEach(([board, device], position) => {
    idOfBoard.set(board, ids[position]!);
    const children = (childrenByBoard.get(board) ?? []).sort((a, b) => (a.ref.gpuInstanceId ?? 0) - (b.ref.gpuInstanceId ?? 0));
    const parentDevice = device.observedSeconds > 0 || children.length === 0
      ? device
      : { ...device, observedSeconds: Math.max(...children.map((child) => child.observedSeconds)) };
    const parent = entryOf(parentDevice, ids[position]!, null, children.length > 0, context);
    gpus.push(parent, ...children.map((child) => entryOf(child, `${parent.id}/${child.ref.gpuInstanceId}`, parent, false, context)));
    for (const member of [device, ...children]) {
      if (member.firstSeenMs !== undefined) startMs = Math.min(startMs ?? Infinity, member.firstSeenMs);
      if (member.lastSeenMs !== undefined) endMs = Math.max(endMs ?? -Infinity, member.lastSeenMs);
    }
  });
  // The report's window is the one audited (--since/--until), clipped to the data seen.
  const windowStart = startMs === null ? context.window.startMs : Math.max(context.window.startMs, startMs);
  const windowEnd = endMs === null ? context.window.endMs : Math.min(context.window.endMs, Math.max(endMs, windowStart));
  const idOfDevice = (device: DeviceAggregates): string | undefined => {
    const board = boardOf(device);
    const boardId = board === undefined ? undefined : idOfBoard.get(board);
    return boardId === undefined || device.ref.gpuInstanceId === undefined ? boardId : `${boardId}/${device.ref.gpuInstanceId}`;
  };
  return {
    gpus,
    window: { startMs: windowStart, endMs: windowEnd, seconds: (windowEnd - windowStart) / 1000 },
    podAssignments: podAssignmentsOf(devices, idOfDevice),
  };
}

/**
 * The pods seen on each device, by its report id (found through the boards that made the
 * entries, so that every series of a board counts: a container seen through two of them is one,
 * with the most steps and the widest span); as in the streaming analysis, at most
 * MAX_CONTAINERS_PER_DEVICE per device: here those seen longest, in the producer's order.
 */
function podAssignmentsOf(devices: readonly DeviceAggregates[], idOfDevice: (device: DeviceAggregates) => string | undefined): Map<string, PodAssignmentRecord[]> {
  const podsById = new Map<string, Map<string, PodOnDeviceAggregate>>();
  for (const device of devices) {
    const id = device.pods === undefined ? undefined : idOfDevice(device);
    if (device.pods === undefined || id === undefined) continue;
    const pods = podsById.get(id) ?? new Map<string, PodOnDeviceAggregate>();
    podsById.set(id, pods);
    for (const pod of device.pods) {
      const key = `${pod.namespace}/${pod.pod}/${pod.container ?? ''}`;
      const seen = pods.get(key);
      pods.set(key, seen === undefined ? pod : {
        ...seen,
        steps: Math.max(seen.steps, pod.steps),
        firstSeenMs: Math.min(seen.firstSeenMs, pod.firstSeenMs),
        lastSeenMs: Math.max(seen.lastSeenMs, pod.lastSeenMs),
      });
    }
  }
  const result = new Map<string, PodAssignmentRecord[]>();
  for (const [id, byKey] of podsById) {
    const pods = [...byKey.values()];
    const kept = pods.length <= MAX_CONTAINERS_PER_DEVICE
      ? pods
      : pods.map((pod, order) => ({ pod, order })).sort((a, b) => b.pod.steps - a.pod.steps).slice(0, MAX_CONTAINERS_PER_DEVICE).sort((a, b) => a.order - b.order).map(({ pod }) => pod);
    result.set(id, kept.map((pod) => ({
      namespace: pod.namespace, pod: pod.pod, container: pod.container ?? null, firstSeenMs: pod.firstSeenMs, lastSeenMs: pod.lastSeenMs, samples: pod.steps,
    })));
  }
  return result;
}

/**
 * The streaming sink that turns observation events into per-GPU report entries.
 *
 * While reading, state is kept per device ref as the sources spell it and per source: a series
 * recorder for timed samples, an accumulator for point values (no timestamp), a process table
 * and the inventory facts. Nothing grows with the number of samples. At `finish` the refs are
 * resolved to boards (./identity.ts), each device's series are chained into one timeline
 * (./timeline.ts) and the GpuEntry is built (./gpu-entry.ts).
 */
import { MS_PER_HOUR, SAMPLE_DOMAINS, type DomainField } from '../model/index.js';
import type { ContainerCpuSample, DeviceInfo, DeviceRef, GpuSample, HostCpuSample, ObservationSink, PodAssignment, ProcessCpuSample, ProcessSample, ServingSample, SourceWarning } from '../model/index.js';
import type { GpuEntry } from '../model/index.js';
import { FigureAccumulator } from './figure-accumulator.js';
import { buildGpuEntry, type DeviceFacts, type DeviceInventory } from './gpu-entry.js';
import { assignReportIds, type BoardIdentity, boardIdentityOf, boardKey, describeIdentity, refKey, resolveBoards, uuidsOnSeveralHosts } from './identity.js';
import { FUTURE_SAMPLE_TOLERANCE_MS, type AnalysisOptions } from './options.js';
import { MAX_CONTAINERS_PER_DEVICE, PodAssignmentTable, type PodAssignmentRecord } from './pod-assignments.js';
import { CpuUsageTable, MAX_CPU_SERIES, type ContainerCpuFigures, type HostCpuFigures } from './cpu-pipeline/cpu-usage.js';
import { MAX_PROCESS_SERIES, ProcessCpuTable, type ProcessTreeCpuFigures } from './cpu-pipeline/process-cpu.js';
import { ProcessTable } from './processes.js';
import type { ServingEntriesResult } from './serving/serving-entries.js';
import { ServingCollector } from './serving/serving-collector.js';
import { sampleValues, type OutOfDomain } from './sample-values.js';
import { LARGEST_INTERVALS_KEPT, MAX_KEPT_INTERVALS, SeriesRecorder, seriesBudgets } from './series.js';
import { closeTimeline, selectNonOverlapping, type SourcedSeries } from './timeline.js';
import { ZoneClock } from './zone-clock.js';
import { someNamed } from '../support/index.js';

/** Hosts and GPU ids a repeated-UUID warning names before `and N more`. */
const NAMED_IN_WARNING = 8;

export interface AnalysisWarning {
  /** The input the warning is about, as given to `beginSource`. */
  source: string;
  message: string;
}

export interface FleetWindow {
  startMs: number | null;
  endMs: number | null;
  seconds: number;
}

export interface FleetProfile {
  /** instanceType, instanceTypeBasis and hourlyCostUsd are null and modelKey `unknown` until ./cost.ts fills them. */
  gpus: GpuEntry[];
  /** From the first sample to the end of the time the last sample stands for. */
  window: FleetWindow;
  warnings: AnalysisWarning[];
  /** Inventory facts the report has no field for, by GpuEntry id (catalog look-ups need pciDeviceId). */
  deviceFacts: ReadonlyMap<string, DeviceFacts>;
  /** Kubernetes containers seen holding each device (dcgm-exporter pod labels), by GpuEntry id; devices with none are absent. */
  podAssignments: ReadonlyMap<string, readonly PodAssignmentRecord[]>;
  /** CPU figures over the window from node_exporter / cAdvisor counters (./cpu-pipeline/cpu-usage.ts); absent without them. */
  cpu?: { hosts: HostCpuFigures[]; containers: ContainerCpuFigures[] };
  /** CPU of each GPU process with its descendants (collect bundle processes.csv, ./cpu-pipeline/process-cpu.ts); absent without it. */
  processCpu?: ProcessTreeCpuFigures[];
  /** Inference servers and their KPIs (./serving/), before their workload and cost are known; absent without serving metrics. */
  serving?: ServingEntriesResult['entries'];
  /** The serving entries' intervals, for pool figures. */
  servingTimeline?: ServingEntriesResult['timeline'];
}

export interface FleetAnalyzer extends ObservationSink {
  /** Subsequent events come from this input; series are kept per (device, source) so one file's time order never mixes with another's. */
  beginSource(ref: string): void;
  finish(): FleetProfile;
}

/** Sizes of what the analyzer holds, to check that it does not grow with samples. */
export interface RetainedState {
  deviceRefs: number;
  series: number;
  largestIntervalHistogramBuckets: number;
  largestIntervalHeap: number;
  /** Intervals remembered by all series together (series.ts SeriesBudgets). */
  keptIntervals: number;
  /** Timeline buckets held by all series together. */
  timelineBuckets: number;
  sketchBuckets: number;
  processes: number;
}

interface SourceState {
  ordinal: number;
  label: string;
}

interface RefSourceState {
  source: SourceState;
  series: SeriesRecorder | undefined;
  points: FigureAccumulator | undefined;
  pointCount: number;
  /** Timed samples stamped after the audit's now (plus tolerance): dropped, counted for the warning. */
  futureCount: number;
  processes: ProcessTable | undefined;
}

interface RefState {
  board: BoardIdentity;
  gpuInstanceId: number | undefined;
  inventory: DeviceInventory;
  bySource: Map<number, RefSourceState>;
  assignments: PodAssignmentTable | undefined;
}

interface RefObjectState extends Omit<DeviceRef, 'computeInstanceId'> {
  /** The ref object itself (a WeakMap value may hold its key: it does not keep it alive). */
  ref: DeviceRef;
  /** A frozen ref (as sources hand them out) keeps the fields it had: no need to compare them again. */
  frozen: boolean;
  state: RefState;
  /** The per-source state this ref object led to last: the samples of one input share it. */
  sourceState: RefSourceState | undefined;
  /** The ref object met right after this one, last time: sources name their devices in one order, sample after sample. */
  next: RefObjectState | undefined;
}

interface DeviceGroup {
  board: BoardIdentity;
  gpuInstanceId: number | undefined;
  refs: RefState[];
}

interface SeriesOfSource extends SourcedSeries {
  label: string;
  state: RefSourceState;
}

const samplesCount = (count: number): string => `${count} sample${count === 1 ? '' : 's'}`;

/**
 * For each distinctive UUID that boards on several hosts carry: one warning naming the hosts
 * and the ids the boards were given, in each input that named it (a report lists warnings per input).
 */
function uuidOnSeveralHostsWarnings(physical: readonly DeviceGroup[], ids: readonly string[]): AnalysisWarning[] {
  const repeated = uuidsOnSeveralHosts(physical.map(({ board }) => board));
  if (repeated.size === 0) return [];
  const carriersOf = new Map<string, { group: DeviceGroup; id: string }[]>();
  physical.forEach((group, position) => {
    const uuid = group.board.uuid;
    if (uuid === undefined || !repeated.has(uuid)) return;
    const carriers = carriersOf.get(uuid);
    if (carriers === undefined) carriersOf.set(uuid, [{ group, id: ids[position]! }]);
    else carriers.push({ group, id: ids[position]! });
  });
  return [...repeated].flatMap(([uuid, hosts]) => {
    const carriers = carriersOf.get(uuid)!;
    const sources = new Set(carriers.flatMap(({ group }) => group.refs.flatMap((ref) => [...ref.bySource.values()].map((state) => state.source.label))));
    const message = `GPU UUID ${uuid} appeared on ${hosts.length} hosts (${someNamed(hosts, NAMED_IN_WARNING)}): reported as ${carriers.length} GPUs ` +
      `(${someNamed(carriers.map(({ id }) => id), NAMED_IN_WARNING)}), never merged; a UUID names one board, so check host names and labels`;
    return [...sources].map((source) => ({ source, message }));
  });
}

/** Drops what a device's states hold once its entry is built (the states stay, empty, for their labels). */
function releaseDevice(group: DeviceGroup): void {
  for (const ref of group.refs) {
    ref.assignments = undefined;
    for (const state of ref.bySource.values()) {
      state.series = undefined;
      state.points = undefined;
      state.processes = undefined;
    }
  }
}

export function createFleetAnalyzer(options: AnalysisOptions): FleetAnalyzer {
  return new StreamingFleetAnalyzer(options);
}

/** The same analyzer with a look at what it holds, for memory tests and benchmarks. */
export function createInspectableFleetAnalyzer(options: AnalysisOptions): FleetAnalyzer & { retainedState(): RetainedState } {
  return new StreamingFleetAnalyzer(options);
}

class StreamingFleetAnalyzer implements FleetAnalyzer {
  private readonly refs = new Map<string, RefState>();
  /** The state each ref object led to, with the ref's fields at the time (see `refState`). */
  private stateByRefObject = new WeakMap<DeviceRef, RefObjectState>();
  /** The ref object of the last event (see `refObjectState`). */
  private lastRefObject: RefObjectState | undefined;
  private readonly sourceWarnings: AnalysisWarning[] = [];
  private source: SourceState | undefined;
  private sourceCount = 0;
  private finished = false;
  /** CPU counters, for the CPU pipeline verdict; created on the first reading. */
  private cpuUsage: CpuUsageTable | undefined;
  private cpuOverflowSource: string | undefined;
  /** CPU times of GPU process trees; created on the first reading. */
  private processCpuTable: ProcessCpuTable | undefined;
  private processCpuOverflowSource: string | undefined;
  private servingTable: ServingCollector | undefined;
  /** Values left out for lying outside their domain, per input and field: how many, and the first. */
  private readonly outOfDomainSeen = new Map<string, Map<DomainField, { count: number; first: number }>>();
  private readonly outOfDomain: OutOfDomain = (field, value) => {
    const source = this.source?.label ?? '';
    let fields = this.outOfDomainSeen.get(source);
    if (fields === undefined) {
      fields = new Map();
      this.outOfDomainSeen.set(source, fields);
    }
    const seen = fields.get(field);
    if (seen === undefined) fields.set(field, { count: 1, first: value });
    else seen.count += 1;
  };
  private servingSource: string | undefined;
  /** The report's zone, for hour-of-week; shared by every series so its offset cache is too. */
  private readonly clock: ZoneClock;
  /** What all series together may hold: remembered intervals and timeline buckets. */
  private readonly budgets = seriesBudgets();

  /** Timed samples after this are from the future: a clock set ahead, not time that was observed. */
  private readonly latestPlausibleMs: number;
  /** The point-value figures of every device without point values: read, never added to. */
  private readonly noPoints: FigureAccumulator;

  constructor(private readonly options: AnalysisOptions) {
    this.clock = new ZoneClock(options.timeZone ?? 'UTC');
    this.latestPlausibleMs = options.nowMs === undefined ? Infinity : options.nowMs + FUTURE_SAMPLE_TOLERANCE_MS;
    this.noPoints = new FigureAccumulator(options.idleThresholdPct);
  }

  beginSource(ref: string): void {
    this.source = { ordinal: this.sourceCount, label: ref };
    this.sourceCount += 1;
  }

  device(info: DeviceInfo): void {
    const inventory = this.refState(info.ref).inventory;
    // Later documents fill gaps; the first value seen for a field stands.
    for (const [field, value] of Object.entries(info) as [keyof DeviceInfo, unknown][]) {
      if (field === 'ref' || value === undefined) continue;
      (inventory as Record<string, unknown>)[field] ??= value;
    }
  }

  sample(sample: GpuSample): void {
    const state = this.refSourceState(sample.ref);
    if (sample.time === undefined || !Number.isFinite(sample.time)) {
      state.points ??= new FigureAccumulator(this.options.idleThresholdPct);
      state.points.add(sampleValues(sample, this.outOfDomain), 1);
      state.pointCount += 1;
      return;
    }
    if (sample.time > this.latestPlausibleMs) {
      state.futureCount += 1;
      return;
    }
    state.series ??= new SeriesRecorder(this.options.idleThresholdPct, this.clock, this.budgets);
    state.series.record(sample.time, sampleValues(sample, this.outOfDomain));
  }

  process(process: ProcessSample): void {
    const state = this.refSourceState(process.ref);
    state.processes ??= new ProcessTable();
    state.processes.add(process);
  }

  assignment(assignment: PodAssignment): void {
    const state = this.refState(assignment.ref);
    state.assignments ??= new PodAssignmentTable();
    state.assignments.add(assignment);
  }

  hostCpu(sample: HostCpuSample): void {
    this.cpuTable().hostCpu(sample);
  }

  containerCpu(sample: ContainerCpuSample): void {
    this.cpuTable().containerCpu(sample);
  }

  serving(sample: ServingSample): void {
    this.servingTable ??= new ServingCollector();
    this.servingSource ??= this.currentSource().label;
    this.servingTable.add(sample);
  }

  processCpu(sample: ProcessCpuSample): void {
    this.processCpuTable ??= new ProcessCpuTable();
    const dropped = this.processCpuTable.droppedReadings;
    this.processCpuTable.add(sample);
    if (this.processCpuTable.droppedReadings > dropped) this.processCpuOverflowSource ??= this.source?.label;
  }

  private cpuTable(): CpuUsageTable {
    // The input that first overflowed the table gets the warning.
    if (this.cpuUsage !== undefined && this.cpuUsage.droppedReadings > 0) this.cpuOverflowSource ??= this.source?.label;
    this.cpuUsage ??= new CpuUsageTable();
    return this.cpuUsage;
  }

  warn(warning: SourceWarning): void {
    this.sourceWarnings.push({ source: this.currentSource().label, message: `${warning.location}: ${warning.message}` });
  }

  retainedState(): RetainedState {
    const state: RetainedState = {
      deviceRefs: this.refs.size, series: 0, largestIntervalHistogramBuckets: 0, largestIntervalHeap: 0, keptIntervals: this.budgets.keptIntervals.count, timelineBuckets: this.budgets.timelineBuckets.count, sketchBuckets: 0, processes: 0,
    };
    for (const ref of this.refs.values()) {
      for (const perSource of ref.bySource.values()) {
        if (perSource.series !== undefined) {
          state.series += 1;
          state.largestIntervalHistogramBuckets = Math.max(state.largestIntervalHistogramBuckets, perSource.series.intervals.bucketCount);
          state.largestIntervalHeap = Math.max(state.largestIntervalHeap, perSource.series.longestIntervals.size);
          state.sketchBuckets += perSource.series.figures.sketchBucketCount;
        }
        state.sketchBuckets += perSource.points?.sketchBucketCount ?? 0;
        state.processes += perSource.processes?.size ?? 0;
      }
    }
    return state;
  }

  finish(): FleetProfile {
    if (this.finished) throw new Error('FleetAnalyzer.finish called twice');
    this.finished = true;
    // No sample comes any more: the budgets must not keep the series alive as their devices are done.
    this.budgets.keptIntervals.release();
    this.budgets.timelineBuckets.release();
    const warnings: AnalysisWarning[] = [...this.sourceWarnings];
    const { physical, mig } = this.groupDevices(warnings);

    const ids = assignReportIds(physical.map(({ board }) => ({
      host: board.host, uuid: board.uuid ?? null, pciBusId: board.pciBusId ?? null, index: board.index ?? null,
    })));
    warnings.push(...uuidOnSeveralHostsWarnings(physical, ids));
    const gpus: GpuEntry[] = [];
    const deviceFacts = new Map<string, DeviceFacts>();
    const podAssignments = new Map<string, readonly PodAssignmentRecord[]>();
    let startMs: number | null = null;
    let endMs: number | null = null;

    // MIG devices by parent board, in their report order: one pass instead of a scan per GPU.
    const migByBoard = new Map<BoardIdentity, DeviceGroup[]>();
    for (const child of mig) {
      const siblings = migByBoard.get(child.board);
      if (siblings === undefined) migByBoard.set(child.board, [child]);
      else siblings.push(child);
    }
    physical.forEach((group, position) => {
      const parentId = ids[position]!;
      const children = migByBoard.get(group.board) ?? [];
      const parent = this.analyzeDevice(group, parentId, null, children.length > 0, warnings);
      const members = [parent, ...children.map((child) =>
        this.analyzeDevice(child, `${parentId}/${child.gpuInstanceId}`, parent, false, warnings))];
      // Each device's series, points and tables are done with once its entry is built: let them
      // go now, so that a large fleet's analysis state and its report entries are never all held at once.
      releaseDevice(group);
      for (const child of children) releaseDevice(child);
      for (const member of members) {
        gpus.push(member.entry);
        deviceFacts.set(member.entry.id, member.facts);
        if (member.pods.length > 0) podAssignments.set(member.entry.id, member.pods);
        if (member.firstTimeMs !== null) startMs = Math.min(startMs ?? Infinity, member.firstTimeMs);
        if (member.endMs !== null) endMs = Math.max(endMs ?? -Infinity, member.endMs);
      }
    });

    const seconds = startMs !== null && endMs !== null ? (endMs - startMs) / 1000 : 0;
    const cpu = this.cpuUsage === undefined ? undefined : { hosts: this.cpuUsage.hosts(), containers: this.cpuUsage.containers() };
    if ((this.cpuUsage?.droppedReadings ?? 0) > 0) {
      warnings.push({ source: this.cpuOverflowSource ?? this.source?.label ?? '', message: `more than ${MAX_CPU_SERIES} CPU counter series; ${this.cpuUsage!.droppedReadings} readings of the others were not kept` });
    }
    if ((this.processCpuTable?.droppedReadings ?? 0) > 0) {
      warnings.push({ source: this.processCpuOverflowSource ?? '', message: `more than ${MAX_PROCESS_SERIES} processes in GPU process trees; ${this.processCpuTable!.droppedReadings} readings of the others were not kept` });
    }
    for (const [source, fields] of this.outOfDomainSeen) {
      for (const [field, seen] of fields) warnings.push({ source, message: leftOutMessage(field, seen) });
    }
    const processCpu = this.processCpuTable?.trees();
    const served = this.servingTable === undefined ? undefined : this.servingFigures(warnings);
    this.releaseAll();
    return {
      gpus, window: { startMs, endMs, seconds }, warnings, deviceFacts, podAssignments,
      ...(cpu === undefined ? {} : { cpu }), ...(processCpu === undefined ? {} : { processCpu }), ...(served === undefined ? {} : { serving: served.entries, servingTimeline: served.timeline }),
    };
  }

  /** The serving entries, with what was left out said on the first input that had serving metrics. */
  private servingFigures(warnings: AnalysisWarning[]): Pick<ServingEntriesResult, 'entries' | 'timeline'> {
    const source = this.servingSource ?? '';
    const result = this.servingTable!.finish();
    for (const message of result.warnings) warnings.push({ source, message });
    return result;
  }

  /** After `finish`: nothing of the devices is needed any more (retainedState reads zero). */
  private releaseAll(): void {
    this.refs.clear();
    this.stateByRefObject = new WeakMap();
    this.lastRefObject = undefined;
    this.cpuUsage = undefined;
    this.processCpuTable = undefined;
    this.servingTable = undefined;
  }

  private currentSource(): SourceState {
    if (this.finished) throw new Error('FleetAnalyzer: events after finish');
    if (this.source === undefined) throw new Error('FleetAnalyzer: call beginSource before sending events');
    return this.source;
  }

  private refState(ref: DeviceRef): RefState {
    return this.refObjectState(ref).state;
  }

  private refObjectState(ref: DeviceRef): RefObjectState {
    this.currentSource();
    return this.findRefObject(ref);
  }

  /**
   * Sources hand out one ref object per device, so the state is found by the object when its
   * fields are still the ones it had (refs are plain objects: a changed one is keyed anew);
   * this spares a key string per sample. Sources also name their devices in the same order
   * round after round (a log's rows, a scrape's series), so the object is first looked for as
   * the last one again or the one that followed it last time, before the WeakMap.
   */
  private findRefObject(ref: DeviceRef): RefObjectState {
    const last = this.lastRefObject;
    let seen: RefObjectState | undefined;
    if (last?.ref === ref) seen = last;
    else if (last?.next?.ref === ref) seen = last.next;
    else seen = this.stateByRefObject.get(ref);
    if (seen === undefined || (!seen.frozen && (seen.host !== ref.host || seen.uuid !== ref.uuid || seen.pciBusId !== ref.pciBusId
      || seen.index !== ref.index || seen.gpuInstanceId !== ref.gpuInstanceId))) seen = this.stateOfRefObject(ref);
    if (last !== seen) {
      if (last !== undefined && last.next !== seen) last.next = seen;
      this.lastRefObject = seen;
    }
    return seen;
  }

  /** The state of a ref object met for the first time, or whose fields changed since. */
  private stateOfRefObject(ref: DeviceRef): RefObjectState {
    const known = this.stateByRefObject.get(ref);
    if (known !== undefined && known.host === ref.host && known.uuid === ref.uuid && known.pciBusId === ref.pciBusId
      && known.index === ref.index && known.gpuInstanceId === ref.gpuInstanceId) return known;
    const key = refKey(ref);
    let state = this.refs.get(key);
    if (state === undefined) {
      state = { board: boardIdentityOf(ref), gpuInstanceId: ref.gpuInstanceId, inventory: {}, bySource: new Map(), assignments: undefined };
      this.refs.set(key, state);
    }
    const objectState: RefObjectState = {
      ref, frozen: Object.isFrozen(ref), host: ref.host, uuid: ref.uuid, pciBusId: ref.pciBusId, index: ref.index, gpuInstanceId: ref.gpuInstanceId, state, sourceState: undefined, next: undefined,
    };
    this.stateByRefObject.set(ref, objectState);
    return objectState;
  }

  private refSourceState(ref: DeviceRef): RefSourceState {
    const source = this.currentSource();
    const seen = this.findRefObject(ref);
    if (seen.sourceState?.source === source) return seen.sourceState;
    const byRef = seen.state.bySource;
    let state = byRef.get(source.ordinal);
    if (state === undefined) {
      state = { source, series: undefined, points: undefined, pointCount: 0, futureCount: 0, processes: undefined };
      byRef.set(source.ordinal, state);
    }
    seen.sourceState = state;
    return state;
  }

  /** Physical devices in report order (host, index, PCI, uuid) and MIG devices sharing their parent's board object. */
  private groupDevices(warnings: AnalysisWarning[]): { physical: DeviceGroup[]; mig: DeviceGroup[] } {
    const refStates = [...this.refs.values()];
    const resolution = resolveBoards(refStates.map((state) => state.board));
    const physical = new Map<number, DeviceGroup>();
    const mig = new Map<string, DeviceGroup>();
    for (const state of refStates) {
      const boardNumber = resolution.boardOf.get(boardKey(state.board));
      if (boardNumber === undefined) {
        const candidates = resolution.ambiguous.find((entry) => boardKey(entry.identity) === boardKey(state.board))?.candidates ?? 2;
        for (const perSource of state.bySource.values()) {
          warnings.push({
            source: perSource.source.label,
            message: `${describeIdentity(state.board, state.gpuInstanceId)} fits ${candidates} GPUs equally well; its samples and processes were left out`,
          });
        }
        continue;
      }
      const board = resolution.boards[boardNumber]!;
      let parent = physical.get(boardNumber);
      if (parent === undefined) {
        parent = { board, gpuInstanceId: undefined, refs: [] };
        physical.set(boardNumber, parent);
      }
      if (state.gpuInstanceId === undefined) {
        parent.refs.push(state);
        continue;
      }
      const key = `${boardNumber}/${state.gpuInstanceId}`;
      let child = mig.get(key);
      if (child === undefined) {
        child = { board, gpuInstanceId: state.gpuInstanceId, refs: [] };
        mig.set(key, child);
      }
      child.refs.push(state);
    }
    const order = (a: DeviceGroup, b: DeviceGroup): number =>
      a.board.host.localeCompare(b.board.host)
      || (a.board.index ?? Infinity) - (b.board.index ?? Infinity)
      || (a.board.pciBusId ?? '').localeCompare(b.board.pciBusId ?? '')
      || (a.board.uuid ?? '').localeCompare(b.board.uuid ?? '')
      || (a.gpuInstanceId ?? -1) - (b.gpuInstanceId ?? -1);
    return { physical: [...physical.values()].sort(order), mig: [...mig.values()].sort(order) };
  }

  private analyzeDevice(
    group: DeviceGroup,
    id: string,
    parent: { entry: GpuEntry; facts: DeviceFacts } | null,
    hasMigDevices: boolean,
    warnings: AnalysisWarning[],
  ): { entry: GpuEntry; facts: DeviceFacts; firstTimeMs: number | null; endMs: number | null; pods: PodAssignmentRecord[] } {
    const threshold = this.options.idleThresholdPct;
    const inventory: DeviceInventory = {};
    // Most devices have no point values: they share one empty accumulator rather than each building one.
    let points: FigureAccumulator | undefined;
    let pointCount = 0;
    const series: SeriesOfSource[] = [];
    for (const ref of group.refs) {
      for (const [field, value] of Object.entries(ref.inventory)) (inventory as Record<string, unknown>)[field] ??= value;
      for (const state of ref.bySource.values()) {
        if (state.futureCount > 0) {
          warnings.push({ source: state.source.label, message: `GPU ${id}: ${samplesCount(state.futureCount)} stamped more than ${FUTURE_SAMPLE_TOLERANCE_MS / MS_PER_HOUR} h after the audit time ${state.futureCount === 1 ? 'was' : 'were'} skipped (a clock set ahead?)` });
        }
        if (state.points !== undefined) (points ??= new FigureAccumulator(threshold)).merge(state.points);
        pointCount += state.pointCount;
        if (state.series !== undefined) series.push({ sourceOrdinal: state.source.ordinal, recorder: state.series, label: state.source.label, state });
      }
    }

    const selection = selectNonOverlapping(series);
    for (const { series: left, keptInstead } of selection.dropped) {
      warnings.push({
        source: left.label,
        message: `GPU ${id}: its ${samplesCount(left.recorder.sampleCount)} overlap in time with the ${keptInstead.recorder.sampleCount} of ${keptInstead.label}; only those were used`,
      });
    }
    for (const kept of selection.kept) {
      const { recorder, label } = kept;
      if (recorder.outOfOrderCount > 0) {
        warnings.push({ source: label, message: `GPU ${id}: ${samplesCount(recorder.outOfOrderCount)} went back in time and were skipped` });
      }
      if (recorder.duplicateCount > 0) {
        warnings.push({ source: label, message: `GPU ${id}: ${samplesCount(recorder.duplicateCount)} repeated a timestamp and were skipped` });
      }
    }
    const timeline = closeTimeline(selection.kept, threshold);
    for (const { label, recorder } of timeline.uncorrectedGaps) {
      const kept = recorder.longestIntervals.capacity;
      const shared = kept < LARGEST_INTERVALS_KEPT ? ` (not ${LARGEST_INTERVALS_KEPT}: the audit's many long series share ${MAX_KEPT_INTERVALS} remembered intervals)` : '';
      warnings.push({
        source: label,
        message: `GPU ${id}: more than ${kept} gaps exceed twice the median sample interval; the longest were capped, the rest count in full${shared}`,
      });
    }
    if (timeline.loneSample !== undefined) (points ??= new FigureAccumulator(threshold)).add(timeline.loneSample, 1);

    const droppedStates = new Set(selection.dropped.map(({ series: left }) => left.state));
    const processes = new ProcessTable();
    for (const ref of group.refs) {
      for (const state of ref.bySource.values()) {
        if (state.processes !== undefined && !droppedStates.has(state)) processes.merge(state.processes);
      }
    }

    const entry = buildGpuEntry({
      id,
      board: group.board,
      gpuInstanceId: group.gpuInstanceId,
      parent: parent?.entry ?? null,
      hasMigDevices,
      inventory,
      timed: timeline.figures,
      activity: timeline.activity,
      points: points ?? this.noPoints,
      samples: timeline.sampleCount + pointCount,
      firstTimeMs: timeline.firstTimeMs,
      lastTimeMs: timeline.lastTimeMs,
      processes: processes.summaries(),
    });
    const facts: DeviceFacts = {
      pciDeviceId: inventory.pciDeviceId ?? parent?.facts.pciDeviceId ?? null,
      driverVersion: inventory.driverVersion ?? parent?.facts.driverVersion ?? null,
      architecture: inventory.architecture ?? parent?.facts.architecture ?? null,
      multiprocessorCount: inventory.multiprocessorCount ?? null,
    };
    const pods = new PodAssignmentTable();
    for (const ref of group.refs) if (ref.assignments !== undefined) pods.merge(ref.assignments);
    // Pod labels come with the samples of the same scrape: the warning goes to that input.
    const podSource = group.refs.flatMap((ref) => [...ref.bySource.values()])[0]?.source.label;
    if (pods.overflowSamples > 0 && podSource !== undefined) {
      warnings.push({ source: podSource, message: `GPU ${id}: more than ${MAX_CONTAINERS_PER_DEVICE} pod containers seen holding it; ${samplesCount(pods.overflowSamples)} of the others were not kept` });
    }
    return { entry, facts, firstTimeMs: timeline.firstTimeMs, endMs: timeline.endMs, pods: pods.list() };
  }
}

function leftOutMessage(field: DomainField, seen: { count: number; first: number }): string {
  const { words } = SAMPLE_DOMAINS[field];
  const range = field === 'memoryUsedMiB' ? '0 to the memory total' : SAMPLE_DOMAINS[field].range;
  return `left out ${seen.count} ${words} reading${seen.count === 1 ? '' : 's'} outside ${range} (the first: ${seen.first}): no value, not a figure`;
}

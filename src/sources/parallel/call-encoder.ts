/**
 * The worker's side of the protocol (protocol.ts): an ObservationSink that records each call
 * into the batch being built, for the main thread to replay on the real sink.
 *
 * Arguments are read at the time of the call, as the real sink would read them: parsers reuse
 * row and sample objects, so a sample's numbers are copied into the batch and a rare call's
 * argument is copied (shallowly: every observation is flat) before the parser can change it.
 */
import type {
  ContainerCpuSample,
  DeviceInfo,
  DeviceRef,
  GpuSample,
  HostCpuSample,
  ObservationSink,
  PodAssignment,
  ProcessCpuSample,
  ServingSample,
  ProcessSample,
  SourceWarning,
} from '../../model/index.js';
import {
  BATCH_MIN_CALLS,
  BATCH_MIN_NUMBERS,
  CALL_KIND,
  COMPUTE_PROCESSES,
  GR_ENGINE_ACTIVE,
  MEMORY_TOTAL,
  MEMORY_USED,
  MEMORY_UTILIZATION,
  PCIE_RX,
  PCIE_TX,
  POWER,
  SAMPLE_FIELDS,
  SM_ACTIVE,
  TENSOR_ACTIVE,
  TIME,
  UTILIZATION,
  type EncodedBatch,
} from './protocol.js';

/**
 * Numbers in a new batch buffer: a batch's BATCH_MIN_NUMBERS and room past it for what the
 * piece of text that crosses it adds (a 64 KiB piece of a CSV log: about 450 rows of 9
 * numbers, kind, ref, mask, time and 5 fields) several times over, so that it rarely grows.
 */
const INITIAL_CAPACITY = BATCH_MIN_NUMBERS + 16 * 1024;
/** The longest record: kind, ref id, presence mask and every field. */
const LONGEST_SAMPLE_RECORD = 3 + SAMPLE_FIELDS.length;

export class CallEncoder implements Required<ObservationSink> {
  private values: Float64Array;
  private length = 0;
  private calls: unknown[] = [];
  private newRefs: DeviceRef[] = [];
  private readonly refIds = new RefIds();
  /** Buffers the main thread handed back, reused so that a long parse allocates a few, not one per chunk. */
  private readonly spareBuffers: ArrayBuffer[] = [];

  constructor() {
    this.values = new Float64Array(INITIAL_CAPACITY);
  }

  /** What `pause` waits for: set by whoever posts the batches (parse-job.ts), which may post one then. */
  onPause: (() => Promise<void>) | undefined;

  /** ObservationSink.pause: lets the batches' poster send what was recorded, when it is a batch. */
  pause(): Promise<void> {
    return this.onPause?.() ?? Promise.resolve();
  }

  /** True when no call was recorded since the last batch was taken. */
  get isEmpty(): boolean {
    return this.length === 0;
  }

  /** True when the calls recorded since the last batch make one to post: BATCH_MIN_NUMBERS numbers or BATCH_MIN_CALLS rare calls. */
  get isFull(): boolean {
    return this.length >= BATCH_MIN_NUMBERS || this.calls.length >= BATCH_MIN_CALLS;
  }

  /** The calls recorded so far, as a batch; the encoder starts a new one. */
  takeBatch(): EncodedBatch {
    const batch: EncodedBatch = { buffer: this.values.buffer as ArrayBuffer, length: this.length, refs: this.newRefs, calls: this.calls };
    const spare = this.spareBuffers.pop();
    this.values = spare === undefined ? new Float64Array(INITIAL_CAPACITY) : new Float64Array(spare);
    this.length = 0;
    this.newRefs = [];
    this.calls = [];
    return batch;
  }

  /** A buffer of a batch the main thread has replayed. */
  recycle(buffer: ArrayBuffer): void {
    this.spareBuffers.push(buffer);
  }

  /** Written out field by field rather than looped over SAMPLE_FIELDS: this runs once per row of a log. */
  sample(sample: GpuSample): void {
    if (this.values.length - this.length < LONGEST_SAMPLE_RECORD) this.grow();
    const values = this.values;
    const start = this.length;
    values[start] = CALL_KIND.sample;
    values[start + 1] = this.refId(sample.ref);
    let at = start + 3;
    let mask = 0;
    let value: unknown = sample.time;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= TIME;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.utilizationPct;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= UTILIZATION;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.memoryUtilizationPct;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= MEMORY_UTILIZATION;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.memoryUsedMiB;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= MEMORY_USED;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.memoryTotalMiB;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= MEMORY_TOTAL;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.smActivePct;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= SM_ACTIVE;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.tensorActivePct;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= TENSOR_ACTIVE;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.grEngineActivePct;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= GR_ENGINE_ACTIVE;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.powerW;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= POWER;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.pcieRxKiBps;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= PCIE_RX;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.pcieTxKiBps;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= PCIE_TX;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    value = sample.computeProcessCount;
    if (typeof value === 'number') {
      values[at++] = value;
      mask |= COMPUTE_PROCESSES;
    } else if (value !== undefined) return this.sampleAsObject(sample);
    values[start + 2] = mask;
    this.length = at;
  }

  device(info: DeviceInfo): void {
    this.record(CALL_KIND.device, { ...info, ref: this.refId(info.ref) });
  }

  process(process: ProcessSample): void {
    this.record(CALL_KIND.process, { ...process, ref: this.refId(process.ref) });
  }

  assignment(assignment: PodAssignment): void {
    this.record(CALL_KIND.assignment, { ...assignment, ref: this.refId(assignment.ref) });
  }

  warn(warning: SourceWarning): void {
    this.record(CALL_KIND.warn, { ...warning });
  }

  hostCpu(sample: HostCpuSample): void {
    this.record(CALL_KIND.hostCpu, { ...sample });
  }

  containerCpu(sample: ContainerCpuSample): void {
    this.record(CALL_KIND.containerCpu, { ...sample });
  }

  processCpu(sample: ProcessCpuSample): void {
    this.record(CALL_KIND.processCpu, { ...sample });
  }

  serving(sample: ServingSample): void {
    this.record(CALL_KIND.serving, { ...sample });
  }

  /** A sample the numeric record cannot carry unchanged (a value that is not a number): sent whole. */
  private sampleAsObject(sample: GpuSample): void {
    this.record(CALL_KIND.sampleAsObject, { ...sample, ref: this.refId(sample.ref) });
  }

  private record(kind: number, argument: unknown): void {
    if (this.length === this.values.length) this.grow();
    this.values[this.length] = kind;
    this.length += 1;
    this.calls.push(argument);
  }

  private refId(ref: DeviceRef): number {
    return this.refIds.idOf(ref, this.newRefs);
  }

  /** A batch whose records outgrow the buffer: twice the room (what it holds past BATCH_MIN_NUMBERS is bounded by one piece of text). */
  private grow(): void {
    const larger = new Float64Array(this.values.length * 2);
    larger.set(this.values.subarray(0, this.length));
    this.values = larger;
  }
}

/**
 * Ids of the refs a parser hands out, numbered in the order first seen. Found by object first:
 * text and DCGM sources hand out one frozen ref per device (no source changes a ref it has handed
 * out). Then by fields: the XML source
 * makes a fresh ref per document, and each device must still travel once, so that memory grows
 * with devices, not documents. Refs with the same fields name the same device to the analysis
 * (it keys devices by fields; the object only caches the lookup), so one object per id is the same input.
 */
class RefIds {
  private readonly byObject = new WeakMap<DeviceRef, number>();
  private readonly byFields = new Map<string, number>();
  private lastRef: DeviceRef | undefined;
  private lastId = 0;

  /** The ref's id; a ref not seen before is appended to `newRefs` (as a copy: the parser's own may change). */
  idOf(ref: DeviceRef, newRefs: DeviceRef[]): number {
    if (ref === this.lastRef) return this.lastId;
    let id = this.byObject.get(ref);
    if (id === undefined) {
      const key = fieldsKey(ref);
      id = this.byFields.get(key);
      if (id === undefined) {
        id = this.byFields.size;
        this.byFields.set(key, id);
        newRefs.push({ ...ref });
      }
      this.byObject.set(ref, id);
    }
    this.lastRef = ref;
    this.lastId = id;
    return id;
  }
}

/** Every field of a ref, each marked by type, so that `undefined`, `''` and `'undefined'` differ. */
function fieldsKey(ref: DeviceRef): string {
  return [ref.host, ref.uuid, ref.pciBusId, ref.index, ref.gpuInstanceId, ref.computeInstanceId]
    .map((value) => (value === undefined ? '-' : `${typeof value === 'number' ? 'n' : 's'}${value}`))
    .join('\u0000');
}

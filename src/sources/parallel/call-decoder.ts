/**
 * The main thread's side of the protocol (protocol.ts): replays the calls of each batch on
 * the real sink, in the order the parser made them.
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
  CALL_KIND,
  COMPUTE_PROCESSES,
  GR_ENGINE_ACTIVE,
  MEMORY_TOTAL,
  MEMORY_USED,
  MEMORY_UTILIZATION,
  PCIE_RX,
  PCIE_TX,
  POWER,
  SM_ACTIVE,
  TENSOR_ACTIVE,
  TIME,
  UTILIZATION,
  type EncodedBatch,
} from './protocol.js';

/** An argument as it travelled: its ref replaced by the ref's id. */
type WithRefId<T extends { ref: DeviceRef }> = Omit<T, 'ref'> & { ref: number | DeviceRef };

/** The presence mask of a sample with every reading of a --query-gpu row (nvidia-smi-csv.ts emit), fields in mask order. */
const QUERY_GPU_ROW = TIME | UTILIZATION | MEMORY_UTILIZATION | MEMORY_USED | MEMORY_TOTAL | POWER;

export class CallDecoder {
  /**
   * One object per ref id, frozen, for the whole parse: the analyzer finds a device's state by
   * the ref object first, as it does with the parser's own refs in the parsing thread.
   */
  private readonly refs: DeviceRef[] = [];

  replay(batch: EncodedBatch, sink: ObservationSink): void {
    for (const ref of batch.refs) this.refs.push(Object.freeze(ref));
    const values = new Float64Array(batch.buffer, 0, batch.length);
    const calls = batch.calls;
    let nextCall = 0;
    let at = 0;
    while (at < values.length) {
      const kind = values[at]!;
      if (kind === CALL_KIND.sample) {
        const mask = values[at + 2]!;
        if (mask === QUERY_GPU_ROW) {
          // A --query-gpu log's row, most samples of one: built as the parser builds it, one
          // literal of the same shape, instead of a property added (and a shape changed) per field.
          sink.sample({
            ref: this.ref(values[at + 1]!),
            time: values[at + 3]!,
            utilizationPct: values[at + 4]!,
            memoryUtilizationPct: values[at + 5]!,
            memoryUsedMiB: values[at + 6]!,
            memoryTotalMiB: values[at + 7]!,
            powerW: values[at + 8]!,
          });
          at += 9;
          continue;
        }
        const sample: GpuSample = { ref: this.ref(values[at + 1]!) };
        at += 3;
        if ((mask & TIME) !== 0) sample.time = values[at++]!;
        if ((mask & UTILIZATION) !== 0) sample.utilizationPct = values[at++]!;
        if ((mask & MEMORY_UTILIZATION) !== 0) sample.memoryUtilizationPct = values[at++]!;
        if ((mask & MEMORY_USED) !== 0) sample.memoryUsedMiB = values[at++]!;
        if ((mask & MEMORY_TOTAL) !== 0) sample.memoryTotalMiB = values[at++]!;
        if ((mask & SM_ACTIVE) !== 0) sample.smActivePct = values[at++]!;
        if ((mask & TENSOR_ACTIVE) !== 0) sample.tensorActivePct = values[at++]!;
        if ((mask & GR_ENGINE_ACTIVE) !== 0) sample.grEngineActivePct = values[at++]!;
        if ((mask & POWER) !== 0) sample.powerW = values[at++]!;
        if ((mask & PCIE_RX) !== 0) sample.pcieRxKiBps = values[at++]!;
        if ((mask & PCIE_TX) !== 0) sample.pcieTxKiBps = values[at++]!;
        if ((mask & COMPUTE_PROCESSES) !== 0) sample.computeProcessCount = values[at++]!;
        sink.sample(sample);
        continue;
      }
      at += 1;
      const argument = calls[nextCall];
      nextCall += 1;
      this.replayCall(kind, argument, sink);
    }
  }

  /** A batch whose calls are dropped (parse-in-blocks.ts): the refs it sends are still numbered, since later batches use them. */
  skip(batch: EncodedBatch): void {
    for (const ref of batch.refs) this.refs.push(Object.freeze(ref));
  }

  private replayCall(kind: number, argument: unknown, sink: ObservationSink): void {
    switch (kind) {
      case CALL_KIND.device:
        return sink.device(this.withRef(argument as WithRefId<DeviceInfo>));
      case CALL_KIND.process:
        return sink.process(this.withRef(argument as WithRefId<ProcessSample>));
      case CALL_KIND.assignment:
        return sink.assignment?.(this.withRef(argument as WithRefId<PodAssignment>));
      case CALL_KIND.sampleAsObject:
        return sink.sample(this.withRef(argument as WithRefId<GpuSample>));
      case CALL_KIND.warn:
        return sink.warn(argument as SourceWarning);
      case CALL_KIND.hostCpu:
        return sink.hostCpu?.(argument as HostCpuSample);
      case CALL_KIND.containerCpu:
        return sink.containerCpu?.(argument as ContainerCpuSample);
      case CALL_KIND.processCpu:
        return sink.processCpu?.(argument as ProcessCpuSample);
      case CALL_KIND.serving:
        return sink.serving?.(argument as ServingSample);
      default:
        throw new Error(`parse worker: unknown call kind ${kind} in a batch`);
    }
  }

  /** The argument with its ref id replaced by the ref, in place: the clone is the main thread's own, and its keys keep their order. */
  private withRef<T extends { ref: DeviceRef }>(argument: WithRefId<T>): T {
    argument.ref = this.ref(argument.ref as number);
    return argument as unknown as T;
  }

  private ref(id: number): DeviceRef {
    const ref = this.refs[id];
    if (ref === undefined) throw new Error(`parse worker: ref id ${id} used before it was sent`);
    return ref;
  }
}

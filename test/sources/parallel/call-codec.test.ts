/**
 * The batch encoding between the parse worker and the main thread, without threads: what the
 * encoder records, the decoder replays on the sink as the same calls, in the same order, with
 * the same values and one ref object per device.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceRef, GpuSample, ObservationSink, ServingSample } from '../../../src/model/observations.js';
import { CallDecoder } from '../../../src/sources/parallel/call-decoder.js';
import { CallEncoder } from '../../../src/sources/parallel/call-encoder.js';
import { BATCH_MIN_CALLS, BATCH_MIN_NUMBERS, SAMPLE_FIELDS } from '../../../src/sources/parallel/protocol.js';

type Call = [method: keyof ObservationSink, argument: unknown];

const SERVING: ServingSample = {
  server: 'vllm', instance: 'vllm node-1 chat-0 llama', host: 'node-1', model: 'llama', namespace: 'ml', pod: 'chat-0',
  time: 1, metric: 'e2e-latency', kind: 'bucket', series: '', bound: Infinity, value: 12,
};

/** A sink that keeps every call with its argument, in order. */
function callLog(): { sink: Required<ObservationSink>; calls: Call[] } {
  const calls: Call[] = [];
  const record = (method: keyof ObservationSink) => (argument: unknown): void => {
    calls.push([method, argument]);
  };
  return {
    calls,
    sink: {
      device: record('device'),
      sample: record('sample'),
      process: record('process'),
      warn: record('warn'),
      assignment: record('assignment'),
      hostCpu: record('hostCpu'),
      containerCpu: record('containerCpu'),
      processCpu: record('processCpu'),
      serving: record('serving'),
      // Not a call: nothing to record or replay.
      pause: () => Promise.resolve(),
    },
  };
}

/** Moves every batch the encoder holds through the decoder, as the two threads do (the buffer is the one posted). */
function replayAll(encoder: CallEncoder, decoder: CallDecoder, sink: ObservationSink): void {
  if (encoder.isEmpty) return;
  const batch = encoder.takeBatch();
  decoder.replay(structuredClone(batch, { transfer: [batch.buffer] }), sink);
}

const ref: DeviceRef = Object.freeze({ host: 'node-1', uuid: 'GPU-1', pciBusId: '00000000:01:00.0', index: 0 });

describe('samples travel as numbers', () => {
  it('every subset of fields arrives with the same values, absent fields absent', () => {
    const value = fc.oneof(fc.double(), fc.constant(Number.NaN), fc.constant(-0), fc.constant(Number.POSITIVE_INFINITY), fc.integer());
    const sampleArbitrary = fc.record(Object.fromEntries(SAMPLE_FIELDS.map((field) => [field, value])), { requiredKeys: [] });
    fc.assert(
      fc.property(fc.array(sampleArbitrary, { maxLength: 20 }), (fields) => {
        const encoder = new CallEncoder();
        const decoder = new CallDecoder();
        const { sink, calls } = callLog();
        const sent: GpuSample[] = fields.map((values) => ({ ref, ...values }));
        for (const sample of sent) encoder.sample(sample);
        replayAll(encoder, decoder, sink);
        expect(calls.map(([method]) => method)).toEqual(sent.map(() => 'sample'));
        // toEqual treats NaN as NaN and tells -0 from 0 (Object.is), which is what must survive.
        expect(calls.map(([, sample]) => sample)).toEqual(sent);
      }),
      { numRuns: 200 },
    );
  });

  it('a --query-gpu row\'s sample, every reading present, arrives equal and shaped as the parser built it', () => {
    // The decoder builds this one mask as one literal (the CSV parser's own key order), not field by field.
    const value = fc.oneof(fc.double(), fc.constant(Number.NaN), fc.constant(-0), fc.integer());
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value, value, value, value, value), { minLength: 1, maxLength: 20 }), (rows) => {
        const encoder = new CallEncoder();
        const { sink, calls } = callLog();
        const sent: GpuSample[] = rows.map(([time, utilizationPct, memoryUtilizationPct, memoryUsedMiB, memoryTotalMiB, powerW]) =>
          ({ ref, time, utilizationPct, memoryUtilizationPct, memoryUsedMiB, memoryTotalMiB, powerW }));
        for (const sample of sent) encoder.sample(sample);
        replayAll(encoder, new CallDecoder(), sink);
        const received = calls.map(([, sample]) => sample as GpuSample);
        expect(received).toEqual(sent);
        for (const sample of received) expect(Object.keys(sample)).toEqual(Object.keys(sent[0]!));
      }),
      { numRuns: 100 },
    );
  });

  it('a sample whose value is not a number arrives unchanged, in its place', () => {
    const encoder = new CallEncoder();
    const { sink, calls } = callLog();
    const odd = { ref, time: 1000, utilizationPct: '42' } as unknown as GpuSample;
    encoder.sample({ ref, time: 0 });
    encoder.sample(odd);
    encoder.sample({ ref, time: 2000 });
    replayAll(encoder, new CallDecoder(), sink);
    expect(calls.map(([, sample]) => sample)).toEqual([{ ref, time: 0 }, odd, { ref, time: 2000 }]);
  });

  it('a reused sample object is read at the time of the call', () => {
    // The CSV parser fills one object per row; the values of each call are the ones that count.
    const encoder = new CallEncoder();
    const { sink, calls } = callLog();
    const row: GpuSample = { ref, time: 1, powerW: 10 };
    encoder.sample(row);
    row.time = 2;
    row.powerW = 20;
    encoder.sample(row);
    replayAll(encoder, new CallDecoder(), sink);
    expect(calls.map(([, sample]) => sample)).toEqual([{ ref, time: 1, powerW: 10 }, { ref, time: 2, powerW: 20 }]);
  });

  it('a batch outgrows its first buffer and keeps every record', () => {
    // BATCH_MIN_NUMBERS + 16 Ki = 147,456 numbers to start; 20,000 samples of 15 numbers (kind, ref, mask, 12 fields) need 300,000.
    const encoder = new CallEncoder();
    const { sink, calls } = callLog();
    const full = Object.fromEntries(SAMPLE_FIELDS.map((field, position) => [field, position])) as Omit<GpuSample, 'ref'>;
    for (let time = 0; time < 20_000; time += 1) encoder.sample({ ref, ...full, time });
    const batch = encoder.takeBatch();
    expect(batch.length).toBe(300_000);
    new CallDecoder().replay(batch, sink);
    expect(calls).toHaveLength(20_000);
    expect(calls[19_999]![1]).toEqual({ ref, ...full, time: 19_999 });
  });
});

describe('when a batch is due', () => {
  it('once it holds BATCH_MIN_NUMBERS numbers', () => {
    // 1 MiB of Float64. A sample of time and power is 5 numbers (kind, ref, mask, 2 fields):
    // 26,214 samples make 131,070 numbers, not yet a batch; the 26,215th makes 131,075.
    expect(BATCH_MIN_NUMBERS * Float64Array.BYTES_PER_ELEMENT).toBe(1024 * 1024);
    const encoder = new CallEncoder();
    for (let time = 0; time < 26_214; time += 1) encoder.sample({ ref, time, powerW: 100 });
    expect(encoder.isFull).toBe(false);
    encoder.sample({ ref, time: 26_214, powerW: 100 });
    expect(encoder.isFull).toBe(true);
    expect(encoder.takeBatch().length).toBe(131_075);
    expect(encoder.isFull).toBe(false);
  });

  it('or once it holds BATCH_MIN_CALLS rare calls, whose arguments travel as cloned objects', () => {
    // Each rare call is one number: 8,192 of them are far from 131,072 numbers, but a batch.
    const encoder = new CallEncoder();
    for (let time = 1; time < BATCH_MIN_CALLS; time += 1) encoder.assignment({ ref, time, namespace: 'ml', pod: 'train-0' });
    expect(encoder.isFull).toBe(false);
    encoder.assignment({ ref, time: BATCH_MIN_CALLS, namespace: 'ml', pod: 'train-0' });
    expect(encoder.isFull).toBe(true);
    const batch = encoder.takeBatch();
    expect({ length: batch.length, calls: batch.calls.length }).toEqual({ length: 8_192, calls: 8_192 });
  });
});

describe('every call keeps its place', () => {
  it('rare calls travel whole, between the samples they came between', () => {
    const encoder = new CallEncoder();
    const { sink, calls } = callLog();
    encoder.device({ ref, model: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81_559 });
    encoder.sample({ ref, time: 1 });
    encoder.warn({ location: 'line 3', message: 'bad row' });
    encoder.process({ ref, time: 1, pid: 42, name: 'python', usedMemoryMiB: 1024 });
    encoder.assignment({ ref, time: 1, namespace: 'ml', pod: 'train-0', container: 'main' });
    encoder.hostCpu({ host: 'node-1', time: 1, cpu: '0', mode: 'idle', secondsTotal: 10.5 });
    encoder.containerCpu({ host: 'node-1', time: 1, namespace: 'ml', pod: 'train-0', container: 'main', counter: 'usage-seconds', value: 3 });
    encoder.processCpu({ host: 'node-1', time: 1, gpuPid: 42, pid: 43, comm: 'worker', startTicks: 100, cpuSecondsTotal: 7 });
    encoder.serving(SERVING);
    encoder.sample({ ref, time: 2 });
    replayAll(encoder, new CallDecoder(), sink);
    expect(calls).toEqual([
      ['device', { ref, model: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81_559 }],
      ['sample', { ref, time: 1 }],
      ['warn', { location: 'line 3', message: 'bad row' }],
      ['process', { ref, time: 1, pid: 42, name: 'python', usedMemoryMiB: 1024 }],
      ['assignment', { ref, time: 1, namespace: 'ml', pod: 'train-0', container: 'main' }],
      ['hostCpu', { host: 'node-1', time: 1, cpu: '0', mode: 'idle', secondsTotal: 10.5 }],
      ['containerCpu', { host: 'node-1', time: 1, namespace: 'ml', pod: 'train-0', container: 'main', counter: 'usage-seconds', value: 3 }],
      ['processCpu', { host: 'node-1', time: 1, gpuPid: 42, pid: 43, comm: 'worker', startTicks: 100, cpuSecondsTotal: 7 }],
      ['serving', SERVING],
      ['sample', { ref, time: 2 }],
    ]);
  });

  it('a rare call argument is copied at the call: the parser may change it afterwards', () => {
    const encoder = new CallEncoder();
    const { sink, calls } = callLog();
    const info = { ref, model: 'Tesla T4' };
    encoder.device(info);
    info.model = 'changed';
    replayAll(encoder, new CallDecoder(), sink);
    expect(calls).toEqual([['device', { ref, model: 'Tesla T4' }]]);
  });
});

describe('device refs', () => {
  it('each device is one frozen object on the main thread, whether the parser reused its ref or made a fresh one, across batches', () => {
    const encoder = new CallEncoder();
    const decoder = new CallDecoder();
    const { sink, calls } = callLog();
    const mig: DeviceRef = { host: 'node-1', uuid: 'GPU-1', pciBusId: '00000000:01:00.0', index: 0, gpuInstanceId: 3, computeInstanceId: 0 };
    encoder.device({ ref: mig, migProfile: '1g.10gb' });
    encoder.sample({ ref: mig, time: 1 });
    replayAll(encoder, decoder, sink);
    // The XML source makes a fresh ref per document: same fields, another object.
    encoder.sample({ ref: { ...mig }, time: 2 });
    encoder.process({ ref: { ...mig }, pid: 7, name: 'python' });
    encoder.sample({ ref, time: 2 });
    replayAll(encoder, decoder, sink);

    const refs = calls.map(([, argument]) => (argument as { ref: DeviceRef }).ref);
    expect(refs[0]).toEqual(mig);
    expect(refs.slice(0, 4).every((each) => each === refs[0])).toBe(true);
    expect(Object.isFrozen(refs[0])).toBe(true);
    expect(refs[4]).toEqual(ref);
    expect(refs[4]).not.toBe(refs[0]);
  });

  it('a skipped batch replays nothing, yet the devices it named are known to the batches after it', () => {
    const encoder = new CallEncoder();
    const decoder = new CallDecoder();
    const { sink, calls } = callLog();
    encoder.sample({ ref, time: 1 });
    const skipped = encoder.takeBatch();
    decoder.skip(structuredClone(skipped, { transfer: [skipped.buffer] }));
    // The encoder sent the ref with the skipped batch only: this one names it by id.
    encoder.sample({ ref, time: 2 });
    replayAll(encoder, decoder, sink);
    expect(calls).toEqual([['sample', { ref, time: 2 }]]);
  });

  it('refs that differ in any one field stay apart, an absent field included', () => {
    const encoder = new CallEncoder();
    const { sink, calls } = callLog();
    const variants: DeviceRef[] = [
      { host: 'node-1' },
      { host: 'node-2' },
      { host: 'node-1', uuid: '' },
      { host: 'node-1', uuid: 'undefined' },
      { host: 'node-1', pciBusId: '00000000:01:00.0' },
      { host: 'node-1', index: 0 },
      { host: 'node-1', index: 1 },
      { host: 'node-1', index: 0, gpuInstanceId: 1 },
      { host: 'node-1', index: 0, gpuInstanceId: 1, computeInstanceId: 0 },
    ];
    for (const variant of variants) encoder.sample({ ref: variant, time: 1 });
    replayAll(encoder, new CallDecoder(), sink);
    const refs = calls.map(([, argument]) => (argument as GpuSample).ref);
    expect(refs).toEqual(variants);
    expect(new Set(refs).size).toBe(variants.length);
  });
});

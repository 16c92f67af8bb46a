import type { DeviceInfo, GpuSample, ObservationSink, ProcessSample, SourceWarning } from '../../src/model/observations.js';

/** An ObservationSink that keeps everything, for asserting what a parser emitted. */
export class RecordingSink implements ObservationSink {
  readonly devices: DeviceInfo[] = [];
  readonly samples: GpuSample[] = [];
  readonly processes: ProcessSample[] = [];
  readonly warnings: SourceWarning[] = [];

  device(info: DeviceInfo): void { this.devices.push(info); }
  sample(sample: GpuSample): void { this.samples.push(sample); }
  process(process: ProcessSample): void { this.processes.push(process); }
  warn(warning: SourceWarning): void { this.warnings.push(warning); }
}

/** Feeds a string to a parser in chunks of the given sizes (cycled), to test chunk boundaries. */
export async function* chunked(text: string, sizes: number[] = [text.length || 1]): AsyncIterable<string> {
  let offset = 0;
  let turn = 0;
  while (offset < text.length) {
    const size = Math.max(1, sizes[turn % sizes.length]!);
    yield text.slice(offset, offset + size);
    offset += size;
    turn += 1;
  }
}

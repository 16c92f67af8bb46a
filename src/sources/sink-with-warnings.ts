import type { ObservationSink, SourceWarning } from '../model/index.js';

/** `sink` with its warnings handed to `warn` instead (to count, limit or renumber them on their way). */
export function withWarnings(sink: ObservationSink, warn: (warning: SourceWarning) => void): ObservationSink {
  return {
    device: (info) => sink.device(info),
    sample: (sample) => sink.sample(sample),
    process: (process) => sink.process(process),
    assignment: (assignment) => sink.assignment?.(assignment),
    hostCpu: (sample) => sink.hostCpu?.(sample),
    containerCpu: (sample) => sink.containerCpu?.(sample),
    processCpu: (sample) => sink.processCpu?.(sample),
    serving: (sample) => sink.serving?.(sample),
    warn,
    ...(sink.pause === undefined ? {} : { pause: () => sink.pause!() }),
  };
}

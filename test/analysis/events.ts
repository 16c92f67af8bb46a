/** Small builders for observation events, so each test shows its input in a few lines. */
import type { DeviceRef, GpuSample } from '../../src/model/observations.js';
import { createFleetAnalyzer, type AnalysisOptions, type FleetAnalyzer, type FleetProfile } from '../../src/analysis/index.js';

export const HOST = 'node-a';
export const UUID_0 = 'GPU-11111111-2222-3333-4444-555555555555';
export const UUID_1 = 'GPU-66666666-7777-8888-9999-000000000000';
export const MASKED_UUID = 'GPU-00000000-0000-0000-0000-000000000000';

export const gpu0: DeviceRef = { host: HOST, uuid: UUID_0, pciBusId: '00000000:01:00.0', index: 0 };
export const gpu1: DeviceRef = { host: HOST, uuid: UUID_1, pciBusId: '00000000:02:00.0', index: 1 };

/** Epoch ms of `seconds` after 2026-01-01T00:00:00Z, so ISO times in tests are easy to read. */
export const T0 = Date.UTC(2026, 0, 1);
export const at = (seconds: number): number => T0 + seconds * 1000;

/** Samples of one ref at the given second offsets, with fields taken from `values[i]`. */
export function samplesAt(ref: DeviceRef, seconds: readonly number[], values: readonly Omit<GpuSample, 'ref' | 'time'>[]): GpuSample[] {
  return seconds.map((second, i) => ({ ref, time: at(second), ...values[i % values.length] }));
}

export interface SourceEvents {
  source: string;
  samples?: GpuSample[];
  /** Events other than samples (inventory, processes), sent before the samples. */
  run?: (sink: FleetAnalyzer) => void;
}

/** Feeds each source's events in order and returns the profile. */
export function analyze(sources: readonly SourceEvents[], idleThresholdPct = 5, options: Omit<AnalysisOptions, 'idleThresholdPct'> = {}): FleetProfile {
  const analyzer = createFleetAnalyzer({ idleThresholdPct, ...options });
  for (const { source, samples = [], run } of sources) {
    analyzer.beginSource(source);
    run?.(analyzer);
    for (const sample of samples) analyzer.sample(sample);
  }
  return analyzer.finish();
}

export function only<T>(items: readonly T[]): T {
  if (items.length !== 1) throw new Error(`expected exactly one item, got ${items.length}`);
  return items[0]!;
}

export const hours = (seconds: number): number => seconds / 3600;

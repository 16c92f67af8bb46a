/**
 * DCGM series gathered per device and time, then sent to the sink as inventory, pod
 * assignments and one GpuSample per device and time. A scrape is gathered in a
 * ScrapeBatch; only the current one is held, so memory grows with devices, never with
 * scrapes. The Prometheus API parser gathers per device instead (prometheus-json.ts).
 */
import type { GpuSample, ObservationSink } from '../../model/observations.js';
import type { DcgmDevices } from './devices.js';
import type { DcgmField } from './fields.js';
import type { PodLabels, SeriesDevice, SeriesLabelsRead } from './labels.js';
import { fillSample, memoryTotalMiB } from './readings.js';
import type { Readings } from './readings.js';

/** What one device reported at one time: values, and the containers seen holding it. */
export interface DeviceReadings {
  device: SeriesDevice;
  readings: Readings;
  /** By `namespace/pod/container`; most GPUs have no pod mapping, so made on first use. */
  pods: Map<string, PodLabels> | undefined;
}

export function emptyReadings(device: SeriesDevice): DeviceReadings {
  return { device, readings: {}, pods: undefined };
}

/**
 * Records one series' value (when the field is one gpu-audit reads and the value is not
 * missing) and pod. Series of one device differ only in their metric, except under GPU
 * sharing, where the exporter repeats every series once per pod: the values agree, and
 * each pod becomes an assignment.
 */
export function recordSeries(entry: DeviceReadings, pod: PodLabels | undefined, field: DcgmField | undefined, value: number | undefined): void {
  if (field !== undefined && value !== undefined) entry.readings[field.reading] = value;
  if (pod !== undefined) {
    entry.pods ??= new Map();
    entry.pods.set(`${pod.namespace}/${pod.pod}/${pod.container ?? ''}`, pod);
  }
}

/** Fills gaps in `into` from another series' labels of the same device. */
export function mergeDeviceLabels(into: SeriesDevice, from: SeriesDevice): void {
  into.model ??= from.model;
  into.driverVersion ??= from.driverVersion;
  into.migProfile ??= from.migProfile;
}

/** Sends a device's inventory, pod assignments and sample, stamped with `time` (undefined: no timestamp). */
export function sendReadings(entry: DeviceReadings, time: number | undefined, devices: DcgmDevices, sink: ObservationSink): void {
  const { device, readings, pods } = entry;
  const ref = devices.seen(device, memoryTotalMiB(readings));
  if (pods !== undefined) {
    for (const pod of pods.values()) sink.assignment?.(time === undefined ? { ref, ...pod } : { ref, time, ...pod });
  }
  const sample: GpuSample = time === undefined ? { ref } : { ref, time };
  if (fillSample(sample, readings)) sink.sample(sample);
}

/** The devices of one scrape. */
export class ScrapeBatch {
  private readonly entries = new Map<string, DeviceReadings>();

  get isEmpty(): boolean {
    return this.entries.size === 0;
  }

  add(series: SeriesLabelsRead, field: DcgmField | undefined, value: number | undefined): void {
    const { device } = series;
    let entry = this.entries.get(device.key);
    if (entry === undefined) {
      entry = emptyReadings({ ...device });
      this.entries.set(device.key, entry);
    } else {
      mergeDeviceLabels(entry.device, device);
    }
    recordSeries(entry, series.pod, field, value);
  }

  /** Sends everything gathered, stamped with `time`, and empties the batch. */
  flush(time: number | undefined, devices: DcgmDevices, sink: ObservationSink): void {
    for (const entry of this.entries.values()) sendReadings(entry, time, devices, sink);
    this.entries.clear();
  }
}

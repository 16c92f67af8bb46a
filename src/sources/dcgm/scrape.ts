/**
 * DCGM series gathered per device and time, then sent to the sink as inventory, pod
 * assignments and one GpuSample per device and time. A scrape is gathered in a
 * ScrapeBatch; only the current one is held, so memory grows with devices, never with
 * scrapes. The Prometheus API parser gathers per device instead (prometheus-json.ts).
 */
import type { DeviceRef, GpuSample, ObservationSink } from '../../model/index.js';
import type { DcgmDevices } from './devices.js';
import type { DcgmField } from './fields.js';
import type { PodLabels, SeriesDevice, SeriesLabelsRead } from './labels.js';
import { fillSample, fillSampleAt, memoryTotalMiB, memoryTotalMiBAt, noReadings, READING_KEYS } from './readings.js';
import type { Readings } from './readings.js';

/** What one device reported at one time: values, and the containers seen holding it. */
export interface DeviceReadings {
  device: SeriesDevice;
  readings: Readings;
  /** By `namespace/pod/container`; most GPUs have no pod mapping, so made on first use. */
  pods: Map<string, PodLabels> | undefined;
}

export function emptyReadings(device: SeriesDevice): DeviceReadings {
  return { device, readings: noReadings(), pods: undefined };
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
    for (const pod of pods.values()) sendAssignment(sink, ref, time, pod);
  }
  const sample: GpuSample = time === undefined ? { ref } : { ref, time };
  if (fillSample(sample, readings)) sink.sample(sample);
}

function sendAssignment(sink: ObservationSink, ref: DeviceRef, time: number | undefined, pod: PodLabels): void {
  sink.assignment?.(time === undefined ? { ref, ...pod } : { ref, time, ...pod });
}

/** The slot of `field`'s reading in ScrapeBatch.add. */
export function readingSlot(field: DcgmField): number {
  return READING_KEYS.indexOf(field.reading);
}

/** What a ScrapeBatch holds per device: kept from scrape to scrape, reset when the device reappears. */
interface BatchEntry {
  /** The batch this entry last took part in. */
  batch: number;
  /**
   * The device as this batch's series describe it: the first series' own object, until a
   * series with other labels fills a gap, when it becomes a copy of its own.
   */
  device: SeriesDevice;
  /** Whether `device` is this entry's copy (merged into), not a series' object. */
  deviceIsCopy: boolean;
  /** The device object last merged in (see add). */
  mergedFrom: SeriesDevice;
  /**
   * Where the entry's values start in ScrapeBatch.values: one number per reading slot, NaN
   * where the batch had no value (a value is never NaN).
   */
  at: number;
  /** The first pod of the batch; most GPUs have one pod or none. */
  pod: PodLabels | undefined;
  /** Every pod of the batch, by podKey, the first included, once a second one comes. */
  pods: Map<string, PodLabels> | undefined;
  /** The pod last recorded. */
  lastPod: PodLabels | undefined;
}

function podKey(pod: PodLabels): string {
  return `${pod.namespace}/${pod.pod}/${pod.container ?? ''}`;
}

/**
 * The devices of one scrape. Entries are kept per device across scrapes, so a long file of
 * scrapes of a large fleet costs no new objects per device and scrape until the flush, and
 * the flush only the objects the sink receives.
 */
export class ScrapeBatch {
  private readonly entries = new Map<string, BatchEntry>();
  /** The values of every entry, READING_KEYS.length apiece: one array for the fleet, not one per device. */
  private values = new Float64Array(0);
  /** The entry of each interned label set's device (a label set names one device for good). */
  private readonly byLabelSet: (BatchEntry | undefined)[] = [];
  /** This batch's devices in the order they first appeared. */
  private readonly active: BatchEntry[] = [];
  private batch = 1;

  get isEmpty(): boolean {
    return this.active.length === 0;
  }

  /**
   * Records one series: `slot` is readingSlot(field), undefined for a field gpu-audit does not
   * read; `labelSetId` (InternedLabels.id), where the series has one, finds the device's entry
   * without a look-up by key.
   */
  add(series: SeriesLabelsRead, slot: number | undefined, value: number | undefined, labelSetId?: number): void {
    const { device } = series;
    let entry = labelSetId === undefined ? undefined : this.byLabelSet[labelSetId];
    if (entry === undefined) {
      entry = this.entries.get(device.key);
      if (entry === undefined) {
        entry = {
          batch: 0,
          device,
          deviceIsCopy: false,
          mergedFrom: device,
          at: this.entries.size * READING_KEYS.length,
          pod: undefined,
          pods: undefined,
          lastPod: undefined,
        };
        this.entries.set(device.key, entry);
        if (entry.at === this.values.length) {
          const grown = new Float64Array(Math.max(64 * READING_KEYS.length, this.values.length * 2));
          grown.set(this.values);
          this.values = grown;
        }
      }
      if (labelSetId !== undefined) {
        while (this.byLabelSet.length <= labelSetId) this.byLabelSet.push(undefined);
        this.byLabelSet[labelSetId] = entry;
      }
    }
    if (entry.batch !== this.batch) {
      entry.batch = this.batch;
      entry.device = device;
      entry.deviceIsCopy = false;
      entry.mergedFrom = device;
      this.values.fill(Number.NaN, entry.at, entry.at + READING_KEYS.length);
      entry.pod = undefined;
      entry.pods = undefined;
      entry.lastPod = undefined;
      this.active.push(entry);
    } else if (entry.mergedFrom !== device) {
      // Series of one label set share their device object (the exporter interns them): a
      // device merged from once has nothing more to give. The series' objects are never
      // changed: the first merge makes the entry a copy of its own.
      if (!entry.deviceIsCopy) {
        entry.device = { ...entry.device };
        entry.deviceIsCopy = true;
      }
      mergeDeviceLabels(entry.device, device);
      entry.mergedFrom = device;
    }
    if (slot !== undefined && value !== undefined) this.values[entry.at + slot] = value;
    const { pod } = series;
    // Every series of a label set brings the same pod object: one is enough per batch.
    if (pod !== undefined && pod !== entry.lastPod) {
      entry.lastPod = pod;
      if (entry.pod === undefined) {
        entry.pod = pod;
      } else {
        const key = podKey(pod);
        if (entry.pods === undefined) {
          const firstKey = podKey(entry.pod);
          if (key === firstKey) return;
          entry.pods = new Map([[firstKey, entry.pod]]);
        }
        entry.pods.set(key, pod);
      }
    }
  }

  /** Sends everything gathered, stamped with `time`, and empties the batch. */
  flush(time: number | undefined, devices: DcgmDevices, sink: ObservationSink): void {
    for (const entry of this.active) {
      sendEntry(entry, this.values, time, devices, sink);
      entry.pod = undefined;
      entry.pods = undefined;
    }
    this.active.length = 0;
    this.batch += 1;
  }
}

/** sendReadings for a batch entry, read straight from its slots in `values`: the same inventory, assignments and sample. */
function sendEntry(entry: BatchEntry, values: Float64Array, time: number | undefined, devices: DcgmDevices, sink: ObservationSink): void {
  const memoryTotal = memoryTotalMiBAt(values, entry.at);
  const ref = devices.seen(entry.device, memoryTotal);
  if (entry.pods !== undefined) {
    for (const pod of entry.pods.values()) sendAssignment(sink, ref, time, pod);
  } else if (entry.pod !== undefined) {
    sendAssignment(sink, ref, time, entry.pod);
  }
  const sample: GpuSample = time === undefined ? { ref } : { ref, time };
  if (fillSampleAt(sample, values, entry.at, memoryTotal)) sink.sample(sample);
}

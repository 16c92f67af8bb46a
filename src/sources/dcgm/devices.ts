/**
 * The devices of one DCGM input: one shared, frozen DeviceRef per device, and DeviceInfo
 * sent when it says something the sink has not heard ("later values fill gaps"). Memory
 * grows with devices, never with samples.
 */
import type { DeviceInfo, DeviceRef, ObservationSink } from '../../model/index.js';
import { migParent } from './labels.js';
import type { SeriesDevice } from './labels.js';

/** The inventory fields whose change is news (addsNews), as a DeviceInfo or a SeriesDevice (which has no migMode) holds them. */
type Described = Partial<Pick<DeviceInfo, 'model' | 'driverVersion' | 'migProfile' | 'migMode'>>;

export class DcgmDevices {
  private readonly refs = new Map<string, DeviceRef>();
  private readonly sent = new Map<string, DeviceInfo>();

  constructor(private readonly sink: ObservationSink) {}

  /**
   * Notes that `device` reported, with the framebuffer total its readings gave, and returns
   * its ref. A MIG instance's series also say that its parent GPU has MIG enabled.
   */
  seen(device: SeriesDevice, memoryTotalMiB: number | undefined): DeviceRef {
    const ref = this.refOf(device);
    if (ref.gpuInstanceId !== undefined) {
      const parent = migParent(device);
      this.report(parent.key, inventoryOf(parent, this.refOf(parent), { migMode: 'enabled' }));
    }
    if (!this.alreadySent(device, memoryTotalMiB)) this.report(device.key, inventoryOf(device, ref, { memoryTotalMiB }));
    return ref;
  }

  /**
   * What `report` would decide for the device's own inventory, without building it: true when
   * it would add no news (see addsNews). Every device says this once per scrape.
   */
  private alreadySent(device: SeriesDevice, memoryTotalMiB: number | undefined): boolean {
    const previous = this.sent.get(device.key);
    return previous !== undefined && !addsNews(previous, device, memoryTotalMiB);
  }

  private refOf(device: SeriesDevice): DeviceRef {
    let ref = this.refs.get(device.key);
    if (ref === undefined) {
      ref = Object.freeze({ ...device.ref });
      this.refs.set(device.key, ref);
    }
    return ref;
  }

  private report(key: string, info: DeviceInfo): void {
    const previous = this.sent.get(key);
    if (previous !== undefined && !addsNews(previous, info, info.memoryTotalMiB)) return;
    const merged: DeviceInfo = { ...previous, ...info };
    this.sent.set(key, merged);
    this.sink.device(merged);
  }
}

function inventoryOf(device: SeriesDevice, ref: DeviceRef, extra: Partial<DeviceInfo>): DeviceInfo {
  const info = { ref, model: device.model, driverVersion: device.driverVersion, migProfile: device.migProfile, ...extra };
  return Object.fromEntries(Object.entries(info).filter(([, value]) => value !== undefined)) as unknown as DeviceInfo;
}

/**
 * Whether inventory described by `described` (a DeviceInfo, or the SeriesDevice it would be
 * built from) with `memoryTotalMiB` tells more than `previous`: a descriptive field it has
 * that differs, or the first framebuffer total. The total is derived per scrape from parts
 * rounded to the MiB, so it can wobble by one: it is news only the first time. The fields are
 * written out rather than looped over: loads by a key that varies miss V8's inline caches,
 * which cost some 35 ns per device and scrape here, a tenth of what a ScrapeBatch spends on a
 * device's ten series and its flush.
 */
function addsNews(previous: DeviceInfo, described: Described, memoryTotalMiB: number | undefined): boolean {
  if (previous.memoryTotalMiB === undefined && memoryTotalMiB !== undefined) return true;
  return differs(described.model, previous.model)
    || differs(described.driverVersion, previous.driverVersion)
    || differs(described.migProfile, previous.migProfile)
    || differs(described.migMode, previous.migMode);
}

/** A value that is there and is not the one sent. */
function differs<T>(value: T | undefined, sent: T | undefined): boolean {
  return value !== undefined && value !== sent;
}

/**
 * The devices of one DCGM input: one shared, frozen DeviceRef per device, and DeviceInfo
 * sent when it says something the sink has not heard ("later values fill gaps"). Memory
 * grows with devices, never with samples.
 */
import type { DeviceInfo, DeviceRef, ObservationSink } from '../../model/observations.js';
import { migParent } from './labels.js';
import type { SeriesDevice } from './labels.js';

/** Inventory fields whose change is news; memoryTotalMiB only fills a gap (see addsNews). */
const DESCRIPTIVE_FIELDS = ['model', 'driverVersion', 'migProfile', 'migMode'] as const;

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
    if (previous === undefined) return false;
    if (previous.memoryTotalMiB === undefined && memoryTotalMiB !== undefined) return false;
    return (device.model === undefined || device.model === previous.model)
      && (device.driverVersion === undefined || device.driverVersion === previous.driverVersion)
      && (device.migProfile === undefined || device.migProfile === previous.migProfile);
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
    if (previous !== undefined && !addsNews(previous, info)) return;
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
 * The total framebuffer is derived per scrape from parts rounded to the MiB, so it can
 * wobble by one: it is news only the first time.
 */
function addsNews(previous: DeviceInfo, info: DeviceInfo): boolean {
  if (previous.memoryTotalMiB === undefined && info.memoryTotalMiB !== undefined) return true;
  return DESCRIPTIVE_FIELDS.some((field) => info[field] !== undefined && info[field] !== previous[field]);
}

/**
 * The report entry of one device from its closed figures (DESIGN.md section 5).
 *
 * Timed figures win: a device with any weighted time takes every statistic from it. A device
 * seen only in readings without duration (no timestamp, or one lone snapshot) takes them from
 * those point values, each reading counting once; its time-based figures (gpuHours,
 * idleHours) are 0 and its idleFraction is the share of readings that were idle.
 *
 * idleFraction = idle time / time in which the basis signal was read; idleHours is that idle
 * time itself, so a signal missing from some samples never invents idle hours.
 */
import { MS_PER_HOUR } from '../model/index.js';
import type { DeviceInfo } from '../model/index.js';
import type { GpuEntry, ProcessSummary } from '../model/index.js';
import { chooseComputeBasis } from './compute-ladder.js';
import type { ActivityProfile } from './activity-profile.js';
import type { FigureAccumulator } from './figure-accumulator.js';
import type { BoardIdentity } from './identity.js';
import { IsoTimes } from './iso-time.js';
import { pcieLinkOf } from './pcie-link.js';

export type DeviceInventory = Partial<Omit<DeviceInfo, 'ref'>>;

/** Inventory facts without a report field, kept beside the profile. */
export interface DeviceFacts {
  /** `pci_device_id` as printed (`20B010DE`); a MIG device has its parent's. */
  pciDeviceId: string | null;
  driverVersion: string | null;
  architecture: string | null;
  /** Streaming multiprocessors of a MIG device. */
  multiprocessorCount: number | null;
}

export interface DeviceFigures {
  id: string;
  board: BoardIdentity;
  /** Set for a MIG device. */
  gpuInstanceId: number | undefined;
  /** For a MIG device: its parent's entry. */
  parent: GpuEntry | null;
  hasMigDevices: boolean;
  inventory: DeviceInventory;
  timed: FigureAccumulator;
  /** Timeline and hour-of-week of the timed samples; null without any. */
  activity: ActivityProfile | null;
  points: FigureAccumulator;
  samples: number;
  firstTimeMs: number | null;
  lastTimeMs: number | null;
  processes: ProcessSummary[];
}

/** One memo per field: consecutive devices mostly share their first (and their last) sample time. */
const FIRST_SEEN = new IsoTimes();
const LAST_SEEN = new IsoTimes();

function isoTime(ms: number | null, memo: IsoTimes): string | null {
  return ms === null ? null : memo.of(ms);
}

export function buildGpuEntry(device: DeviceFigures): GpuEntry {
  const isMigDevice = device.gpuInstanceId !== undefined;
  const timedMs = device.timed.weight;
  const figures = timedMs > 0 ? device.timed : device.points;

  const computeBasis = chooseComputeBasis((basis) => figures.idleTally(basis).observedWeight > 0, isMigDevice);
  const tally = computeBasis === 'unknown' ? null : figures.idleTally(computeBasis);
  const idleFraction = tally === null ? null : tally.idleWeight / tally.observedWeight;
  const idleHours = tally === null || timedMs <= 0 ? 0 : tally.idleWeight / MS_PER_HOUR;

  // Point values have no time to put in buckets: a device without timed weight has neither.
  const activity = timedMs > 0 && device.activity !== null
    ? device.activity.reportFields(computeBasis)
    : { timeline: null, computeSeries: null, hourOfWeekComputePct: null };

  const memoryUsedMiB = figures.memoryUsedStats();
  const memoryTotalMiB = device.inventory.memoryTotalMiB ?? device.timed.memoryTotalMiB() ?? device.points.memoryTotalMiB();
  const vramHeadroomMiB = memoryTotalMiB === null || memoryUsedMiB === null ? null : memoryTotalMiB - memoryUsedMiB.max;
  const vramHeadroomPct = vramHeadroomMiB === null || memoryTotalMiB === null || memoryTotalMiB <= 0 ? null : (vramHeadroomMiB / memoryTotalMiB) * 100;

  return {
    id: device.id,
    host: device.board.host,
    // A MIG device shares its parent's board, so it reports the parent's index, uuid and PCI id.
    index: device.board.index ?? null,
    uuid: device.board.uuid ?? null,
    pciBusId: device.board.pciBusId ?? null,
    model: device.inventory.model ?? device.parent?.model ?? null,
    modelKey: 'unknown',
    memoryTotalMiB,
    migMode: device.inventory.migMode ?? (device.hasMigDevices ? 'enabled' : null),
    parentId: device.parent?.id ?? null,
    migProfile: device.inventory.migProfile ?? null,
    instanceType: null,
    instanceTypeBasis: null,
    utilization: figures.percentStats('utilizationPct'),
    smActive: figures.percentStats('smActivePct'),
    tensorActive: figures.percentStats('tensorActivePct'),
    grEngineActive: figures.percentStats('grEngineActivePct'),
    computeBasis,
    memoryUsedMiB,
    vramHeadroomMiB,
    vramHeadroomPct,
    idleFraction,
    idleHours,
    gpuHours: timedMs > 0 ? timedMs / MS_PER_HOUR : 0,
    samples: device.samples,
    firstSeen: isoTime(device.firstTimeMs, FIRST_SEEN),
    lastSeen: isoTime(device.lastTimeMs, LAST_SEEN),
    processes: device.processes,
    hourlyCostUsd: null,
    timeline: activity.timeline,
    computeSeries: activity.computeSeries,
    hourOfWeekComputePct: activity.hourOfWeekComputePct,
    pcieRxMiBps: figures.pcieStats('pcieRxKiBps'),
    pcieTxMiBps: figures.pcieStats('pcieTxKiBps'),
    // PCIe belongs to the board: a MIG device shows its parent's link.
    pcieLink: pcieLinkOf(device.inventory.pcieLinkMaxGeneration, device.inventory.pcieLinkMaxWidth) ?? device.parent?.pcieLink ?? null,
  };
}

/**
 * Device identity for row-oriented logs. A looped log names the same few GPUs on every
 * row; building a fresh DeviceRef and re-sending unchanged inventory per row would cost
 * an allocation and a sink call each for nothing. Memory here grows with devices, never
 * with rows.
 */
import type { DeviceInfo, DeviceRef, ObservationSink } from '../../../model/index.js';
import { RingSlots } from './ring-slots.js';

/** Enough for the GPUs of one host (8 boards, or 7 MIG instances each on a few). */
const RECENT_REFS = 32;

/** One shared, frozen DeviceRef per (uuid, bus id, index) seen on a host. */
export class DeviceRefs {
  // Nested maps rather than a joined string key: no string is built per row.
  private readonly byUuid = new Map<string | undefined, Map<string | undefined, Map<number | undefined, DeviceRef>>>();
  /**
   * The refs handed out last, compared before the maps: the GPUs of a `-l` log come round in
   * the same order every tick, and RingSlots starts from the one after the last hit, so the
   * first comparison usually hits.
   */
  private readonly recent: DeviceRef[] = [];
  private readonly recentSlots = new RingSlots(RECENT_REFS);

  constructor(private readonly host: string) {}

  get(uuid: string | undefined, pciBusId: string | undefined, index: number | undefined): DeviceRef {
    const { recent, recentSlots } = this;
    for (let slot = recentSlots.firstProbe(); slot !== -1; slot = recentSlots.nextProbe(slot)) {
      const ref = recent[slot]!;
      if (ref.uuid === uuid && ref.pciBusId === pciBusId && ref.index === index) {
        recentSlots.hit(slot);
        return ref;
      }
    }
    const ref = this.lookUp(uuid, pciBusId, index);
    recent[recentSlots.store()] = ref;
    return ref;
  }

  private lookUp(uuid: string | undefined, pciBusId: string | undefined, index: number | undefined): DeviceRef {
    let byBus = this.byUuid.get(uuid);
    if (byBus === undefined) this.byUuid.set(uuid, (byBus = new Map()));
    let byIndex = byBus.get(pciBusId);
    if (byIndex === undefined) byBus.set(pciBusId, (byIndex = new Map()));
    let ref = byIndex.get(index);
    if (ref === undefined) {
      const fresh: DeviceRef = { host: this.host };
      if (uuid !== undefined) fresh.uuid = uuid;
      if (pciBusId !== undefined) fresh.pciBusId = pciBusId;
      if (index !== undefined) fresh.index = index;
      ref = Object.freeze(fresh);
      byIndex.set(index, ref);
    }
    return ref;
  }
}

/** The inventory fields a text source can know. */
const INFO_FIELDS = ['model', 'memoryTotalMiB', 'migMode', 'pciDeviceId', 'driverVersion', 'pcieLinkMaxGeneration', 'pcieLinkMaxWidth'] as const;

export type InventoryFacts = { [Field in (typeof INFO_FIELDS)[number]]?: DeviceInfo[Field] };

const NO_FACTS: InventoryFacts = Object.freeze({});

/**
 * Sends DeviceInfo to the sink the first time a device is seen and again only when one of
 * its inventory fields changes (ObservationSink: "a source may send them once or with
 * every document; later values fill gaps"). Refs must come from one DeviceRefs.
 */
export class DeviceInventory {
  private readonly lastSent = new Map<DeviceRef, DeviceInfo>();

  constructor(private readonly sink: ObservationSink) {}

  /** `facts` may be a reused row object: it is copied, never kept. */
  report(ref: DeviceRef, facts: InventoryFacts = NO_FACTS): void {
    const previous = this.lastSent.get(ref);
    if (previous !== undefined && sameFacts(previous, facts)) return;
    const info: DeviceInfo = { ref };
    for (const field of INFO_FIELDS) {
      if (facts[field] !== undefined) Object.assign(info, { [field]: facts[field] });
    }
    this.lastSent.set(ref, info);
    this.sink.device(info);
  }
}

/** Written out rather than a loop over INFO_FIELDS: this runs once per row of a log. */
function sameFacts(previous: InventoryFacts, facts: InventoryFacts): boolean {
  return previous.model === facts.model
    && previous.memoryTotalMiB === facts.memoryTotalMiB
    && previous.migMode === facts.migMode
    && previous.pciDeviceId === facts.pciDeviceId
    && previous.driverVersion === facts.driverVersion
    && previous.pcieLinkMaxGeneration === facts.pcieLinkMaxGeneration
    && previous.pcieLinkMaxWidth === facts.pcieLinkMaxWidth;
}

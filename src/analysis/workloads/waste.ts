/**
 * What a workload costs and wastes per hour (the report's methodology states the same):
 *
 *   hourly        = sum over its devices of device hourly cost x share
 *   idle waste    = sum over its devices of device hourly cost x share x idle fraction
 *   VRAM waste    = sum over devices it holds alone of
 *                   device hourly cost x (1 - idle fraction) x max(0, 1 - requiredMiB / device memory)
 *   waste         = idle waste + VRAM waste
 *
 * Idle time is paid in full as idle waste, so the VRAM term counts busy time only and the two
 * never charge the same hour twice. The VRAM term is the part of the price that pays for memory
 * the workload does not need; a shared device is already being shared, so it adds none. A device
 * without a price makes the workload's figures null rather than a partial sum; a device whose
 * idleness is unknown adds no idle waste.
 */
import type { VramProfile } from '../../model/index.js';
import type { WorkloadDeviceSlice } from './vram.js';

export interface WorkloadWaste {
  hourlyUsd: number | null;
  idleHourlyUsd: number | null;
  vramOverprovisionHourlyUsd: number | null;
}

export function workloadWaste(slices: readonly WorkloadDeviceSlice[], vram: VramProfile, hourlyCostOf: (deviceId: string) => number | null): WorkloadWaste {
  if (slices.length === 0) return { hourlyUsd: null, idleHourlyUsd: null, vramOverprovisionHourlyUsd: null };
  let hourlyUsd = 0;
  let idleHourlyUsd = 0;
  let vramOverprovisionHourlyUsd = 0;
  for (const { assignment, claim } of slices) {
    const cost = hourlyCostOf(assignment.device.id);
    if (cost === null) return { hourlyUsd: null, idleHourlyUsd: null, vramOverprovisionHourlyUsd: null };
    const idle = assignment.device.idleFraction;
    hourlyUsd += cost * claim.share;
    idleHourlyUsd += cost * claim.share * (idle ?? 0);
    const capacity = assignment.device.memoryTotalMiB;
    if (assignment.claims.length === 1 && vram.requiredMiB !== null && capacity !== null && capacity > 0) {
      vramOverprovisionHourlyUsd += cost * (1 - (idle ?? 0)) * Math.max(0, 1 - vram.requiredMiB / capacity);
    }
  }
  return { hourlyUsd, idleHourlyUsd, vramOverprovisionHourlyUsd };
}

/**
 * A workload's VRAM profile (DESIGN.md section 5), per GPU:
 *
 *  - measured, per device: the device's memory used (max and p95) where the workload holds it
 *    alone; on a shared device, the sum of the largest memory each of its processes held
 *    there (an upper bound: those maxima need not coincide), with no p95.
 *    peakMiB / p95MiB = the largest over the workload's devices.
 *  - need = declared (vramMiB) where given, else the model estimate (./vram-estimate.ts).
 *  - required = max(measured peak, need) x (1 + headroom). A preallocating server's measured
 *    memory is what it reserved, not what it needs: then required = need x (1 + headroom)
 *    where a need is known (basis declared/estimated), else peak x (1 + headroom) with basis
 *    `upper-bound`.
 */
import type { ProcessSummary, VramProfile } from '../../model/report.js';
import type { DeviceClaim, DeviceAssignment } from './match.js';
import { detectPreallocation } from './preallocation.js';
import type { WorkloadDefinition } from './types.js';
import { estimateVram } from './vram-estimate.js';

export interface WorkloadDeviceSlice {
  assignment: DeviceAssignment;
  claim: DeviceClaim;
}

function sumMemory(processes: readonly ProcessSummary[]): number | null {
  const known = processes.map((process) => process.maxMemoryMiB).filter((memory): memory is number => memory !== null);
  return known.length === 0 ? null : known.reduce((total, memory) => total + memory, 0);
}

function measuredOn({ assignment, claim }: WorkloadDeviceSlice): { peak: number | null; p95: number | null } {
  const memory = assignment.device.memoryUsedMiB;
  if (assignment.claims.length === 1) return { peak: memory?.max ?? sumMemory(claim.processes), p95: memory?.p95 ?? null };
  return { peak: sumMemory(claim.processes), p95: null };
}

const largest = (values: readonly (number | null)[]): number | null => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : Math.max(...known);
};

export function workloadVram(definition: WorkloadDefinition | undefined, slices: readonly WorkloadDeviceSlice[], headroomPct: number): VramProfile {
  const measured = slices.map(measuredOn);
  const peakMiB = largest(measured.map((figure) => figure.peak));
  const p95MiB = largest(measured.map((figure) => figure.p95));
  const processNames = slices.flatMap(({ claim }) => claim.processes.map((process) => process.name));
  const preallocation = detectPreallocation(processNames, definition?.preallocates);
  const estimate = definition?.model === undefined ? null : estimateVram(definition.model);
  const declaredMiB = definition?.vramMiB ?? null;
  const need = declaredMiB !== null ? { mib: declaredMiB, basis: 'declared' as const } : estimate !== null ? { mib: estimate.totalMiB, basis: 'estimated' as const } : null;
  const factor = 1 + headroomPct / 100;

  let requiredMiB: number | null = null;
  let basis: VramProfile['basis'] = 'unknown';
  if (preallocation.preallocating) {
    if (need !== null) [requiredMiB, basis] = [need.mib * factor, need.basis];
    else if (peakMiB !== null) [requiredMiB, basis] = [peakMiB * factor, 'upper-bound'];
  } else if (peakMiB !== null && (need === null || peakMiB >= need.mib)) {
    [requiredMiB, basis] = [peakMiB * factor, 'measured'];
  } else if (need !== null) {
    [requiredMiB, basis] = [need.mib * factor, need.basis];
  }

  return {
    peakMiB,
    p95MiB,
    requiredMiB,
    basis,
    preallocating: preallocation.preallocating,
    preallocatingServer: preallocation.server,
    declaredMiB,
    estimate,
    headroomPct,
  };
}

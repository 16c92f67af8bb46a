/**
 * A workload's VRAM profile (DESIGN.md section 5), per GPU:
 *
 *  - measured, per device: the device's memory used (max and p95) where the workload holds it
 *    alone, or where every process on it is the workload's (other claimants hold it by host,
 *    id or pod, with no process there); on a device whose processes belong to several
 *    workloads, the sum of the largest memory each of its processes held there, capped by the
 *    device's own peak (the workload never holds more than the device had in use), with no
 *    p95. A sum of two or more processes' maxima is an upper bound (they need not coincide).
 *    peakMiB / p95MiB = the largest over the workload's devices.
 *  - need = declared (vramMiB) where given, else the model estimate (./vram-estimate.ts).
 *  - required = max(measured peak, need) x (1 + headroom). A preallocating server's measured
 *    memory is what it reserved, not what it needs: then required = need x (1 + headroom)
 *    where a need is known (basis declared/estimated), else peak x (1 + headroom) with basis
 *    `upper-bound`. A required figure taken from a peak that is an upper bound has basis
 *    `upper-bound` too.
 */
import type { ProcessSummary, VramProfile } from '../../model/index.js';
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

interface MeasuredPeak {
  peak: number | null;
  p95: number | null;
  /** The peak is a sum of several processes' maxima, not a reading. */
  upperBound: boolean;
}

function processSum(processes: readonly ProcessSummary[], deviceMaxMiB: number | undefined): MeasuredPeak {
  const sum = sumMemory(processes);
  const known = processes.filter((process) => process.maxMemoryMiB !== null).length;
  if (sum === null) return { peak: null, p95: null, upperBound: false };
  if (deviceMaxMiB !== undefined && deviceMaxMiB <= sum) return { peak: deviceMaxMiB, p95: null, upperBound: true };
  return { peak: sum, p95: null, upperBound: known > 1 };
}

function measuredOn({ assignment, claim }: WorkloadDeviceSlice): MeasuredPeak {
  const memory = assignment.device.memoryUsedMiB;
  const ownsEveryProcess = claim.processes.length > 0 && assignment.claims.every((other) => other === claim || other.processes.length === 0);
  if (memory !== null && (assignment.claims.length === 1 || ownsEveryProcess)) return { peak: memory.max, p95: memory.p95, upperBound: false };
  return processSum(claim.processes, memory?.max);
}

const largest = (values: readonly (number | null)[]): number | null => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : Math.max(...known);
};

export function workloadVram(definition: WorkloadDefinition | undefined, slices: readonly WorkloadDeviceSlice[], headroomPct: number): VramProfile {
  const measured = slices.map(measuredOn);
  const peakMiB = largest(measured.map((figure) => figure.peak));
  // The peak is an upper bound when the device that sets it has only a bound there.
  const peakIsUpperBound = peakMiB !== null && measured.filter((figure) => figure.peak === peakMiB).every((figure) => figure.upperBound);
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
    [requiredMiB, basis] = [peakMiB * factor, peakIsUpperBound ? 'upper-bound' : 'measured'];
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

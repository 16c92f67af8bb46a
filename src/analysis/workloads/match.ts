/**
 * Which workload each device belongs to. Pure: report GPU entries and workload definitions in,
 * assignments out.
 *
 * The units are the devices work runs on: physical GPUs without MIG devices, and MIG devices.
 * A MIG-enabled board is not assigned itself; its instances are (its cost reaches them through
 * ./cost.ts).
 *
 * A workload claims a device when any one of its rules matches there:
 *  - `process`: a process on the device whose name the regular expression finds;
 *  - `gpus`: the device's report id, or its board's UUID (a board claims all its MIG devices);
 *  - `hosts`: a glob matching the device's host;
 *  - the pod selector (pod, namespace, container, labels; all that are given must match): a
 *    container seen on the device.
 * Processes belong to the first workload (config order) whose `process` rule finds them; the
 * other processes of a device go to the first workload that claimed the device by id, host or
 * pod. A process no workload takes, or a device no workload claims, goes to `unassigned`:
 * nothing is dropped.
 *
 * A device claimed by more than one workload (unassigned included) is shared: each holds a
 * share of its hours and cost, in proportion to the largest memory its processes held there
 * when every claimant has processes with known memory, else equally.
 */
import type { GpuEntry, ProcessSummary } from '../../model/index.js';
import { matchesGlob } from './glob.js';
import type { PodOnDevice } from '../../model/index.js';
import type { WorkloadDefinition, WorkloadMatchRules } from './types.js';

export const UNASSIGNED = 'unassigned';

export type ShareBasis = 'whole' | 'process-memory' | 'equal';

export interface DeviceClaim {
  workload: string;
  /** The device's processes that belong to this workload. */
  processes: ProcessSummary[];
  /** Share of the device's hours and cost, 0-1. */
  share: number;
}

export interface DeviceAssignment {
  device: GpuEntry;
  /** In config order, `unassigned` last. */
  claims: DeviceClaim[];
  shareBasis: ShareBasis;
}

/** Devices work is assigned to: GPUs without MIG devices, and MIG devices. */
export function assignableDevices(gpus: readonly GpuEntry[]): GpuEntry[] {
  const parents = new Set(gpus.map((gpu) => gpu.parentId).filter((id): id is string => id !== null));
  return gpus.filter((gpu) => !parents.has(gpu.id));
}

function hasPodSelector(rules: WorkloadMatchRules): boolean {
  return rules.pod !== undefined || rules.namespace !== undefined || rules.container !== undefined || rules.labels !== undefined;
}

export function podMatches(rules: WorkloadMatchRules, pod: PodOnDevice): boolean {
  if (!hasPodSelector(rules)) return false;
  if (rules.pod !== undefined && !matchesGlob(rules.pod, pod.pod)) return false;
  if (rules.namespace !== undefined && !matchesGlob(rules.namespace, pod.namespace)) return false;
  if (rules.container !== undefined && (pod.container === undefined || !matchesGlob(rules.container, pod.container))) return false;
  for (const [label, value] of Object.entries(rules.labels ?? {})) {
    if (pod.labels?.[label] !== value) return false;
  }
  return true;
}

/** Whether the workload claims the device by id, host or pod (the rules that take a whole device). */
function claimsWholeDevice(rules: WorkloadMatchRules, device: GpuEntry, pods: readonly PodOnDevice[]): boolean {
  if (rules.gpus?.some((id) => id === device.id || (device.uuid !== null && id === device.uuid))) return true;
  if (rules.hosts?.some((glob) => matchesGlob(glob, device.host))) return true;
  return pods.some((pod) => podMatches(rules, pod));
}

function shareClaims(claims: { workload: string; processes: ProcessSummary[] }[]): { claims: DeviceClaim[]; basis: ShareBasis } {
  if (claims.length === 1) return { claims: [{ ...claims[0]!, share: 1 }], basis: 'whole' };
  const memory = claims.map((claim) => claim.processes.reduce((sum, process) => sum + (process.maxMemoryMiB ?? Number.NaN), 0));
  const total = memory.reduce((sum, value) => sum + value, 0);
  const byMemory = claims.every((claim) => claim.processes.length > 0) && Number.isFinite(total) && total > 0;
  return {
    claims: claims.map((claim, index) => ({ ...claim, share: byMemory ? memory[index]! / total : 1 / claims.length })),
    basis: byMemory ? 'process-memory' : 'equal',
  };
}

export function assignDevices(
  gpus: readonly GpuEntry[],
  workloads: readonly WorkloadDefinition[],
  podsByDevice: ReadonlyMap<string, readonly PodOnDevice[]> = new Map(),
): DeviceAssignment[] {
  const patterns = workloads.map((workload) => (workload.match.process === undefined ? undefined : new RegExp(workload.match.process)));
  return assignableDevices(gpus).map((device) => {
    const pods = podsByDevice.get(device.id) ?? [];
    const processesOf = new Map<string, ProcessSummary[]>();
    const leftover: ProcessSummary[] = [];
    for (const process of device.processes) {
      const owner = workloads.find((_, index) => patterns[index]?.test(process.name) === true);
      if (owner === undefined) leftover.push(process);
      else processesOf.set(owner.name, [...(processesOf.get(owner.name) ?? []), process]);
    }
    const wholeDeviceOwner = workloads.find((workload) => claimsWholeDevice(workload.match, device, pods));
    if (wholeDeviceOwner !== undefined) {
      processesOf.set(wholeDeviceOwner.name, [...(processesOf.get(wholeDeviceOwner.name) ?? []), ...leftover]);
      leftover.length = 0;
    }
    const claims = workloads
      .filter((workload) => processesOf.has(workload.name) || claimsWholeDevice(workload.match, device, pods))
      .map((workload) => ({ workload: workload.name, processes: processesOf.get(workload.name) ?? [] }));
    if (leftover.length > 0 || claims.length === 0) claims.push({ workload: UNASSIGNED, processes: leftover });
    const shared = shareClaims(claims);
    return { device, claims: shared.claims, shareBasis: shared.basis };
  });
}

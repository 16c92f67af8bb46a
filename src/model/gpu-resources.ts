/**
 * Which extended resources are GPUs. The NVIDIA device plugin advertises whole GPUs as
 * `nvidia.com/gpu`; with time-slicing or MPS and `renameByDefault: true` as
 * `nvidia.com/gpu.shared`; under the `mixed` MIG strategy each MIG profile as
 * `nvidia.com/mig-<profile>` (`nvidia.com/mig-1g.10gb`). Every one of them is a device a
 * container holds exclusively (a shared replica is still one slot of the node's capacity).
 */

const WHOLE_GPU_RESOURCES: readonly string[] = ['nvidia.com/gpu', 'nvidia.com/gpu.shared'];
const MIG_RESOURCE = /^nvidia\.com\/mig-(.+)$/u;

export function isGpuResource(name: string): boolean {
  return WHOLE_GPU_RESOURCES.includes(name) || MIG_RESOURCE.test(name);
}

/** The MIG profile (`1g.10gb`) a `nvidia.com/mig-*` resource names; undefined for other resources. */
export function migProfileOfResource(name: string): string | undefined {
  return MIG_RESOURCE.exec(name)?.[1];
}

/** Devices in a map of GPU resources: every resource's count, summed. */
export function deviceCount(resources: Readonly<Record<string, number>>): number {
  return Object.values(resources).reduce((sum, count) => sum + count, 0);
}

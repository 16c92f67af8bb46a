/**
 * A Node object read into NodeInfo: the instance type label, the labels GPU feature discovery
 * (GFD, part of the NVIDIA GPU Operator and device plugin) puts on GPU nodes, and capacity.
 */
import { isGpuResource } from '../../../model/index.js';
import { type JsonObject, objectAt, objectName, stringMapAt } from './json-fields.js';
import { cpuCores, memoryMiB, parseQuantity } from './quantity.js';
import type { NodeInfo } from '../../../model/index.js';
import type { Warn } from './pods.js';

/** Best first: the GA label, then the one deprecated in Kubernetes 1.17 that older nodes still carry. */
const INSTANCE_TYPE_LABELS = ['node.kubernetes.io/instance-type', 'beta.kubernetes.io/instance-type'] as const;

/** GFD labels (github.com/NVIDIA/gpu-feature-discovery, README "Generated Labels"). */
const GFD = {
  product: 'nvidia.com/gpu.product',
  count: 'nvidia.com/gpu.count',
  /** MiB per GPU. */
  memory: 'nvidia.com/gpu.memory',
  migStrategy: 'nvidia.com/mig.strategy',
} as const;

const WHOLE_NUMBER = /^\d+$/u;

function wholeNumberLabel(labels: Readonly<Record<string, string>>, name: string, warn: Warn): number | undefined {
  const text = labels[name];
  if (text === undefined) return undefined;
  if (!WHOLE_NUMBER.test(text)) {
    warn(`label ${name}=${JSON.stringify(text)} is not a whole number; left out`);
    return undefined;
  }
  return Number(text);
}

function gpuResources(list: JsonObject | undefined): Record<string, number> {
  const found: Record<string, number> = {};
  for (const [name, raw] of Object.entries(list ?? {})) {
    const count = isGpuResource(name) ? parseQuantity(raw) : undefined;
    if (count !== undefined) found[name] = count;
  }
  return found;
}

/** Reads a Node object; undefined (with a warning) when it has no name. */
export function readNode(object: JsonObject, warn: Warn): NodeInfo | undefined {
  const metadata = objectAt(object, 'metadata');
  const name = objectName(metadata, 'Node', warn);
  if (name === undefined) return undefined;
  const nodeWarn: Warn = (message) => warn(`node ${name}: ${message}`);
  const labels = stringMapAt(metadata, 'labels');
  const status = objectAt(object, 'status');
  const allocatable = objectAt(status, 'allocatable');
  return {
    name,
    labels,
    instanceType: INSTANCE_TYPE_LABELS.map((label) => labels[label]).find((value) => value !== undefined && value !== ''),
    gpuProduct: labels[GFD.product] === '' ? undefined : labels[GFD.product],
    gpuCount: wholeNumberLabel(labels, GFD.count, nodeWarn),
    gpuMemoryMiB: wholeNumberLabel(labels, GFD.memory, nodeWarn),
    migStrategy: labels[GFD.migStrategy] === '' ? undefined : labels[GFD.migStrategy],
    gpuCapacity: gpuResources(objectAt(status, 'capacity')),
    gpuAllocatable: gpuResources(allocatable),
    cpuAllocatableCores: cpuCores(allocatable?.['cpu']),
    memoryAllocatableMiB: memoryMiB(allocatable?.['memory']),
  };
}

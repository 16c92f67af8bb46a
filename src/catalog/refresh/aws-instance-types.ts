/**
 * One `DescribeInstanceTypes` item -> one catalog `InstanceType` (prices left empty; the
 * price steps fill them). Pure: the SDK types are used for their shape only.
 */
import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import type { InstanceType } from '../../model/index.js';
import { awsGpuProductName } from './gpu-names.js';
import { tableBasisMiB, UNKNOWN_GPU_KEY, type GpuLookup } from './gpu-lookup.js';

export interface MappedInstance {
  instance: InstanceType;
  /** The API's name of a GPU the GPU table lacks (the summary groups these by GPU). */
  unknownGpu?: string;
  /** Anything else worth telling, for the refresh summary. */
  notice?: string;
}

const MIB_PER_GIB = 1024;

/** "25 Gigabit", "Up to 25 Gigabit", "3200 Gigabit"; older words ("Moderate", "High") carry no number. */
const GIGABIT_PATTERN = /^(?:up to\s+)?(\d+(?:\.\d+)?)\s*gigabit$/i;

/**
 * Network bandwidth in Gbps: the headline figure AWS prints (the bundled snapshot uses the
 * same), else the sum of the network cards' peak bandwidth, else unknown.
 */
export function networkGbpsOf(info: InstanceTypeInfo): number | null {
  const headline = info.NetworkInfo?.NetworkPerformance?.trim() ?? '';
  const match = GIGABIT_PATTERN.exec(headline);
  if (match?.[1] !== undefined) return Number(match[1]);
  const cards = info.NetworkInfo?.NetworkCards ?? [];
  const peaks = cards.map((card) => card.PeakBandwidthInGbps).filter((value): value is number => typeof value === 'number');
  return peaks.length > 0 ? peaks.reduce((sum, value) => sum + value, 0) : null;
}

/** Whether the item describes a GPU instance at all (DescribeInstanceTypes has no GPU filter). */
export function hasGpus(info: InstanceTypeInfo): boolean {
  return (info.GpuInfo?.Gpus?.length ?? 0) > 0;
}

/**
 * Maps a GPU instance type. Fractional types (g6f, gr6f) report `Count` 0 and a partition size
 * below 1: they keep gpuCount 0 and the partition, and `MemoryInfo.SizeInMiB` is the slice's
 * memory, so nothing here divides by the count.
 */
export function instanceFromAws(info: InstanceTypeInfo, region: string, sourceTag: string, lookupGpu: GpuLookup): MappedInstance | undefined {
  const name = info.InstanceType;
  const gpus = info.GpuInfo?.Gpus ?? [];
  const gpu = gpus[0];
  if (name === undefined || gpu === undefined) return undefined;

  const manufacturer = gpu.Manufacturer ?? '';
  const apiName = gpu.Name ?? '';
  const vramPerGpuMiB = gpu.MemoryInfo?.SizeInMiB ?? null;
  const productName = awsGpuProductName(manufacturer, apiName, vramPerGpuMiB);
  const table = productName === undefined ? undefined : lookupGpu(productName);
  const gpuModelKey = table?.key ?? UNKNOWN_GPU_KEY;
  const spokenName = `${manufacturer} ${apiName}`.trim();


  const instance: InstanceType = {
    provider: 'aws',
    name,
    region,
    gpuModelKey,
    gpuModelName: productName ?? spokenName,
    gpuCount: gpu.Count ?? 0,
    // Records made before AWS sold partial GPUs carry no partition size: a whole GPU.
    gpuPartitionSize: gpu.GpuPartitionSize ?? 1,
    vramPerGpuMiB: tableBasisMiB(vramPerGpuMiB, table),
    vcpus: info.VCpuInfo?.DefaultVCpus ?? null,
    memoryGiB: info.MemoryInfo?.SizeInMiB === undefined ? null : info.MemoryInfo.SizeInMiB / MIB_PER_GIB,
    networkGbps: networkGbpsOf(info),
    prices: { onDemand: null, spot: null, reserved1y: null, reserved3y: null, savingsPlan1y: null, savingsPlan3y: null, sources: [] },
    sources: [sourceTag],
  };
  return {
    instance,
    ...(gpuModelKey === UNKNOWN_GPU_KEY ? { unknownGpu: spokenName } : {}),
    ...(gpus.length > 1 ? { notice: `${name}: ${gpus.length} kinds of GPU reported; only the first (${spokenName}) is catalogued` } : {}),
  };
}

/**
 * Shapes of the catalog's own data tables. Each extends a model contract
 * (src/model/catalog.ts) with what the tables keep beside a value: a note that
 * qualifies it, the confidence of the names, the key in the source's scheme.
 * Anything typed as the model contract accepts these records unchanged.
 */
import type { Confidence, GpuModelSpec, InstanceType, SourcedValue } from '../model/index.js';

/** A sourced value plus the reference's own qualifier, e.g. "datasheet 2 TB/s". */
export interface NotedValue<T = number> extends SourcedValue<T> {
  note?: string;
}

export interface GpuSpecRecord extends GpuModelSpec {
  vramMiB: NotedValue | null;
  memoryBandwidthGBps: NotedValue | null;
  bf16DenseTflops: NotedValue | null;
  fp16DenseTflops: NotedValue | null;
  fp32Tflops: NotedValue | null;
  tdpW: NotedValue | null;
  /** How sure the reference is of `productNames` (V100 PCIe names are assumed from the SXM2 pattern). */
  productNamesCheck: Confidence;
  /** Memory as marketed ("80" for an H100 80GB); clouds label GPUs this way. */
  vramMarketingGB: NotedValue | null;
  smCount: NotedValue | null;
  computeCapability: string | null;
  memoryType: string | null;
  notes: string[];
}

/** Memory of a MIG GPU instance as `nvidia-smi mig -lgip` prints it; it varies a little by driver. */
export interface MigMemoryGiB {
  min: number;
  max: number;
}

export interface MigProfile {
  /** GPU-instance profile name, e.g. `3g.40gb`, `1g.10gb+me`. */
  name: string;
  giProfileId: number | null;
  computeSlices: number;
  memorySlices: number;
  memoryGiB: MigMemoryGiB | null;
  /** Lower bound of `memoryGiB` in MiB (derived: min GiB x 1024), null where lgip was not captured. */
  memoryMiB: number | null;
  /** The marketing size in the profile name (`3g.40gb` -> 40); the name is the identifier. */
  nominalMemoryGB: number;
  smCount: number | null;
  maxInstances: number;
  /** Memory slots an instance of this profile may start at. */
  placementStarts: number[];
  /** Memory slots it occupies from its start. */
  placementSizeSlots: number;
  /** Includes media engines (`+me`): at most one such instance per GPU. */
  mediaExtensions: boolean;
  sources: string[];
  note?: string;
}

export interface MigGpuTable {
  /** Key in mig-profiles.json, e.g. `A100-80GB`; one table can serve several GPU models. */
  key: string;
  productNames: string[];
  /** As the reference lists them, e.g. `0x20B210DE (A100-SXM4-80GB)`. */
  pciDeviceIds: string[];
  computeSlicesTotal: number;
  memorySlicesTotal: number;
  maxGpuInstances: number;
  minDriver: string | null;
  /** false where placements are inferred from the 7-slice family rather than seen in `-lgipp` output. */
  placementsVerified: boolean;
  placementsSource: string;
  profiles: MigProfile[];
  /** mig-parted's named configs for this GPU (`all-1g.10gb`, `all-balanced`): profile -> count. */
  migPartedConfigs: Record<string, Record<string, number>>;
  notes: string[];
}

export interface InstanceRecord extends InstanceType {
  /** The GPU's key in the instance catalog's own scheme, e.g. `H100-SXM-80GB`. */
  gpuCatalogKey: string;
  /** GPU memory as marketed, in GB: the source's label (Azure, GCP), else the GPU table's; null where neither says. */
  vramPerGpuNominalGB: number | null;
  /** "Up to N Gigabit" burst rather than sustained bandwidth; null where unknown. */
  networkUpTo: boolean | null;
  notes: string[];
}

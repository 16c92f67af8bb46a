/**
 * The one place where the three GPU key schemes meet:
 *  - the project's GPU table keys (from reference/gpus.json: `h100-sxm-80gb`), used in reports;
 *  - the instance catalog's keys (catalog/gpu-instances.json: `H100-SXM-80GB`);
 *  - the MIG profile tables' keys (reference/mig-profiles.json: `H100-80GB`).
 * `unknown` is an explicit answer: the GPU is real but the GPU table has no entry for it,
 * or the source does not say which variant it is. The build script and the tests use these
 * tables, so a new key in either source fails loudly instead of silently mapping to nothing.
 */

export const UNKNOWN_GPU_KEY = 'unknown';

/** Instance-catalog GPU key -> GPU table key. Reasons are given for every `unknown`. */
export const INSTANCE_GPU_KEY_TO_MODEL_KEY: Readonly<Record<string, string>> = {
  'T4-16GB': 't4',
  'A10-24GB': 'a10',
  'A10G-24GB': 'a10g',
  'L4-24GB': 'l4',
  'L40S-48GB': 'l40s',
  'V100-SXM2-16GB': 'v100-sxm2-16gb',
  'V100-SXM2-32GB': 'v100-sxm2-32gb',
  'A100-SXM4-40GB': 'a100-sxm4-40gb',
  'A100-SXM4-80GB': 'a100-sxm4-80gb',
  'A100-PCIE-80GB': 'a100-pcie-80gb',
  'H100-SXM-80GB': 'h100-sxm-80gb',
  'H100-NVL': 'h100-nvl-94gb',
  'H200-SXM-141GB': 'h200-sxm-141gb',
  'B200-SXM-180GB': 'b200',
  'MI300X-192GB': 'mi300x',
  // Azure NCv3: the source says "PCIe/SXM2 per Azure docs, not verified"; the two differ in
  // memory and throughput, so picking one would be a guess.
  'V100-16GB': UNKNOWN_GPU_KEY,
  // Not in reference/gpus.json: no verified specs to attach.
  'T4G-16GB': UNKNOWN_GPU_KEY,
  'RTXPRO4500-32GB': UNKNOWN_GPU_KEY,
  'RTXPRO6000S-96GB': UNKNOWN_GPU_KEY,
  'B300-SXM-268GB': UNKNOWN_GPU_KEY,
  'V520-8GB': UNKNOWN_GPU_KEY,
};

/** GPU table key -> MIG profile table key, for every MIG-capable GPU in the table. */
export const MODEL_KEY_TO_MIG_TABLE: Readonly<Record<string, string>> = {
  a30: 'A30-24GB',
  'a100-pcie-40gb': 'A100-40GB',
  'a100-sxm4-40gb': 'A100-40GB',
  'a100-pcie-80gb': 'A100-80GB',
  'a100-sxm4-80gb': 'A100-80GB',
  'h100-pcie-80gb': 'H100-PCIe-80GB',
  'h100-sxm-80gb': 'H100-80GB',
  'h100-nvl-94gb': 'H100-NVL-94GB',
  'h200-sxm-141gb': 'H200-141GB',
  'h200-nvl-141gb': 'H200-141GB',
  'gh200-96gb': 'GH200-96GB',
  'gh200-144gb': 'GH200-144GB-HBM3e',
  b200: 'B200-180GB',
  gb200: 'GB200-186GB',
  b300: 'B300-288GB',
  h20: 'H20-96GB',
  'rtx-pro-6000-bse': 'RTX-PRO-6000-96GB',
};

/** The GPU table key for an instance catalog GPU key; `unknown` for a key this table has never seen. */
export function modelKeyForInstanceGpu(instanceGpuKey: string): string {
  return INSTANCE_GPU_KEY_TO_MODEL_KEY[instanceGpuKey] ?? UNKNOWN_GPU_KEY;
}

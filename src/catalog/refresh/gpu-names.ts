/**
 * How cloud APIs name GPUs, translated into the spelling nvidia-smi (or the vendor's tool)
 * prints, which is what the project's GPU table resolves. Data only: a new GPU is a new row.
 *
 * AWS `DescribeInstanceTypes` gives a short name ("H100", "A10G") with manufacturer and
 * per-GPU memory; the memory tells apart models that share a name (A100 40/80 GB, V100
 * 16/32 GB). Azure's Resource SKUs API gives only a GPU count, so the model comes from the
 * SKU name (`Standard_ND96isr_H100_v5`) through a family pattern.
 */

export interface AwsGpuName {
  manufacturer: string;
  /** `GpuDeviceInfo.Name` as the API prints it. */
  apiName: string;
  /** Per-GPU `MemoryInfo.SizeInMiB`, where the name alone is ambiguous. */
  memoryMiB?: number;
  productName: string;
}

/**
 * Names seen in `DescribeInstanceTypes` answers (../shared/corpus/aws: moto's 2026-08 data and
 * the 2020 instance-selector recordings) and the product name nvidia-smi prints for that part
 * (spellings from ../shared/corpus/nvidia-smi-*; parts not in the corpus use NVIDIA's name).
 */
export const AWS_GPU_NAMES: readonly AwsGpuName[] = [
  { manufacturer: 'NVIDIA', apiName: 'H100', productName: 'NVIDIA H100 80GB HBM3' },
  { manufacturer: 'NVIDIA', apiName: 'H200', productName: 'NVIDIA H200' },
  { manufacturer: 'NVIDIA', apiName: 'B200', productName: 'NVIDIA B200' },
  { manufacturer: 'NVIDIA', apiName: 'B300', productName: 'NVIDIA B300' },
  { manufacturer: 'NVIDIA', apiName: 'A100', memoryMiB: 40960, productName: 'NVIDIA A100-SXM4-40GB' },
  { manufacturer: 'NVIDIA', apiName: 'A100', memoryMiB: 81920, productName: 'NVIDIA A100-SXM4-80GB' },
  { manufacturer: 'NVIDIA', apiName: 'A10G', productName: 'NVIDIA A10G' },
  { manufacturer: 'NVIDIA', apiName: 'L4', productName: 'NVIDIA L4' },
  { manufacturer: 'NVIDIA', apiName: 'L40S', productName: 'NVIDIA L40S' },
  { manufacturer: 'NVIDIA', apiName: 'T4', productName: 'Tesla T4' },
  { manufacturer: 'NVIDIA', apiName: 'T4g', productName: 'NVIDIA T4G' },
  { manufacturer: 'NVIDIA', apiName: 'V100', memoryMiB: 16384, productName: 'Tesla V100-SXM2-16GB' },
  { manufacturer: 'NVIDIA', apiName: 'V100', memoryMiB: 32768, productName: 'Tesla V100-SXM2-32GB' },
  { manufacturer: 'NVIDIA', apiName: 'K520', productName: 'GRID K520' },
  { manufacturer: 'NVIDIA', apiName: 'M60', productName: 'Tesla M60' },
  { manufacturer: 'NVIDIA', apiName: 'K80', productName: 'Tesla K80' },
  { manufacturer: 'NVIDIA', apiName: 'RTX PRO 4500', productName: 'NVIDIA RTX PRO 4500 Blackwell' },
  { manufacturer: 'NVIDIA', apiName: 'RTX PRO Server 6000', productName: 'NVIDIA RTX PRO 6000 Blackwell Server Edition' },
  { manufacturer: 'AMD', apiName: 'Radeon Pro V520', productName: 'AMD Radeon Pro V520' },
];

/**
 * The product name for an AWS GPU, or the API's own words when the table has no row
 * (the caller then reports the type as `unknown` and says so).
 */
export function awsGpuProductName(manufacturer: string, apiName: string, memoryMiB: number | null): string | undefined {
  const rows = AWS_GPU_NAMES.filter((row) => row.manufacturer.toLowerCase() === manufacturer.toLowerCase() && row.apiName.toLowerCase() === apiName.toLowerCase());
  const exact = rows.find((row) => row.memoryMiB !== undefined && row.memoryMiB === memoryMiB);
  return (exact ?? rows.find((row) => row.memoryMiB === undefined))?.productName;
}

export interface AzureGpuFamily {
  /** Matches the whole SKU name, case-insensitively. */
  pattern: RegExp;
  productName: string;
  /**
   * Partial-GPU sizes: the SKU's share of one GPU and its frame buffer. The `GPUs`
   * capability reads 1 for these, which would overstate them six-fold.
   */
  partitions?: Readonly<Record<string, { share: number; memoryMiB: number }>>;
  source: string;
}

const NVADS_A10_V5_DOC = 'github:MicrosoftDocs/azure-docs articles/virtual-machines/nva10v5-series.md @17107007 (GPU partition, GPU memory GiB)';

/** Azure GPU families by SKU name. Families not listed resolve to `unknown` with a notice. */
export const AZURE_GPU_FAMILIES: readonly AzureGpuFamily[] = [
  { pattern: /^Standard_NC\d+as_T4_v3$/i, productName: 'Tesla T4', source: 'NCasT4_v3 series' },
  // NCv3: Azure says V100 16 GB without the form factor; PCIe and SXM2 differ, so no guess.
  { pattern: /^Standard_NC\d+r?s_v3$/i, productName: 'Tesla V100 16GB (PCIe or SXM2, not stated)', source: 'NCv3 series' },
  { pattern: /^Standard_NC\d+r?s_v2$/i, productName: 'Tesla P100-PCIE-16GB', source: 'NCv2 series' },
  { pattern: /^Standard_NC\d+r?(_Promo)?$/i, productName: 'Tesla K80', source: 'NC series' },
  { pattern: /^Standard_NC\d+ads_A100_v4$/i, productName: 'NVIDIA A100 80GB PCIe', source: 'NC A100 v4 series' },
  { pattern: /^Standard_NC\d+adi?s_H100_v5$/i, productName: 'NVIDIA H100 NVL', source: 'NCads H100 v5 series' },
  { pattern: /^Standard_ND96asr_v4$/i, productName: 'NVIDIA A100-SXM4-40GB', source: 'ND A100 v4 series' },
  { pattern: /^Standard_ND96amsr_A100_v4$/i, productName: 'NVIDIA A100-SXM4-80GB', source: 'NDm A100 v4 series' },
  { pattern: /^Standard_ND96isr_H100_v5$/i, productName: 'NVIDIA H100 80GB HBM3', source: 'ND H100 v5 series' },
  { pattern: /^Standard_ND96isr_H200_v5$/i, productName: 'NVIDIA H200', source: 'ND H200 v5 series' },
  { pattern: /^Standard_ND96isr_MI300X_v5$/i, productName: 'AMD Instinct MI300X', source: 'ND MI300X v5 series' },
  { pattern: /^Standard_ND40rs_v2$/i, productName: 'Tesla V100-SXM2-32GB', source: 'NDv2 series' },
  { pattern: /^Standard_NV\d+(s_v3|_Promo)?$/i, productName: 'Tesla M60', source: 'NV and NVv3 series' },
  {
    pattern: /^Standard_NV\d+adm?s_A10_v5$/i,
    productName: 'NVIDIA A10',
    partitions: {
      standard_nv6ads_a10_v5: { share: 1 / 6, memoryMiB: 4 * 1024 },
      standard_nv12ads_a10_v5: { share: 1 / 3, memoryMiB: 8 * 1024 },
      standard_nv18ads_a10_v5: { share: 1 / 2, memoryMiB: 12 * 1024 },
    },
    source: NVADS_A10_V5_DOC,
  },
];

export function azureGpuFamily(skuName: string): AzureGpuFamily | undefined {
  return AZURE_GPU_FAMILIES.find((family) => family.pattern.test(skuName.trim()));
}

/**
 * How an instance's GPUs talk to each other: over NVLink (through NVSwitch from A100 on) or
 * over PCIe only. Tensor parallelism (one model split across GPUs) is planned only over NVLink:
 * PCIe carries a tenth of its bandwidth or less, and a split across it runs at a fraction of
 * the summed throughput.
 *
 * The fact follows from the GPU's form factor: SXM boards sit on an NVIDIA HGX baseboard whose
 * GPUs are linked by NVLink (V100 SXM2: a hybrid cube mesh; A100, H100, H200 and B200 SXM: all
 * to all through NVSwitch), which every cloud's 4- and 8-GPU SXM type uses (AWS p3, p4d, p4de,
 * p5, p5e, p5en; Azure ND v2, ND A100 v4, ND H100 v5, ND H200 v5; GCP A2, A3). PCIe and NVL
 * boards are taken as PCIe only: an NVLink bridge between a pair (H100 NVL) is not assumed where
 * the catalog does not say so. A table of data, not branches: a new SXM model is one row.
 */
import type { InstanceType } from '../model/index.js';

export type Interconnect = 'nvswitch' | 'nvlink' | 'pcie' | 'none';

export interface InterconnectFact {
  kind: Interconnect;
  /** Why: the rule and its source, for evidence. */
  basis: string;
}

const HGX = 'SXM board on an NVIDIA HGX baseboard (NVIDIA HGX platform; the providers\' instance pages for their SXM types)';

/** GPU model keys of SXM boards, with the link between the GPUs of one baseboard. */
const SXM_LINK: Readonly<Record<string, Exclude<Interconnect, 'pcie' | 'none'>>> = {
  'v100-sxm2-16gb': 'nvlink',
  'v100-sxm2-32gb': 'nvlink',
  'a100-sxm4-40gb': 'nvswitch',
  'a100-sxm4-80gb': 'nvswitch',
  'h100-sxm-80gb': 'nvswitch',
  'h200-sxm-141gb': 'nvswitch',
  b200: 'nvswitch',
  gb200: 'nvswitch',
};

export function interconnectOf(instance: Pick<InstanceType, 'gpuModelKey' | 'gpuCount'>): InterconnectFact {
  if (instance.gpuCount <= 1) return { kind: 'none', basis: `${instance.gpuCount === 1 ? 'one GPU' : 'no whole GPU'}: nothing to link` };
  const link = SXM_LINK[instance.gpuModelKey];
  if (link !== undefined) return { kind: link, basis: `${instance.gpuModelKey}: ${HGX}` };
  return { kind: 'pcie', basis: `${instance.gpuModelKey} is not an SXM board: PCIe between its GPUs` };
}

/** Whether `gpus` GPUs of one instance can hold one model split by tensor parallelism. */
export function holdsTensorParallel(instance: Pick<InstanceType, 'gpuModelKey' | 'gpuCount'>, gpus: number): boolean {
  if (gpus <= 1) return true;
  const { kind } = interconnectOf(instance);
  return gpus <= instance.gpuCount && (kind === 'nvlink' || kind === 'nvswitch');
}

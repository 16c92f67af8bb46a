/**
 * (b) dcgm-exporter metrics of a large fleet as Prometheus' /federate hands them out: the
 * exporter's HELP/TYPE lines and label names (as in the corpus `.prom` scrapes), the target
 * labels Prometheus adds (`instance`, `job`), labels sorted by name as federation prints
 * them, the pod mapping of GPUs that run a pod, and a millisecond timestamp on every sample.
 * One scrape of the whole fleet, or scrape after scrape (30 s apart) up to a size.
 */
import { SeededRandom } from './random.js';
import type { ChunkWriter } from './writer.js';

export interface DcgmFleetOptions {
  gpuCount: number;
  /** Scrapes are written until the file reaches this many bytes (at least one scrape). */
  targetBytes?: number;
}

const GPUS_PER_NODE = 8;
const SCRAPE_INTERVAL_MS = 30_000;
/** 2026-11-02T00:00:00Z, the demo fleet's Monday. */
export const FIRST_SCRAPE_MS = Date.UTC(2026, 10, 2);
const DRIVER_VERSION = '550.127.05';
/** HGX H100 board, as DGX H100 enumerates it. */
const BUS_IDS = ['18', '2A', '3A', '5D', '9A', 'AB', 'BA', 'DB'].map((bus) => `00000000:${bus}:00.0`);

interface GpuModel {
  name: string;
  fbTotalMiB: number;
  fbReservedMiB: number;
  idlePowerW: number;
  maxPowerW: number;
  maxSmClockMHz: number;
  memClockMHz: number;
}

/** Totals, reserved memory, power and clocks as the corpus captures of these boards print them. */
const MODELS: readonly GpuModel[] = [
  { name: 'NVIDIA H100 80GB HBM3', fbTotalMiB: 81559, fbReservedMiB: 479, idlePowerW: 69, maxPowerW: 700, maxSmClockMHz: 1980, memClockMHz: 2619 },
  { name: 'NVIDIA A100-SXM4-80GB', fbTotalMiB: 81920, fbReservedMiB: 869, idlePowerW: 62, maxPowerW: 400, maxSmClockMHz: 1410, memClockMHz: 1593 },
  { name: 'NVIDIA L40S', fbTotalMiB: 46068, fbReservedMiB: 531, idlePowerW: 35, maxPowerW: 350, maxSmClockMHz: 2520, memClockMHz: 9001 },
];

/** One scrape's reading of one GPU. */
export interface Reading {
  utilizationPct: number;
  fbUsedMiB: number;
  powerW: number;
  energyMj: number;
}

export type Metric = readonly [name: string, type: 'gauge' | 'counter', help: string, value: (gpu: FleetGpu, reading: Reading) => string];

const ratio = (value: number): string => value.toFixed(6);

/** The exporter's default counters (HELP texts as in the corpus scrapes), twenty of them. */
export const METRICS: readonly Metric[] = [
  ['DCGM_FI_DEV_SM_CLOCK', 'gauge', 'SM clock frequency (in MHz).', (gpu, r) => String(r.utilizationPct > 0 ? gpu.model.maxSmClockMHz : 345)],
  ['DCGM_FI_DEV_MEM_CLOCK', 'gauge', 'Memory clock frequency (in MHz).', (gpu) => String(gpu.model.memClockMHz)],
  ['DCGM_FI_DEV_MEMORY_TEMP', 'gauge', 'Memory temperature (in C).', (_gpu, r) => String(Math.round(35 + r.powerW * 0.03))],
  ['DCGM_FI_DEV_GPU_TEMP', 'gauge', 'GPU temperature (in C).', (_gpu, r) => String(Math.round(28 + r.powerW * 0.055))],
  ['DCGM_FI_DEV_POWER_USAGE', 'gauge', 'Power draw (in W).', (_gpu, r) => r.powerW.toFixed(6)],
  ['DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', 'counter', 'Total energy consumption since boot (in mJ).', (_gpu, r) => String(r.energyMj)],
  ['DCGM_FI_DEV_PCIE_REPLAY_COUNTER', 'counter', 'Total number of PCIe retries.', () => '0'],
  ['DCGM_FI_DEV_GPU_UTIL', 'gauge', 'GPU utilization (in %).', (_gpu, r) => String(r.utilizationPct)],
  ['DCGM_FI_DEV_MEM_COPY_UTIL', 'gauge', 'Memory utilization (in %).', (_gpu, r) => String(Math.round(r.utilizationPct * 0.4))],
  ['DCGM_FI_DEV_ENC_UTIL', 'gauge', 'Encoder utilization (in %).', () => '0'],
  ['DCGM_FI_DEV_DEC_UTIL', 'gauge', 'Decoder utilization (in %).', () => '0'],
  ['DCGM_FI_DEV_FB_FREE', 'gauge', 'Framebuffer memory free (in MiB).', (gpu, r) => String(gpu.model.fbTotalMiB - gpu.model.fbReservedMiB - r.fbUsedMiB)],
  ['DCGM_FI_DEV_FB_USED', 'gauge', 'Framebuffer memory used (in MiB).', (_gpu, r) => String(r.fbUsedMiB)],
  ['DCGM_FI_DEV_FB_RESERVED', 'gauge', 'Framebuffer memory reserved (in MiB).', (gpu) => String(gpu.model.fbReservedMiB)],
  ['DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS', 'counter', 'Number of remapped rows for uncorrectable errors', () => '0'],
  ['DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS', 'counter', 'Number of remapped rows for correctable errors', () => '0'],
  ['DCGM_FI_DEV_ROW_REMAP_FAILURE', 'gauge', 'Whether remapping of rows has failed', () => '0'],
  ['DCGM_FI_PROF_GR_ENGINE_ACTIVE', 'gauge', 'Ratio of time the graphics engine is active.', (_gpu, r) => ratio(r.utilizationPct / 100 * 0.97)],
  ['DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', 'gauge', 'Ratio of cycles the tensor (HMMA) pipe is active.', (_gpu, r) => ratio(r.utilizationPct / 100 * 0.41)],
  ['DCGM_FI_PROF_DRAM_ACTIVE', 'gauge', 'Ratio of cycles the device memory interface is active sending or receiving data.', (_gpu, r) => ratio(r.utilizationPct / 100 * 0.33)],
];

/** How a GPU is used across scrapes: a share of the fleet idles, trains steadily, or serves in bursts. */
type Usage = 'idle' | 'training' | 'serving';

export interface FleetGpu {
  model: GpuModel;
  usage: Usage;
  /** The series' labels but the metric name, sorted by name. */
  labelPairs: ReadonlyArray<readonly [name: string, value: string]>;
  /** Them after the metric name, `{...}`, as /federate prints them. */
  labels: string;
  steadyMiB: number;
  energyMj: number;
}

const POD_NAMES: Record<Exclude<Usage, 'idle'>, readonly [namespace: string, pod: string, container: string]> = {
  training: ['ml-training', 'llama3-70b-finetune-worker', 'trainer'],
  serving: ['inference', 'vllm-chat-7d9f8c6b5d', 'vllm'],
};

/** The fleet of `gpuCount` GPUs: models, usage and labels drawn from `random`. */
export function buildFleet(gpuCount: number, random: SeededRandom): FleetGpu[] {
  const gpus: FleetGpu[] = [];
  for (let index = 0; index < gpuCount; index += 1) {
    const node = Math.floor(index / GPUS_PER_NODE);
    const gpu = index % GPUS_PER_NODE;
    const model = MODELS[node % MODELS.length]!;
    const ip = `10.${20 + Math.floor(node / 65_536)}.${Math.floor(node / 256) % 256}.${node % 256}`;
    const hostname = `ip-${ip.replaceAll('.', '-')}.us-west-2.compute.internal`;
    const draw = random.next();
    const usage: Usage = draw < 0.3 ? 'idle' : draw < 0.8 ? 'training' : 'serving';
    const labels: Array<[string, string]> = [
      ['DCGM_FI_DRIVER_VERSION', DRIVER_VERSION],
      ['Hostname', hostname],
      ['UUID', random.uuid()],
      ['device', `nvidia${gpu}`],
      ['gpu', String(gpu)],
      ['instance', `${ip}:9400`],
      ['job', 'dcgm-exporter'],
      ['modelName', model.name],
      ['pci_bus_id', BUS_IDS[gpu]!],
    ];
    if (usage !== 'idle') {
      const [namespace, pod, container] = POD_NAMES[usage];
      labels.push(['container', container], ['namespace', namespace], ['pod', `${pod}-${node}`]);
    }
    labels.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    gpus.push({
      model,
      usage,
      labelPairs: labels,
      labels: `{${labels.map(([name, value]) => `${name}="${value}"`).join(',')}}`,
      steadyMiB: Math.round(model.fbTotalMiB * random.float(0.55, 0.9)),
      energyMj: random.int(1e9, 9e10),
    });
  }
  return gpus;
}

/** A GPU's reading at the next scrape, `intervalMs` after the one before (its energy counter moves on). */
export function readGpu(gpu: FleetGpu, random: SeededRandom, intervalMs = SCRAPE_INTERVAL_MS): Reading {
  let utilizationPct = 0;
  let fbUsedMiB = 0;
  if (gpu.usage === 'training') {
    utilizationPct = random.int(85, 100);
    fbUsedMiB = gpu.steadyMiB + random.int(-64, 64);
  } else if (gpu.usage === 'serving') {
    utilizationPct = random.next() < 0.3 ? random.int(40, 100) : random.int(0, 12);
    fbUsedMiB = gpu.steadyMiB;
  }
  const powerW = gpu.model.idlePowerW + (gpu.model.maxPowerW - gpu.model.idlePowerW) * (utilizationPct / 100) * random.float(0.8, 0.95);
  gpu.energyMj += Math.round(powerW * intervalMs);
  return { utilizationPct, fbUsedMiB, powerW, energyMj: gpu.energyMj };
}

/** Writes scrapes of the fleet: one, or as many as it takes to reach `targetBytes`. */
export function writeDcgmFederation(out: ChunkWriter, options: DcgmFleetOptions): void {
  const random = new SeededRandom(`dcgm-fleet/${options.gpuCount}`);
  const fleet = buildFleet(options.gpuCount, random);
  for (let scrape = 0; ; scrape += 1) {
    const suffix = ` ${FIRST_SCRAPE_MS + scrape * SCRAPE_INTERVAL_MS}\n`;
    const readings = fleet.map((gpu) => readGpu(gpu, random));
    for (const [name, type, help, value] of METRICS) {
      out.write(`# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`);
      const lines: string[] = [];
      fleet.forEach((gpu, index) => lines.push(`${name}${gpu.labels} ${value(gpu, readings[index]!)}${suffix}`));
      out.write(lines.join(''));
    }
    if (options.targetBytes === undefined || out.bytes >= options.targetBytes) return;
  }
}

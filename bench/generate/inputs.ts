/**
 * The benchmark inputs of the issue, at full size or scaled down (`--scale 0.1`), and a
 * Kubernetes list of the same fleet (the peak RSS target holds on every input): what each
 * is, its file name, and how it is made. Files go to `bench/.data/` (ignored by git) and are
 * made once per recipe; the marker beside each file says which recipe made it.
 */
import path from 'node:path';
import { writeDcgmFederation } from './dcgm-exposition.js';
import { writeKubernetesList } from './kubernetes-list.js';
import { writeNvidiaSmiXmlLog } from './nvidia-smi-xml-log.js';
import { RANGE_STEP_SECONDS, writePrometheusRangeAnswer } from './prometheus-answer.js';
import { writeQueryGpuCsvLog } from './query-gpu-csv-log.js';
import { generateOnce, type ChunkWriter, type GeneratedMarker } from './writer.js';

export type InputFormat = 'nvidia-smi-xml' | 'dcgm-exposition' | 'prometheus-answer' | 'query-gpu-csv' | 'kubernetes-list';

export interface BenchInput {
  id: string;
  format: InputFormat;
  title: string;
  fileName: string;
  /** Everything that decides the bytes; a change regenerates the file. */
  recipe: Record<string, string | number>;
  produce(out: ChunkWriter): void;
}

const MB = 1_000_000;
/** Bump when a generator's output changes, so that old files are not reused. */
const GENERATOR_VERSION = 1;

export function benchInputs(scale: number): BenchInput[] {
  const bytes = (megabytes: number): number => Math.max(1, Math.round(megabytes * MB * scale));
  const fleetGpus = Math.max(8, Math.round(10_000 * scale));
  const rangeGpus = Math.max(8, Math.round(200 * scale));
  const rangeSteps = (24 * 3600) / RANGE_STEP_SECONDS;
  const inputs: BenchInput[] = [
    {
      id: 'xml-log',
      format: 'nvidia-smi-xml',
      title: 'nvidia-smi -q -x -l log, 8 GPUs with processes',
      fileName: `nvidia-smi-8gpu-log-${scale}.xml`,
      recipe: { generator: 'nvidia-smi-xml-log', version: GENERATOR_VERSION, targetBytes: bytes(500) },
      produce: (out) => writeNvidiaSmiXmlLog(out, bytes(500)),
    },
    {
      id: 'dcgm-scrape',
      format: 'dcgm-exposition',
      title: `dcgm-exporter federation, ${fleetGpus.toLocaleString('en-US')} GPUs x 20 metrics, one scrape`,
      fileName: `dcgm-${fleetGpus}gpu-scrape-${scale}.prom`,
      recipe: { generator: 'dcgm-exposition', version: GENERATOR_VERSION, gpuCount: fleetGpus },
      produce: (out) => writeDcgmFederation(out, { gpuCount: fleetGpus }),
    },
    {
      id: 'dcgm-scrapes',
      format: 'dcgm-exposition',
      title: `dcgm-exporter federation, ${fleetGpus.toLocaleString('en-US')} GPUs, scrapes 30 s apart`,
      fileName: `dcgm-${fleetGpus}gpu-scrapes-${scale}.prom`,
      recipe: { generator: 'dcgm-exposition', version: GENERATOR_VERSION, gpuCount: fleetGpus, targetBytes: bytes(1000) },
      produce: (out) => writeDcgmFederation(out, { gpuCount: fleetGpus, targetBytes: bytes(1000) }),
    },
    {
      id: 'prometheus-range',
      format: 'prometheus-answer',
      title: `Prometheus query_range answer, ${rangeGpus} GPUs x 20 metrics, 24 h at 30 s`,
      fileName: `prometheus-${rangeGpus}gpu-range-${scale}.json`,
      recipe: { generator: 'prometheus-answer', version: GENERATOR_VERSION, gpuCount: rangeGpus, steps: rangeSteps },
      produce: (out) => writePrometheusRangeAnswer(out, { gpuCount: rangeGpus, steps: rangeSteps }),
    },
    {
      id: 'csv-log',
      format: 'query-gpu-csv',
      title: '--query-gpu CSV log, 8 GPUs, -l 1',
      fileName: `query-gpu-8gpu-log-${scale}.csv`,
      recipe: { generator: 'query-gpu-csv-log', version: GENERATOR_VERSION, targetBytes: bytes(1000) },
      produce: (out) => writeQueryGpuCsvLog(out, bytes(1000)),
    },
    {
      id: 'k8s-list',
      format: 'kubernetes-list',
      title: `kubectl get pods,nodes -A -o json of the ${fleetGpus.toLocaleString('en-US')}-GPU cluster (--k8s)`,
      fileName: `kubernetes-${fleetGpus}gpu-${scale}.json`,
      recipe: { generator: 'kubernetes-list', version: GENERATOR_VERSION, gpuCount: fleetGpus },
      produce: (out) => writeKubernetesList(out, fleetGpus),
    },
  ];
  return inputs;
}

export interface GeneratedInput {
  input: BenchInput;
  file: string;
  marker: GeneratedMarker;
  reused: boolean;
}

/** Makes (or finds) every input's file under `folder`. */
export function ensureInput(input: BenchInput, folder: string): GeneratedInput {
  const file = path.join(folder, input.fileName);
  const { marker, reused } = generateOnce(file, input.recipe, (out) => input.produce(out));
  return { input, file, marker, reused };
}

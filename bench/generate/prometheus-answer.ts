/**
 * A saved Prometheus `query_range` answer of the bench fleet's DCGM metrics: the GPUs, labels,
 * metrics and readings of dcgm-exposition.ts, over a day at a 30 s step, as
 *
 *   curl 'http://prometheus:9090/api/v1/query_range?query={__name__=~"DCGM_FI_.*"}&start=...&end=...&step=30s'
 *
 * saves it: compact JSON, one series per GPU and metric with its labels sorted by name, the
 * series sorted by their labels as Prometheus sorts a range answer (so a GPU's 20 series come
 * together, dcgm-exporter's Hostname and UUID sorting before __name__), times in Unix seconds,
 * values as strings in Go's shortest form.
 */
import { buildFleet, FIRST_SCRAPE_MS, METRICS, readGpu, type FleetGpu, type Reading } from './dcgm-exposition.js';
import { SeededRandom } from './random.js';
import type { ChunkWriter } from './writer.js';

export interface RangeAnswerOptions {
  gpuCount: number;
  /** Points per series. */
  steps: number;
}

export const RANGE_STEP_SECONDS = 30;

/** A label set as Prometheus compares them: name by name, then value by value, in byte order. */
function compareLabels(a: readonly (readonly [string, string])[], b: readonly (readonly [string, string])[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const [nameA, valueA] = a[index]!;
    const [nameB, valueB] = b[index]!;
    if (nameA !== nameB) return nameA < nameB ? -1 : 1;
    if (valueA !== valueB) return valueA < valueB ? -1 : 1;
  }
  return a.length - b.length;
}

function withName(gpu: FleetGpu, name: string): (readonly [string, string])[] {
  return [...gpu.labelPairs, ['__name__', name] as const].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function writePrometheusRangeAnswer(out: ChunkWriter, options: RangeAnswerOptions): void {
  const random = new SeededRandom(`prometheus-range/${options.gpuCount}`);
  const fleet = buildFleet(options.gpuCount, random);
  const series = fleet.flatMap((gpu) => METRICS.map((metric) => ({ gpu, metric, labels: withName(gpu, metric[0]) })));
  series.sort((a, b) => compareLabels(a.labels, b.labels));
  const firstSeconds = FIRST_SCRAPE_MS / 1000;
  out.write('{"status":"success","data":{"resultType":"matrix","result":[');
  // A GPU's series come one after another: its readings are drawn once, for all of them.
  const drawn = new Set<FleetGpu>();
  let readings: Reading[] = [];
  series.forEach(({ gpu, metric: [, , , value], labels }, index) => {
    if (!drawn.has(gpu)) {
      drawn.add(gpu);
      readings = Array.from({ length: options.steps }, () => readGpu(gpu, random, RANGE_STEP_SECONDS * 1000));
    } else if (series[index - 1]!.gpu !== gpu) {
      throw new Error('a GPU\'s series are not together in the sorted answer');
    }
    const points = readings.map((reading, step) => `[${firstSeconds + step * RANGE_STEP_SECONDS},"${String(Number(value(gpu, reading)))}"]`);
    out.write(`${index === 0 ? '' : ','}{"metric":${JSON.stringify(Object.fromEntries(labels))},"values":[${points.join(',')}]}`);
  });
  out.write(']}}');
}

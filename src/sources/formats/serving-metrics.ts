/**
 * Inference-server metrics in Prometheus text exposition: a `/metrics` scrape of vLLM (V0 and
 * V1), NVIDIA NIM, SGLang, TGI or Triton, one scrape or many concatenated, with or without
 * sample timestamps (as the DCGM scrapes). Each reading names the server instance it came
 * from (server, host, pod, model, engine) and what it measures (src/sources/serving/metric-names.ts);
 * the analysis turns counters into rates and histograms into quantiles.
 *
 * Detection: a page that names one of the servers' own metrics and no DCGM_FI_ series (a page
 * with both belongs to the dcgm-exporter parser, as node metrics do: save them apart).
 * Host: as for node metrics (`node`, `nodename`, `Hostname`, `instance` without its port), else
 * the input's host (file name or --host).
 */
import type { ServingReadingKind, ServingSample } from '../../model/index.js';
import type { ParseResult, SourceParser } from '../types.js';
import { DCGM_METRIC_PREFIX } from '../dcgm/fields.js';
import { scanExpositionLine, UNCAPPED_LABELS, type ExpositionSample } from '../dcgm/exposition.js';
import { inputLimitsOf } from '../input-limits.js';
import { forEachLine } from '../lexers/text/lines.js';
import { WarningLimiter } from '../lexers/text/warnings.js';
import { hostOf } from './node-metrics.js';
import { NIM_MARKERS, SERVING_MARKERS, servingFamilyOf, type ServingFamily } from '../serving/metric-names.js';

const COMMENT_NAMING = /^#\s*(?:HELP|TYPE)\s+(\S+)/u;

/** Labels that say which server instance a reading is from, not which series of a metric. */
const IDENTITY_LABELS = new Set(['model_name', 'model', 'name', 'pod', 'exported_pod', 'namespace', 'exported_namespace', 'engine', 'tp_rank', 'node', 'nodename', 'Hostname', 'instance', 'job', 'container', 'endpoint', 'service', 'le', 'quantile']);

function namesOfHead(head: string): string[] {
  const names: string[] = [];
  for (const raw of head.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const scanned = scanExpositionLine(line, undefined, UNCAPPED_LABELS);
    if (scanned.kind === 'sample') names.push(scanned.sample.name);
    else if (scanned.kind === 'comment') {
      const name = COMMENT_NAMING.exec(line)?.[1];
      if (name !== undefined) names.push(name);
    }
  }
  return names;
}

function detect(head: string): boolean {
  const names = namesOfHead(head);
  if (names.some((name) => name.startsWith(DCGM_METRIC_PREFIX))) return false;
  if (names.some((name) => SERVING_MARKERS.test(name))) return true;
  return NIM_MARKERS.every((marker) => names.some((name) => name.startsWith(marker)));
}

const label = (labels: ReadonlyMap<string, string>, ...names: string[]): string | null => {
  for (const name of names) {
    const value = labels.get(name);
    if (value !== undefined && value !== '') return value;
  }
  return null;
};

/** `+Inf`, `1.5`, `0.99`: a bucket bound or a quantile; undefined when it is neither. */
function boundOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\+?Inf$/u.test(text)) return Infinity;
  const value = Number(text);
  return text.trim() === '' || !Number.isFinite(value) ? undefined : value;
}

function kindOf(family: ServingFamily, part: 'value' | 'bucket' | 'sum' | 'count'): ServingReadingKind {
  if (part !== 'value') return part;
  return family.type === 'summary' ? 'quantile' : family.type === 'histogram' ? 'count' : family.type;
}

/**
 * One exposition sample as a serving reading: undefined for a metric no server writes, the
 * reason where it cannot be a reading. Shared with the live Prometheus source, so a file and
 * a server give the same readings.
 */
export function servingReading(sample: Pick<ExpositionSample, 'name' | 'labels' | 'value' | 'time'>, defaultHost: string): ServingSample | string | undefined {
  const found = servingFamilyOf(sample.name);
  if (found === undefined) return undefined;
  const { family, part } = found;
  const value = Number(sample.value);
  if (!Number.isFinite(value) || (family.type !== 'gauge' && value < 0)) return `${sample.name} value ${sample.value} is not a reading; left out`;
  const kind = kindOf(family, part);
  const bound = kind === 'bucket' ? boundOf(sample.labels.get('le')) : kind === 'quantile' ? boundOf(sample.labels.get('quantile')) : undefined;
  if ((kind === 'bucket' || kind === 'quantile') && bound === undefined) return `${sample.name} without a readable ${kind === 'bucket' ? 'le' : 'quantile'} label; left out`;
  const host = hostOf(sample.labels, defaultHost);
  const model = label(sample.labels, 'model_name', 'model', 'name');
  const pod = label(sample.labels, 'pod', 'exported_pod');
  const namespace = label(sample.labels, 'namespace', 'exported_namespace');
  // vLLM's data-parallel engines are servers of their own; SGLang's tensor-parallel ranks (tp_rank) are one server.
  const engine = label(sample.labels, 'engine');
  const series = [...sample.labels].filter(([name]) => !IDENTITY_LABELS.has(name)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, text]) => `${name}=${text}`).join(',');
  return {
    server: family.server,
    instance: [family.server, host, pod, model, engine === null ? null : `engine ${engine}`].filter((part) => part !== null).join(' '),
    host,
    model,
    namespace,
    pod,
    time: sample.time,
    metric: family.metric,
    kind,
    series,
    ...(bound === undefined ? {} : { bound }),
    value: value * (family.scale ?? 1),
  };
}

export const servingMetrics: SourceParser = {
  format: 'serving-metrics',
  description: 'inference-server metrics (vLLM, NIM, SGLang, TGI, Triton /metrics)',
  detect,
  async parse(chunks, context, sink): Promise<ParseResult> {
    const limits = inputLimitsOf(context.limits);
    const limiter = new WarningLimiter(sink);
    let readings = 0;

    const read = (sample: ExpositionSample, lineNumber: number): void => {
      const reading = servingReading(sample, context.host);
      if (reading === undefined) return;
      if (typeof reading === 'string') {
        limiter.warn(`line ${lineNumber}`, reading);
        return;
      }
      sink.serving?.(reading);
      readings += 1;
    };

    const lines = await forEachLine(chunks, context.ref, (line, lineNumber) => {
      const scanned = scanExpositionLine(line, undefined, limits);
      if (scanned.kind === 'invalid') {
        // A pasted excerpt often ends mid-line: said, never read as a figure.
        limiter.warn(`line ${lineNumber}`, `skipped a line that is not a metric line (${scanned.reason}): a cut excerpt?`);
        return;
      }
      if (scanned.kind === 'sample') read(scanned.sample, lineNumber);
    });
    if (readings === 0) limiter.warn(`line ${lines}`, 'no inference-server reading gpu-audit knows in this page');
    limiter.finish(`line ${lines}`);
    return { records: readings };
  },
};

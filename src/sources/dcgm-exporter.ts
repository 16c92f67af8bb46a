/**
 * dcgm-exporter's /metrics page (Prometheus text exposition), as saved by `curl` or a
 * scraper, one scrape or many concatenated:
 *
 *   # HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
 *   # TYPE DCGM_FI_DEV_GPU_UTIL gauge
 *   DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-...",pci_bus_id="00000000:37:00.0",modelName="Tesla T4",Hostname="node-1"} 91
 *
 * One GpuSample per device per scrape carries every field the scrape had for it. A scrape
 * ends where a series it already holds appears again (the next scrape), or where the
 * sample timestamp changes (when lines have timestamps); without timestamps samples are
 * point values (time undefined). Non-DCGM metrics in the same page are ignored; lines that
 * are not exposition at all (curl's `* Connection #0 ... left intact`) are warnings.
 */
import { InputError } from '../model/errors.js';
import type { ParseResult, SourceParser } from './types.js';
import { DCGM_METRIC_PREFIX, fieldByMetricName, type DcgmField } from './dcgm/fields.js';
import { copyString, LabelSetCache, scanExpositionLine } from './dcgm/exposition.js';
import { readSeriesLabels, TARGET_POD_LABELS_WARNING, type SeriesLabelsRead } from './dcgm/labels.js';
import { DcgmDevices } from './dcgm/devices.js';
import { readingSlot, ScrapeBatch } from './dcgm/scrape.js';
import { readDcgmValue } from './dcgm/values.js';
import { forEachLine } from './text/lines.js';
import { WarningLimiter } from './text/warnings.js';

/** What `curl -v` mixes into its output: `* Trying ...`, `> GET /metrics`, `< HTTP/1.1 200`. */
const CURL_NOISE = /^[*<>] /;
const DCGM_COMMENT = /^#\s*(?:HELP|TYPE)\s+DCGM_FI_/;
/** Longest piece of a skipped line quoted in its warning. */
const QUOTE_CHARS = 80;

/**
 * A page of exposition that has DCGM series: at least one DCGM_FI_ sample or HELP/TYPE
 * line in the head, and more exposition lines there than other lines. The
 * exporter's counter CSVs (`DCGM_FI_DEV_SM_CLOCK, gauge, help`) and its Helm ConfigMap
 * name DCGM fields too, but in no line a scrape would have.
 */
function detect(head: string): boolean {
  let dcgm = false;
  let exposition = 0;
  let other = 0;
  for (const raw of head.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (CURL_NOISE.test(line)) continue;
    const scanned = scanExpositionLine(line);
    if (scanned.kind === 'blank') continue;
    if (scanned.kind === 'invalid') {
      other += 1;
      continue;
    }
    exposition += 1;
    if (scanned.kind === 'comment' ? DCGM_COMMENT.test(line) : scanned.sample.name.startsWith(DCGM_METRIC_PREFIX)) dcgm = true;
  }
  return dcgm && exposition > other;
}

/**
 * One DCGM metric of the input: its field (undefined for one gpu-audit does not read) and,
 * per interned label set, the batch that last had the series (metric, label set).
 */
class MetricSeries {
  private batches = new Int32Array(0);

  /** The field's reading slot in a ScrapeBatch. */
  readonly slot: number | undefined;

  constructor(readonly field: DcgmField | undefined) {
    this.slot = field === undefined ? undefined : readingSlot(field);
  }

  lastBatch(labelSetId: number): number {
    return labelSetId < this.batches.length ? this.batches[labelSetId]! : 0;
  }

  mark(labelSetId: number, batchOrdinal: number): void {
    if (labelSetId >= this.batches.length) {
      const grown = new Int32Array(Math.max(64, labelSetId + 1, this.batches.length * 2));
      grown.set(this.batches);
      this.batches = grown;
    }
    this.batches[labelSetId] = batchOrdinal;
  }
}

function quote(line: string): string {
  const trimmed = line.trim();
  return JSON.stringify(trimmed.length > QUOTE_CHARS ? `${trimmed.slice(0, QUOTE_CHARS)}...` : trimmed);
}

export const dcgmExporter: SourceParser = {
  format: 'dcgm-exporter',
  description: 'dcgm-exporter /metrics scrape (Prometheus text, one or many scrapes)',
  detect,
  async parse(chunks, context, sink): Promise<ParseResult> {
    const warnings = new WarningLimiter(sink);
    const { warn } = warnings;
    const devices = new DcgmDevices(sink);
    const batch = new ScrapeBatch();
    const labelSets = new LabelSetCache();
    /** What each interned label set says (see readSeriesLabels), by its id; null for a series of no GPU. */
    const seriesRead: (SeriesLabelsRead | null | undefined)[] = [];
    const metrics = new Map<string, MetricSeries>();
    /** Series of label sets the cache did not take (escaped labels), by their text. */
    const otherSeriesInBatch = new Set<string>();
    /** Numbers the batch being gathered; a series last seen in this one was seen in this scrape. */
    let batchOrdinal = 1;
    let batchTime: number | undefined;
    let scrapes = 0;
    let dcgmLines = 0;
    let targetPodLabelsLine: number | undefined;

    const endScrape = (): void => {
      if (batch.isEmpty) return;
      batch.flush(batchTime, devices, sink);
      otherSeriesInBatch.clear();
      batchOrdinal += 1;
      scrapes += 1;
    };

    const lines = await forEachLine(chunks, context.ref, (line, lineNumber) => {
      const scanned = scanExpositionLine(line, labelSets);
      if (scanned.kind === 'blank' || scanned.kind === 'comment') return;
      if (scanned.kind === 'invalid') {
        warn(`line ${lineNumber}`, `skipped ${quote(line)}: ${scanned.reason}`);
        return;
      }
      const { sample } = scanned;
      if (!sample.name.startsWith(DCGM_METRIC_PREFIX)) return;
      dcgmLines += 1;
      const { labelSet } = sample;
      let series: SeriesLabelsRead | undefined;
      if (labelSet === undefined) {
        series = readSeriesLabels(sample.labels, context.host);
      } else {
        while (seriesRead.length <= labelSet.id) seriesRead.push(undefined);
        let read = seriesRead[labelSet.id];
        if (read === undefined) {
          read = readSeriesLabels(labelSet.labels, context.host) ?? null;
          seriesRead[labelSet.id] = read;
        }
        series = read ?? undefined;
      }
      if (series === undefined) return;
      if (series.targetPodLabelsIgnored) targetPodLabelsLine ??= lineNumber;

      let metric = metrics.get(sample.name);
      if (metric === undefined) {
        metric = new MetricSeries(fieldByMetricName(sample.name));
        metrics.set(copyString(sample.name), metric);
      }
      // A series is known by its text as printed: one exporter prints each series' labels in
      // the same order in every scrape, so its second appearance is the next scrape's. The
      // text is name + label set, so an interned label set and the name tell it apart.
      const seenInBatch = labelSet === undefined ? otherSeriesInBatch.has(sample.series) : metric.lastBatch(labelSet.id) === batchOrdinal;
      if (!batch.isEmpty && (seenInBatch || sample.time !== batchTime)) endScrape();
      if (labelSet === undefined) otherSeriesInBatch.add(sample.series);
      else metric.mark(labelSet.id, batchOrdinal);
      batchTime = sample.time;

      const { field } = metric;
      let value = field === undefined ? undefined : readDcgmValue(sample.value, field);
      if (Number.isNaN(value)) {
        warn(`line ${lineNumber}`, `${sample.name} value ${sample.value} is not a reading of this field; left out`);
        value = undefined;
      }
      batch.add(series, metric.slot, value, labelSet?.id);
    });
    endScrape();

    if (dcgmLines === 0) {
      throw new InputError('no DCGM_FI_ series found: not a dcgm-exporter scrape', { file: context.ref, location: `line ${lines}` });
    }
    if (targetPodLabelsLine !== undefined) {
      warn(`line ${targetPodLabelsLine}`, TARGET_POD_LABELS_WARNING);
    }
    warnings.finish(`line ${lines}`);
    return { records: scrapes };
  },
};

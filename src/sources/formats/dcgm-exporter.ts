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
import { InputError } from '../../support/index.js';
import type { ParseResult, SourceParser } from '../types.js';
import { DCGM_METRIC_PREFIX, fieldByMetricName, type DcgmField } from '../dcgm/fields.js';
import { type InternedLabels, LabelSetCache, SampleSpan, scanExpositionLine, UNCAPPED_LABELS } from '../dcgm/exposition.js';
import { inputLimitsOf } from '../input-limits.js';
import { readSeriesLabels, TARGET_POD_LABELS_WARNING, type SeriesLabelsRead } from '../dcgm/labels.js';
import { DcgmDevices } from '../dcgm/devices.js';
import { readingSlot, ScrapeBatch } from '../dcgm/scrape.js';
import { dcgmReading, dcgmValueProblem, readDcgmValue } from '../dcgm/values.js';
import { forEachLineSpan } from '../lexers/text/lines.js';
import { WarningLimiter } from '../lexers/text/warnings.js';
import { detached } from '../../support/index.js';

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
    const scanned = scanExpositionLine(line, undefined, UNCAPPED_LABELS);
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
 * One DCGM metric of the input: its name, its field (undefined for one gpu-audit does not read) and,
 * per interned label set, the batch that last had the series (metric, label set).
 */
class MetricSeries {
  private batches = new Int32Array(0);

  /** The field's reading slot in a ScrapeBatch. */
  readonly slot: number | undefined;

  constructor(
    readonly name: string,
    readonly field: DcgmField | undefined,
  ) {
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

/** The timestamp of the first sample line of `lines` that has one (in the order given), undefined when none does. */
function firstTimestamp(lines: Iterable<string>): number | undefined {
  for (const raw of lines) {
    const scanned = scanExpositionLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw, undefined, UNCAPPED_LABELS);
    if (scanned.kind === 'sample') return scanned.sample.time;
  }
  return undefined;
}

/**
 * One scrape, by its timestamps: the first sample of the file and its last carry the same one.
 * A scrape's samples are sent when it ends, so all of one scrape's come at the file's end.
 */
function sendsAllAtEnd(head: string, tail: string): boolean {
  const first = firstTimestamp(head.split('\n'));
  // The tail's first line is likely cut: only whole lines after it count.
  const last = firstTimestamp(tail.split('\n').slice(1).reverse());
  return first !== undefined && first === last;
}

export const dcgmExporter: SourceParser = {
  format: 'dcgm-exporter',
  description: 'dcgm-exporter /metrics scrape (Prometheus text, one or many scrapes)',
  detect,
  sendsAllAtEnd,
  async parse(chunks, context, sink): Promise<ParseResult> {
    const warnings = new WarningLimiter(sink);
    const { warn } = warnings;
    const devices = new DcgmDevices(sink);
    const batch = new ScrapeBatch();
    const labelSets = new LabelSetCache(inputLimitsOf(context.limits));
    /** What each interned label set says (see readSeriesLabels), by its id; null for a series of no GPU. */
    const seriesRead: (SeriesLabelsRead | null | undefined)[] = [];
    const metrics = new Map<string, MetricSeries>();
    /** Series of label sets the cache did not take (escaped labels), by their text. */
    const otherSeriesInBatch = new Set<string>();
    /** Numbers the batch being gathered; a series last seen in this one was seen in this scrape. */
    let batchOrdinal = 1;
    /** The batch's timestamp (when batchHasTime): a number kept apart from its presence, so that lines compare it without boxing. */
    let batchHasTime = false;
    let batchTime = 0;
    let scrapes = 0;
    let dcgmLines = 0;
    let targetPodLabelsLine: number | undefined;
    /** Lines skipped as no exposition, and why the first was: the reason when no DCGM line is read. */
    let skippedLines = 0;
    let firstSkipped: string | undefined;
    /** The line being read, whichever way it was read: the fast path fills it in place, the full scan copies into it. */
    const span = new SampleSpan();
    /** The metric of the line before: lines come metric by metric. Undefined for one of another exporter. */
    let lastMetricName: string | undefined;
    let lastMetric: MetricSeries | undefined;

    const endScrape = (): void => {
      if (batch.isEmpty) return;
      batch.flush(batchHasTime ? batchTime : undefined, devices, sink);
      otherSeriesInBatch.clear();
      batchOrdinal += 1;
      scrapes += 1;
    };

    /** The DCGM metric `name`, undefined for another exporter's. */
    const dcgmMetric = (name: string): MetricSeries | undefined => {
      if (name === lastMetricName) return lastMetric;
      lastMetricName = name;
      lastMetric = undefined;
      if (!name.startsWith(DCGM_METRIC_PREFIX)) return undefined;
      lastMetric = metrics.get(name);
      if (lastMetric === undefined) {
        const own = detached(name);
        lastMetric = new MetricSeries(own, fieldByMetricName(own));
        metrics.set(own, lastMetric);
      }
      return lastMetric;
    };

    /** What the interned label set says: read once per label set. */
    const seriesOf = (labelSet: InternedLabels): SeriesLabelsRead | undefined => {
      while (seriesRead.length <= labelSet.id) seriesRead.push(undefined);
      let read = seriesRead[labelSet.id];
      if (read === undefined) {
        read = readSeriesLabels(labelSet.readLabels(), context.host) ?? null;
        seriesRead[labelSet.id] = read;
      }
      return read ?? undefined;
    };

    /**
     * One line of a GPU series, its time in `span`: ends the scrape where the series comes again
     * or the time changes, then adds the value to the batch. `labelSetId` is undefined for labels
     * the cache did not take, whose series is known by its text; `valueText` is the value as
     * printed, undefined where `span.value` holds it read.
     */
    const take = (metric: MetricSeries, series: SeriesLabelsRead, labelSetId: number | undefined, seriesText: string, valueText: string | undefined, lineNumber: number): void => {
      if (series.targetPodLabelsIgnored) targetPodLabelsLine ??= lineNumber;
      // A series is known by its text as printed: one exporter prints each series' labels in
      // the same order in every scrape, so its second appearance is the next scrape's. The
      // text is name + label set, so an interned label set and the name tell it apart.
      const seenInBatch = labelSetId === undefined ? otherSeriesInBatch.has(seriesText) : metric.lastBatch(labelSetId) === batchOrdinal;
      const timeChanged = span.hasTime ? !batchHasTime || span.time !== batchTime : batchHasTime;
      if (!batch.isEmpty && (seenInBatch || timeChanged)) endScrape();
      if (labelSetId === undefined) otherSeriesInBatch.add(seriesText);
      else metric.mark(labelSetId, batchOrdinal);
      if (timeChanged) {
        batchHasTime = span.hasTime;
        batchTime = span.time;
      }

      const { field } = metric;
      let value: number | undefined;
      if (field !== undefined) value = valueText === undefined ? dcgmReading(span.value, field) : readDcgmValue(valueText, field);
      if (Number.isNaN(value)) {
        warn(`line ${lineNumber}`, `${metric.name} value ${valueText ?? span.value} ${dcgmValueProblem(valueText ?? String(span.value), field!)}`);
        value = undefined;
      }
      batch.add(series, metric.slot, value, labelSetId);
    };

    /** A line the fast path did not take (see LabelSetCache.scanSpan), scanned in full. */
    const scanLine = (line: string, lineNumber: number): void => {
      const scanned = scanExpositionLine(line, labelSets);
      if (scanned.kind === 'blank' || scanned.kind === 'comment') return;
      if (scanned.kind === 'invalid') {
        warn(`line ${lineNumber}`, `skipped ${quote(line)}: ${scanned.reason}`);
        skippedLines += 1;
        firstSkipped ??= `line ${lineNumber}: ${scanned.reason}`;
        return;
      }
      const { sample } = scanned;
      const metric = dcgmMetric(sample.name);
      if (metric === undefined) return;
      dcgmLines += 1;
      const { labelSet } = sample;
      const series = labelSet === undefined ? readSeriesLabels(sample.labels, context.host) : seriesOf(labelSet);
      if (series === undefined) return;
      span.hasTime = sample.time !== undefined;
      span.time = sample.time ?? 0;
      take(metric, series, labelSet?.id, sample.series, sample.value, lineNumber);
    };

    // Lines are read where they lie in the chunk (no string per line); the common sample line
    // of a large scrape is read into `span` (see SampleSpan), every other line in full.
    const lines = await forEachLineSpan(chunks, context.ref, (text, start, end, lineNumber) => {
      if (!labelSets.scanSpan(text, start, end, span)) {
        scanLine(start === 0 && end === text.length ? text : text.slice(start, end), lineNumber);
        return;
      }
      const metric = dcgmMetric(span.name);
      if (metric === undefined) return;
      dcgmLines += 1;
      const { labelSet } = span;
      const series = seriesOf(labelSet);
      if (series !== undefined) take(metric, series, labelSet.id, '', undefined, lineNumber);
    });
    endScrape();

    if (dcgmLines === 0) {
      const why = firstSkipped === undefined ? 'not a dcgm-exporter scrape' : `${skippedLines} lines skipped, the first at ${firstSkipped}`;
      throw new InputError(`no DCGM_FI_ series found: ${why}`, { file: context.ref, location: `line ${lines}` });
    }
    if (targetPodLabelsLine !== undefined) {
      warn(`line ${targetPodLabelsLine}`, TARGET_POD_LABELS_WARNING);
    }
    warnings.finish(`line ${lines}`);
    return { records: scrapes };
  },
};

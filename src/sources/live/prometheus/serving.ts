/**
 * Inference-server series from a live Prometheus: which of the servers' metric names the
 * server holds in the window (src/sources/serving/metric-names.ts), then the raw samples of
 * those series chunk by chunk, each handed on as the saved-scrape reader hands on a line
 * (../../formats/serving-metrics.ts servingReading): a server and its /federate dump give the
 * same readings, and the serving analysis its same figures (counter resets, quantiles by
 * interval and capacity need the samples, not an aggregate). A server's series are a few dozen;
 * what is held at once is one chunk's answer, and the analysis keeps tallies, not samples.
 * Chunks are evaluated at their ends over promSpan (./window.ts), so no sample is read twice.
 */
import type { ServingSample } from '../../../model/index.js';
import { servingReading } from '../../formats/serving-metrics.js';
import { SERVING_FAMILIES, servingFamilyOf } from '../../serving/metric-names.js';
import type { PrometheusClient } from './client.js';
import { seriesSelector } from './selector.js';
import { withinLimits } from './read-prometheus.js';
import { type AuditWindow, type Chunk, promSpan, type RangeRule } from './window.js';

const MINUTE_MS = 60_000;

/** Six hours a chunk: a day of 15-second scrapes of one server's series is some 200,000 samples. */
export const SERVING_CHUNK_SECONDS = 6 * 3600;

const FAMILY_NAMES = `(?:${Object.keys(SERVING_FAMILIES).join('|')})(?:_bucket|_sum|_count)?`;

export interface ServingFetch {
  /** Serving metric names found in the window. */
  metrics: string[];
  readings: number;
  /** Why samples were left out, each once. */
  warnings: string[];
}

export interface ServingFetchOptions {
  window: AuditWindow;
  matchers: readonly string[];
  rule: RangeRule;
  defaultHost: string;
  chunkSeconds?: number;
  onReading: (reading: ServingSample) => void;
}

export async function fetchServing(client: PrometheusClient, options: ServingFetchOptions): Promise<ServingFetch> {
  const { window } = options;
  const names = (await client.labelValues('__name__', `{__name__=~"${FAMILY_NAMES}"}`, window.startMs, window.endMs))
    .filter((name) => servingFamilyOf(name) !== undefined)
    .sort();
  const result: ServingFetch = { metrics: names, readings: 0, warnings: [] };
  if (names.length === 0) return result;
  const selector = seriesSelector(names, options.matchers);
  const chunkMs = (options.chunkSeconds ?? SERVING_CHUNK_SECONDS) * 1000;
  const warned = new Set<string>();
  // In time order, chunk after chunk: the analysis reads each server's scrapes in order.
  const splits = { count: 0 };
  const read = async (part: Chunk): Promise<void> => {
    const series = await client.rawSamples(`${selector}[${promSpan((part.endMs - part.startMs) / 1000, options.rule)}]`, part.endMs, part.startMs);
    for (const { labels, points } of series) {
      const { __name__: name = '', ...rest } = labels;
      const labelMap = new Map(Object.entries(rest));
      for (const [seconds, value] of points) {
        const reading = servingReading({ name, labels: labelMap, value: String(value), time: Math.round(seconds * 1000) }, options.defaultHost);
        if (reading === undefined) continue;
        if (typeof reading === 'string') {
          if (!warned.has(name)) result.warnings.push(reading);
          warned.add(name);
          continue;
        }
        options.onReading(reading);
        result.readings += 1;
      }
    }
  };
  // A chunk the engine refuses for its size is read in halves, the earlier first: order holds.
  for (let startMs = window.startMs; startMs < window.endMs; startMs += chunkMs) await withinLimits({ startMs, endMs: Math.min(window.endMs, startMs + chunkMs) }, MINUTE_MS, splits, read);
  if (splits.count > 0) result.warnings.push(`the engine refused ${splits.count} inference-server sample queries for their size: each was read again in halves of its time range`);
  return result;
}

/**
 * A saved report that the reader accepts must render in every format: each number of a fully
 * populated report is set in turn to an extreme (negative, huge, tiny, huge negative), and
 * where the reader takes the result, every renderer must draw it without an internal error.
 * What a renderer cannot draw, the reader refuses (exit 2), naming the field.
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/index.js';
import { NO_THRESHOLDS } from '../../src/model/index.js';
import type { Report } from '../../src/model/report.js';
import { parseReportJson } from '../../src/model/report-reader.js';
import { checkRenderers, renderers, reportFormats } from '../../src/render/index.js';
import { InputError } from '../../src/support/index.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { PLANNED_FLEET } from '../fixtures/reports/planned-fleet.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/corpus.js';

/** The demo's real report (timelines, series, plan and workloads included; its 22 devices draw the heatmap), with series cut short to render fast. */
function demoCut(): Report {
  const report = JSON.parse(readFileSync(path.join(repoRoot, 'test/golden/demo/audit.json'), 'utf8')) as Report;
  report.gpus = report.gpus.map((gpu) => ({
    ...gpu,
    ...(gpu.timeline === null || gpu.timeline === undefined ? {} : { timeline: { ...gpu.timeline, computeMeanPct: gpu.timeline.computeMeanPct.slice(0, 4), memoryUsedMaxMiB: gpu.timeline.memoryUsedMaxMiB.slice(0, 4) } }),
    ...(gpu.computeSeries === undefined || gpu.computeSeries === null ? {} : { computeSeries: { ...gpu.computeSeries, meanPct: gpu.computeSeries.meanPct.slice(0, 4) } }),
  }));
  return report;
}

const EXTREMES = [-1, 1e308, -1e308, 1e-300];
/** Array elements visited: the first two, as every element has the same shape. */
const ELEMENTS_VISITED = 2;

function numericPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'number') return [path];
  if (Array.isArray(value)) return value.slice(0, ELEMENTS_VISITED).flatMap((item, index) => numericPaths(item, [...path, index]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => numericPaths(item, [...path, key]));
  return [];
}

function withValue(json: unknown, path: readonly (string | number)[], value: number): unknown {
  const copy = structuredClone(json) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

function renderEverything(report: Report): void {
  for (const format of reportFormats) renderers[format](report, { color: false, width: 100 });
  const check = { report, check: runCheck(report, { thresholds: NO_THRESHOLDS }) };
  for (const render of Object.values(checkRenderers)) render(check, { color: false, width: 100 });
}

describe.each([['findings-and-recommendations', FINDINGS_AND_RECOMMENDATIONS], ['planned-fleet', PLANNED_FLEET], ['demo', demoCut()]] as const)('a saved %s report with one number made extreme', (_name, fixture) => {
  const json = JSON.parse(JSON.stringify(fixture)) as unknown;
  it('is refused by the reader, or renders in every format', () => {
    const crashes: string[] = [];
    for (const path of numericPaths(json)) {
      for (const value of EXTREMES) {
        let report: Report;
        try {
          report = parseReportJson(withValue(json, path, value), 'saved.json');
        } catch (error) {
          if (error instanceof InputError) continue;
          throw error;
        }
        try {
          renderEverything(report);
        } catch (error) {
          crashes.push(`${path.join('.')} = ${value}: ${(error as Error).message}`);
        }
      }
    }
    expect(crashes).toEqual([]);
  }, 120_000);
});

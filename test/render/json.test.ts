import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { REPORT_SCHEMA_VERSION } from '../../src/model/report-constants.js';
import { renderJson } from '../../src/render/json.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { PLANNED_FLEET } from '../fixtures/reports/planned-fleet.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { SNAPSHOT_ONLY } from '../fixtures/reports/snapshot-only.js';
import { copyOf } from './helpers.js';

const OPTIONS = { color: false, width: 100 };
const FIXTURES: [string, Report][] = [
  ['small fleet', SMALL_FLEET],
  ['snapshot only', SNAPSHOT_ONLY],
  ['findings and recommendations', FINDINGS_AND_RECOMMENDATIONS],
  ['planned fleet', PLANNED_FLEET],
];

/** The same data with the keys of every object reversed, as a producer might build it; evidence records left alone. */
/** Free-form maps keep the producer's order; only contract objects are reordered. */
const FREE_FORM_KEYS = new Set(['evidence', 'labels', 'gpuResources']);

function reversedKeys(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => reversedKeys(item));
  if (value === null || typeof value !== 'object' || FREE_FORM_KEYS.has(key)) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([name, child]) => [name, reversedKeys(child, name)]));
}

describe('renderJson', () => {
  it.each(FIXTURES)('writes the %s report as indented JSON with a final newline, losing nothing', (_name, report) => {
    const text = renderJson(report, OPTIONS);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toBe(`  "schemaVersion": ${REPORT_SCHEMA_VERSION},`);
    expect(JSON.parse(text)).toEqual(report);
  });

  it('writes keys in contract order whatever order the report was built in', () => {
    const rebuilt = reversedKeys(FINDINGS_AND_RECOMMENDATIONS) as Report;
    expect(Object.keys(rebuilt)[0]).toBe('kubernetes');
    expect(renderJson(rebuilt, OPTIONS)).toBe(renderJson(FINDINGS_AND_RECOMMENDATIONS, OPTIONS));
    const topLevel = Object.keys(JSON.parse(renderJson(rebuilt, OPTIONS)) as object);
    expect(topLevel).toEqual([
      'schemaVersion', 'generatedAt', 'tool', 'window', 'settings', 'sources', 'catalog', 'gpus', 'workloads', 'findings',
      'plan', 'recommendations', 'summary', 'kubernetes',
    ]);
  });

  it('keeps evidence in the order the producer gave it', () => {
    const parsed = JSON.parse(renderJson(FINDINGS_AND_RECOMMENDATIONS, OPTIONS)) as Report;
    const allocated = parsed.findings.find((finding) => finding.code === 'allocated-unused')!;
    expect(Object.keys(allocated.evidence)).toEqual(['pod', 'busyFraction', 'namespace']);
  });

  it('keeps keys a newer producer added, after the known ones', () => {
    const report = copyOf(SMALL_FLEET) as Report & { experimental?: unknown };
    report.experimental = { carbonKg: 12 };
    const parsed = JSON.parse(renderJson(report, OPTIONS)) as Record<string, unknown>;
    expect(Object.keys(parsed).slice(-2)).toEqual(['summary', 'experimental']);
  });

  it('omits an absent optional key rather than writing null', () => {
    const text = renderJson(FINDINGS_AND_RECOMMENDATIONS, OPTIONS);
    const parsed = JSON.parse(text) as Report;
    expect(parsed.recommendations.find((item) => item.kind === 'mps')).not.toHaveProperty('config');
    expect(parsed.recommendations.find((item) => item.kind === 'time-slicing')?.config?.format).toBe('yaml');
  });

  it('keeps nulls as null and does not round figures', () => {
    const parsed = JSON.parse(renderJson(SNAPSHOT_ONLY, OPTIONS)) as Report;
    expect(parsed.summary.wastePct).toBeNull();
    expect(parsed.gpus[1]!.memoryUsedMiB).toBeNull();
    // 21554 / 24564 x 100, unrounded
    expect(parsed.gpus[0]!.vramHeadroomPct).toBe((21_554 / 24_564) * 100);
  });

  it('escapes control characters in strings, so the JSON is safe to print to a terminal', () => {
    const report = copyOf(SMALL_FLEET);
    report.gpus[0]!.host = 'node\u001b[2J\u0007';
    const text = renderJson(report, OPTIONS);
    expect(text).toContain('"host": "node\\u001b[2J\\u0007"');
    expect(text).not.toContain('\u001b');
  });
});

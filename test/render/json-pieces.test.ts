/**
 * renderJsonPieces writes the JSON report in pieces (the CLI streams them to stdout or -o):
 * joined, they must be renderJson's text to the byte, whatever the report holds.
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { renderJson, renderJsonPieces } from '../../src/render/json.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { PLANNED_FLEET } from '../fixtures/reports/planned-fleet.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { SNAPSHOT_ONLY } from '../fixtures/reports/snapshot-only.js';
import { copyOf } from './helpers.js';

const OPTIONS = { color: false, width: 100 };
const joined = (report: Report): string => [...renderJsonPieces(report)].join('');

/** The same data with every object's keys reversed (free-form records too: they keep whatever order they have). */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([name, child]) => [name, reversedKeys(child)]));
}

describe('renderJsonPieces', () => {
  it.each([
    ['small fleet', SMALL_FLEET],
    ['snapshot only', SNAPSHOT_ONLY],
    ['findings and recommendations', FINDINGS_AND_RECOMMENDATIONS],
    ['planned fleet', PLANNED_FLEET],
  ['planned fleet', PLANNED_FLEET],
  ])('joins to renderJson\'s text for the %s report, and for it built in reverse key order', (_name, report) => {
    expect(joined(report)).toBe(renderJson(report, OPTIONS));
    const reversed = reversedKeys(report) as Report;
    expect(joined(reversed)).toBe(renderJson(reversed, OPTIONS));
  });

  it('writes a fleet of 1,000 GPUs in several pieces (batches of elements) that join to the same text', () => {
    const report = copyOf(SMALL_FLEET);
    const template = report.gpus[0]!;
    report.gpus = Array.from({ length: 1000 }, (_, index) => ({ ...template, id: `GPU-${index}`, index }));
    const pieces = [...renderJsonPieces(report)];
    expect(pieces.length).toBeGreaterThan(3); // 1,000 GPUs in batches of 256 (4 batches) and the closing piece
    expect(pieces.join('')).toBe(renderJson(report, OPTIONS));
  });

  it('writes empty arrays, keys a newer producer added, and leaves undefined keys out, as JSON.stringify does', () => {
    const report = copyOf(SNAPSHOT_ONLY) as Report & Record<string, unknown>;
    report.findings = [];
    report.recommendations = [];
    report.experimental = { carbonKg: 12, list: [1, 'two', null] };
    report.nothing = undefined;
    report.later = [undefined, { b: 1, a: 2 }];
    const text = joined(report);
    expect(text).toBe(renderJson(report, OPTIONS));
    expect(text).toContain('"findings": [],');
    expect(text).not.toContain('"nothing"');
    expect(text).toContain('"later": [\n    null,\n    {\n      "b": 1,');
  });
});

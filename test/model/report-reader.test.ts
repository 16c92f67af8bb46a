import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonPath, parseReportJson, readReportFile } from '../../src/model/report-reader.js';
import { runCheck } from '../../src/check/index.js';
import { InputError } from '../../src/support/errors.js';
import { renderJson } from '../../src/render/json.js';
import { renderCheckJson } from '../../src/render/check-verdict.js';
import { DEFAULT_RENDER_OPTIONS } from '../../src/render/types.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';

function tempFile(content: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gpu-audit-read-report-')), 'report.json');
  writeFileSync(file, content);
  return file;
}

/** The InputError the call throws, as the user reads it. */
function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).describe();
  }
  throw new Error('expected an InputError');
}

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('reading a saved report back', () => {
  it('returns the report the JSON renderer wrote, unchanged', async () => {
    for (const report of [SMALL_FLEET, FINDINGS_AND_RECOMMENDATIONS]) {
      const file = tempFile(renderJson(report, DEFAULT_RENDER_OPTIONS));
      expect(asJson(await readReportFile(file))).toEqual(asJson(report));
    }
  });

  it('reads a report written before timeline and hourOfWeekComputePct existed, as null', () => {
    const old = asJson(SMALL_FLEET) as { gpus: Record<string, unknown>[] };
    for (const gpu of old.gpus) {
      delete gpu.timeline;
      delete gpu.hourOfWeekComputePct;
    }
    const report = parseReportJson(old, 'old.json');
    expect(report.gpus.every((gpu) => gpu.timeline === null && gpu.hourOfWeekComputePct === null)).toBe(true);
  });

  it('reads a report written before meanComputePct and computeBasis existed as having no compute figure', () => {
    const old = asJson(SMALL_FLEET) as { summary: Record<string, unknown> };
    delete old.summary.meanComputePct;
    delete old.summary.computeBasis;
    // min-utilization then says no-data instead of passing or failing on another figure
    expect(parseReportJson(old, 'old.json').summary).toMatchObject({ meanComputePct: null, computeBasis: 'unknown' });
  });

  it('drops keys it does not know (nothing could show or compare them), and reads the rest', () => {
    const report = parseReportJson({ ...(asJson(SMALL_FLEET) as object), futureSection: { x: 1 } }, 'new.json');
    expect(Object.hasOwn(report, 'futureSection')).toBe(false);
    expect(report).toEqual(parseReportJson(asJson(SMALL_FLEET), 'same.json'));
  });

  it('accepts the output of check --format json and reads its report', () => {
    const check = runCheck(SMALL_FLEET, { thresholds: { limits: { maxWastePct: 10 }, findingLevels: {} } });
    const value = JSON.parse(renderCheckJson({ report: SMALL_FLEET, check }));
    expect(parseReportJson(value, 'check.json').summary).toEqual(SMALL_FLEET.summary);
  });

  it('names the file and the JSON path of the first problem', () => {
    const broken = asJson(SMALL_FLEET) as { gpus: { idleFraction: unknown }[] };
    broken.gpus[1]!.idleFraction = '12%';
    expect(failure(() => parseReportJson(broken, 'report.json'))).toMatch(/^report\.json: \$\.gpus\[1\]\.idleFraction: not a gpu-audit JSON report: /u);

    const inCheck = { report: broken, check: {} };
    expect(failure(() => parseReportJson(inCheck, 'check.json'))).toMatch(/^check\.json: \$\.report\.gpus\[1\]\.idleFraction: /u);
  });

  it('rejects another schemaVersion by name', () => {
    expect(failure(() => parseReportJson({ ...(asJson(SMALL_FLEET) as object), schemaVersion: 3 }, 'r.json'))).toBe(
      'r.json: $.schemaVersion: unsupported report schemaVersion 3: this gpu-audit reads schemaVersion 1 and 2',
    );
  });

  it('reads a schema-1 report, saved before the plan, as a report without a plan', () => {
    const { plan: _plan, ...saved } = asJson(SMALL_FLEET) as Record<string, unknown>;
    const report = parseReportJson({ ...saved, schemaVersion: 1 }, 'old.json');
    expect(report.schemaVersion).toBe(2);
    expect(report.plan).toBeNull();
    expect(report.gpus).toEqual(SMALL_FLEET.gpus);
  });

  it('rejects what is not a report: another JSON document, not JSON, no file', async () => {
    expect(failure(() => parseReportJson([1, 2], 'list.json'))).toMatch(/^list\.json: \$: not a gpu-audit JSON report/u);
    expect(failure(() => parseReportJson({ schemaVersion: 1 }, 'bare.json'))).toMatch(/^bare\.json: \$\.generatedAt: /u);
    await expect(readReportFile(tempFile('{"schemaVersion": 1,'))).rejects.toThrow(/not JSON/u);
    await expect(readReportFile(path.join(tmpdir(), 'gpu-audit-no-such-report.json'))).rejects.toThrow(/no such file/u);
  });

  it('writes JSON paths the way jq does', () => {
    expect(jsonPath([])).toBe('$');
    expect(jsonPath(['gpus', 3, 'memoryUsedMiB', 'max'])).toBe('$.gpus[3].memoryUsedMiB.max');
    expect(jsonPath(['evidence', 'odd key'])).toBe('$.evidence["odd key"]');
  });
});

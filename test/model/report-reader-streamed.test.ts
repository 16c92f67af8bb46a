import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { comparedPart } from '../../src/check/baseline.js';
import { runCheck } from '../../src/check/index.js';
import { readReportStreamed, streamedGpusPath } from '../../src/model/report-reader-streamed.js';
import { readComparedReport } from '../../src/check/read-baseline.js';
import { readReportFile } from '../../src/model/report-reader.js';
import { InputError } from '../../src/support/errors.js';
import type { Report } from '../../src/model/report.js';
import { renderCheckJson } from '../../src/render/check-verdict.js';
import { renderJson } from '../../src/render/json.js';
import { DEFAULT_RENDER_OPTIONS } from '../../src/render/types.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';

function tempFile(content: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gpu-audit-read-streamed-')), 'baseline.json');
  writeFileSync(file, content);
  return file;
}

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const checkOutputOf = (report: Report): string => renderCheckJson({ report, check: runCheck(report, { thresholds: { limits: { maxWastePct: 10 }, findingLevels: {} } }) });

/** What the whole-document reader says of `content`, and what this one says. */
async function bothReaders(content: string): Promise<[unknown, unknown]> {
  const file = tempFile(content);
  const settle = (read: Promise<Report>): Promise<unknown> =>
    read.then((report) => asJson(report), (error: unknown) => (error instanceof InputError ? error.describe() : error));
  return [await settle(readReportFile(file).then(comparedPart)), await settle(readComparedReport(file))];
}

describe('reading the baseline of check --baseline an entry at a time', () => {
  it('finds gpus from the start the writers give a report and the output of check --format json', () => {
    expect(streamedGpusPath(renderJson(SMALL_FLEET, DEFAULT_RENDER_OPTIONS))).toEqual(['gpus']);
    expect(streamedGpusPath(checkOutputOf(SMALL_FLEET))).toEqual(['report', 'gpus']);
    // Keys in another order (edited by hand): read whole.
    expect(streamedGpusPath(JSON.stringify({ generatedAt: 'x', schemaVersion: 1 }))).toBeUndefined();
  });

  it('reads a whole report as the whole-document reader does, entries kept whole (gpu-audit report)', async () => {
    const reordered = (report: Report): string => JSON.stringify({ summary: report.summary, ...(asJson(report) as object) });
    for (const report of [SMALL_FLEET, FINDINGS_AND_RECOMMENDATIONS]) {
      for (const content of [renderJson(report, DEFAULT_RENDER_OPTIONS), checkOutputOf(report), `\uFEFF${renderJson(report, DEFAULT_RENDER_OPTIONS)}`, reordered(report)]) {
        const file = tempFile(content);
        expect(asJson(await readReportStreamed(file))).toEqual(asJson(await readReportFile(file)));
        expect(asJson(await readReportStreamed(file))).toEqual(asJson(report));
      }
    }
  });

  it('gives what comparedPart gives of the whole report: a report, a check output, with a byte order mark, keys reordered', async () => {
    const reordered = (report: Report): string => JSON.stringify({ summary: report.summary, ...(asJson(report) as object) });
    for (const report of [SMALL_FLEET, FINDINGS_AND_RECOMMENDATIONS]) {
      for (const content of [renderJson(report, DEFAULT_RENDER_OPTIONS), checkOutputOf(report), `\uFEFF${renderJson(report, DEFAULT_RENDER_OPTIONS)}`, reordered(report)]) {
        const [whole, apart] = await bothReaders(content);
        expect(apart).toEqual(whole);
        expect(apart).toEqual(asJson(comparedPart(report)));
      }
    }
  });

  it('reports the first problem as the whole-document reader does: by key order, then by GPU', async () => {
    const broken = (edit: (report: Record<string, unknown> & { gpus: Record<string, unknown>[] }) => void): string => {
      const report = JSON.parse(renderJson(SMALL_FLEET, DEFAULT_RENDER_OPTIONS)) as Record<string, unknown> & { gpus: Record<string, unknown>[] };
      edit(report);
      return JSON.stringify(report, null, 2);
    };
    const cases = [
      broken((report) => (report.gpus[1]!.idleFraction = '12%')),
      // Before gpus: generatedAt comes first; after gpus: the GPU does.
      broken((report) => ((report.gpus[1]!.idleFraction = '12%'), (report.generatedAt = 7))),
      broken((report) => ((report.gpus[1]!.idleFraction = '12%'), (report.summary = {}))),
      broken((report) => (report.summary = {})),
      broken((report) => (report.schemaVersion = 3)),
    ];
    const described: unknown[] = [];
    for (const content of cases) {
      const [whole, apart] = await bothReaders(content);
      expect(apart).toEqual(whole);
      described.push(apart);
    }
    expect(described).toEqual([
      expect.stringMatching(/: \$\.gpus\[1\]\.idleFraction: not a gpu-audit JSON report: /u),
      expect.stringMatching(/: \$\.generatedAt: /u),
      expect.stringMatching(/: \$\.gpus\[1\]\.idleFraction: /u),
      expect.stringMatching(/: \$\.summary\.gpuCount: /u),
      expect.stringMatching(/: \$\.schemaVersion: unsupported report schemaVersion 3/u),
    ]);
    const inCheck = JSON.parse(checkOutputOf(SMALL_FLEET)) as { report: { gpus: Record<string, unknown>[] } };
    inCheck.report.gpus[0]!.samples = 'many';
    const [whole, apart] = await bothReaders(JSON.stringify(inCheck, null, 2));
    expect(apart).toEqual(whole);
    expect(apart).toMatch(/: \$\.report\.gpus\[0\]\.samples: /u);
  });

  it('says where JSON breaks off or goes wrong, and when there is no file', async () => {
    const text = renderJson(SMALL_FLEET, DEFAULT_RENDER_OPTIONS);
    const gpuStart = text.indexOf('"gpus": [') + '"gpus": ['.length;
    const badGpu = text.replace('"samples": ', '"samples": nope, "more": ');
    await expect(readComparedReport(tempFile(badGpu))).rejects.toThrow(/not JSON/u);
    await expect(readComparedReport(tempFile(badGpu))).rejects.toMatchObject({ location: '$.gpus[0]' });
    await expect(readComparedReport(tempFile(text.slice(0, text.length / 2)))).rejects.toThrow(/not JSON/u);
    await expect(readComparedReport(tempFile(`${text.slice(0, gpuStart)}]]${text.slice(gpuStart)}`))).rejects.toThrow(/not JSON/u);
    await expect(readComparedReport(path.join(tmpdir(), 'gpu-audit-no-such-baseline.json'))).rejects.toThrow(/no such file/u);
  });
});

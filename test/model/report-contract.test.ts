/**
 * The report contract has one source, its zod definitions (src/model/report-schema.ts): the
 * TypeScript types, the published JSON Schema, the JSON renderer's key order and the saved-report
 * reader all come from them. The generated files must be current, and an enum declared once (a
 * registry) reaches all of them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FINDING_CODE_NAMES, RECOMMENDATION_KINDS, type FindingCode, type RecommendationKind } from '../../src/model/index.js';
import { REPORT_ORDER_FILE, REPORT_SCHEMA_FILE, reportContractFiles } from '../../src/model/report-contract.js';
import { parseReportJson } from '../../src/model/report-reader.js';
import { renderJson } from '../../src/render/json.js';
import type { InputError } from '../../src/support/index.js';
import { repoRoot } from '../helpers/corpus.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';

/** Compile-time: the two types are the same. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const kindsAreTheRegistry: Same<RecommendationKind, (typeof RECOMMENDATION_KINDS)[number]> = true;
const codesAreTheRegistry: Same<FindingCode, (typeof FINDING_CODE_NAMES)[number]> = true;

interface EnumNode {
  enum?: string[];
}
const schema = JSON.parse(readFileSync(path.join(repoRoot, REPORT_SCHEMA_FILE), 'utf8')) as { $defs: Record<string, { properties: Record<string, EnumNode> }> };

/** The one line a refused report gives. */
function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    return (error as InputError).describe();
  }
  return 'accepted';
}

function reportWith(edit: (document: { findings: Record<string, unknown>[]; recommendations: Record<string, unknown>[] }) => void): unknown {
  const document = JSON.parse(renderJson(FINDINGS_AND_RECOMMENDATIONS, { color: false, width: 100 })) as { findings: Record<string, unknown>[]; recommendations: Record<string, unknown>[] };
  edit(document);
  return document;
}

describe('the report contract', () => {
  it.each(Object.entries(reportContractFiles()))('%s is what `npm run contract` generates from src/model/report-schema.ts', (file, text) => {
    expect([REPORT_SCHEMA_FILE, REPORT_ORDER_FILE]).toContain(file);
    expect(readFileSync(path.join(repoRoot, file), 'utf8')).toBe(text);
  });

  it('takes the recommendation kinds from their registry into the types, the JSON Schema and the reader', () => {
    expect(kindsAreTheRegistry).toBe(true);
    expect(schema.$defs['Recommendation']!.properties['kind']!.enum).toEqual([...RECOMMENDATION_KINDS]);
    for (const kind of RECOMMENDATION_KINDS) {
      expect(parseReportJson(reportWith((document) => (document.recommendations[0]!.kind = kind)), 'r.json').recommendations[0]!.kind).toBe(kind);
    }
    expect(refusal(() => parseReportJson(reportWith((document) => (document.recommendations[0]!.kind = 'resize')), 'r.json'))).toMatch(/^r\.json: \$\.recommendations\[0\]\.kind: not a gpu-audit JSON report: /u);
  });

  it('takes the finding codes from their registry into the types, the JSON Schema and the reader', () => {
    expect(codesAreTheRegistry).toBe(true);
    expect(schema.$defs['Finding']!.properties['code']!.enum).toEqual([...FINDING_CODE_NAMES]);
    for (const code of FINDING_CODE_NAMES) {
      expect(parseReportJson(reportWith((document) => (document.findings[0]!.code = code)), 'r.json').findings[0]!.code).toBe(code);
    }
    expect(refusal(() => parseReportJson(reportWith((document) => (document.findings[0]!.code = 'idle')), 'r.json'))).toMatch(/^r\.json: \$\.findings\[0\]\.code: not a gpu-audit JSON report: /u);
  });
});

/**
 * The renderers and the schema against a report the real pipeline builds (the bundled
 * demo fleet: four hosts, MIG devices, vLLM, notebooks) rather than a hand-built one:
 * the contract the analysis writes is the contract the schema and renderers read.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/report.js';
import { renderers } from '../../src/render/index.js';
import { auditDemoTelemetry } from '../helpers/audit.js';
import { repoRoot } from '../helpers/corpus.js';
import { ANSI_OR_CONTROL, columns, linesOf, markdownCells } from './helpers.js';

let report: Report;

beforeAll(async () => {
  ({ report } = await auditDemoTelemetry());
});

describe('a report built by the audit pipeline', () => {
  it('validates against schema/report.schema.json', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormatsModule.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(repoRoot, 'schema/report.schema.json'), 'utf8')) as object);
    const valid = validate(JSON.parse(renderers.json(report, { color: false, width: 100 })));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('renders as a table within 100 columns, without escapes, with every GPU on a row', () => {
    const text = renderers.table(report, { color: false, width: 100 });
    expect(linesOf(text).filter((line) => columns(line) > 100)).toEqual([]);
    expect(text).not.toMatch(ANSI_OR_CONTROL);
    expect(text).not.toMatch(/NaN|undefined|null/u);
    const lines = linesOf(text);
    const heading = lines.findIndex((line) => line.startsWith('GPUs ('));
    const tableEnd = lines.indexOf('', heading);
    // heading, two header lines and a rule, then one row per GPU and MIG device
    expect(tableEnd - heading - 4).toBe(report.gpus.length);
  });

  it('renders as Markdown whose tables stay intact', () => {
    const markdown = renderers.markdown(report, { color: false, width: 100 });
    let headerCells = 0;
    for (const line of linesOf(markdown)) {
      if (!line.startsWith('|')) {
        headerCells = 0;
        continue;
      }
      if (headerCells === 0) headerCells = markdownCells(line).length;
      expect(markdownCells(line)).toHaveLength(headerCells);
    }
    expect(markdown).toContain('## Methodology');
  });
});

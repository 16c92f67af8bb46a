/**
 * The published JSON Schema of gpu-audit.yaml (for editor completion) is generated from the
 * zod schema; the committed file must be what the generator writes today.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_FILE, configJsonSchemaText } from '../../src/config/document/index.js';
import { repoRoot } from '../helpers/corpus.js';

const committed = readFileSync(path.join(repoRoot, CONFIG_SCHEMA_FILE), 'utf8');

describe('schema/gpu-audit.config.schema.json', () => {
  it('is what scripts/build-config-schema.ts generates (run it after changing src/config/document/schema.ts)', () => {
    expect(committed).toBe(configJsonSchemaText());
  });

  it('validates the demo config and rejects a typo, as the loader does', () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(committed) as object);
    const demo: unknown = parse(readFileSync(path.join(repoRoot, 'fixtures/demo/gpu-audit.yaml'), 'utf8'));
    expect(validate(demo), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ workloads: [{ name: 'a', kind: 'batch', match: { hosts: ['h'] }, tennant: 'x' }] })).toBe(false);
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: '/workloads/0', keyword: 'additionalProperties', params: { additionalProperty: 'tennant' } }));
  });

  it('describes the settings an editor completes', () => {
    const schema = JSON.parse(committed) as { properties: Record<string, { description?: string }> };
    expect(Object.keys(schema.properties)).toEqual(['$schema', 'workloads', 'thresholds', 'pricing', 'hosts', 'plan', 'idleThresholdPct', 'vramHeadroomPct', 'timezone']);
    expect(schema.properties['idleThresholdPct']!.description).toMatch(/idle/);
  });
});

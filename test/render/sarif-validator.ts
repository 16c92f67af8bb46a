/**
 * Validates SARIF against the OASIS SARIF 2.1.0 schema (test/fixtures/schemas/README.md says
 * where the copy came from), read as draft-07: its one draft-04 keyword is the root `id`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { repoRoot } from '../helpers/corpus.js';

export function sarifValidator(): (data: unknown) => boolean {
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/schemas/sarif-schema-2.1.0.json'), 'utf8')) as Record<string, unknown>;
  const { id, $schema: _draft04, ...rest } = schema;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const draft07: object = { ...rest, $schema: 'http://json-schema.org/draft-07/schema#', $id: id };
  const validate = ajv.compile(draft07);
  return (data) => {
    const ok = validate(data);
    if (!ok) console.error(JSON.stringify(validate.errors, null, 2));
    return ok;
  };
}

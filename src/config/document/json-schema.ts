/**
 * The JSON Schema of gpu-audit.yaml, generated from the zod schema so the published file
 * (schema/gpu-audit.config.schema.json, written by scripts/build-config-schema.ts) cannot drift
 * from what the loader accepts. Editors use it for completion: start the YAML file with
 *   # yaml-language-server: $schema=./node_modules/gpu-audit/schema/gpu-audit.config.schema.json
 * Checks the schema cannot express (regex syntax, time zones, unique names) are the loader's.
 */
import { z } from 'zod';
import { configSchema } from './schema.js';

export const CONFIG_SCHEMA_FILE = 'schema/gpu-audit.config.schema.json';

export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  return { ...schema, title: 'gpu-audit.yaml' };
}

/** The file's text: two-space JSON and a final newline, as committed. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

/**
 * Writes schema/gpu-audit.config.schema.json from the zod schema in src/config/document/schema.ts.
 * Run after changing the schema: `npx tsx scripts/build-config-schema.ts`.
 * test/config/json-schema.test.ts fails while the committed file differs from the generated one.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CONFIG_SCHEMA_FILE, configJsonSchemaText } from '../src/config/document/json-schema.js';

const target = fileURLToPath(new URL(`../${CONFIG_SCHEMA_FILE}`, import.meta.url));
await writeFile(target, configJsonSchemaText());
console.log(`wrote ${CONFIG_SCHEMA_FILE}`);

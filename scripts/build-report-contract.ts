/**
 * Writes what is generated from the report's zod definitions (src/model/report-contract.ts):
 * schema/report.schema.json and src/model/report-order.generated.ts. Run after changing
 * src/model/report-schema.ts: `npm run contract`.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { reportContractFiles } from '../src/model/report-contract.js';

for (const [file, text] of Object.entries(reportContractFiles())) {
  await writeFile(fileURLToPath(new URL(`../${file}`, import.meta.url)), text);
  console.log(`wrote ${file}`);
}

import { runAudit } from '/work/main/src/audit.js';
import { renderers } from '/work/main/src/report/index.js';
import { bundledCatalog } from '/work/main/src/catalog/index.js';
import { readdirSync } from 'node:fs';
const files = readdirSync('/work/main/fixtures/demo').filter((f) => f.endsWith('.gz')).map((f) => `/work/main/fixtures/demo/${f}`);
const { report } = await runAudit({ inputs: files, timeZone: 'UTC', idleThresholdPct: 5, keepGoing: false, pricing: 'on-demand', catalog: bundledCatalog() });
const fmt = process.argv[2] ?? 'table';
if (fmt === 'summary') { for (const x of report.recommendations) console.log(x.id.slice(0, 70), x.monthlySavingsUsd, x.counted, x.alternativeTo ?? ''); console.log(report.summary.potentialMonthlySavingsUsd); }
else process.stdout.write(renderers[fmt as 'table'](report, { color: false, width: 100 }));

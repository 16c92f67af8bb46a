/**
 * `gpu-audit report REPORT.json`: re-renders a saved JSON report in any format without the
 * raw telemetry, so an audit run once yields every deliverable (table, Markdown, CSV, ...).
 * The file is validated first (exit 2 naming the file and the JSON path of the problem).
 */
import { Command } from 'commander';
import { OUTPUT_FORMATS, renderReportOutput, type OutputFormat } from '../../render/index.js';
import type { CliIo } from '../io.js';
import { addReportOutputOptions, addReportRenderOptions } from '../options.js';
import { redactKeyFromEnv, redactReport } from '../../render/index.js';
import { emitTargets } from '../output.js';
import { commandLineNotice } from '../notices.js';
import { outputTargets, type OutputTarget } from '../output-targets.js';
import { findingsCheck } from './audit.js';
import { refuseOutputOntoReads } from '../output-guard.js';

export interface ReportCommandOptions {
  format: OutputFormat;
  output?: string[];
  quiet?: boolean;
  color?: boolean;
  debug?: boolean;
  redact?: boolean;
  width?: number;
}

export function reportCommand(io: CliIo): Command {
  const command = new Command('report')
    .description('re-render a saved JSON report (gpu-audit audit --format json) in another format')
    .argument('<report.json>', 'a report written by `gpu-audit audit --format json` (or `check --format json`)');
  addReportOutputOptions(command);
  addReportRenderOptions(command);
  command.addHelpText('after', `
Examples:
  $ gpu-audit audit logs/ --format json -o report.json      # audit once ...
  $ gpu-audit report report.json                            # ... then render as often as needed
  $ gpu-audit report report.json --format markdown -o report.md
  $ gpu-audit report report.json --format csv -o gpus.csv   # one row per GPU, units in the header
  $ gpu-audit report report.json -o gpu-audit.sarif -o gpu-audit.junit.xml -o summary.md

Formats: ${OUTPUT_FORMATS.join(', ')}. JUnit and SARIF carry the report's findings (no
limits: \`gpu-audit check report.json --max-waste-pct 30\` gates a saved report).`);
  command.action(async (file: string, options: ReportCommandOptions, self: Command) => {
    await runReportCommand(file, options, outputTargets(options, self.getOptionValueSource('format') === 'cli'), io);
  });
  return command;
}

export async function runReportCommand(file: string, options: ReportCommandOptions, targets: readonly OutputTarget[], io: CliIo): Promise<void> {
  await refuseOutputOntoReads(targets.map((target) => target.file), [{ path: file, role: 'the report being rendered' }]);
  const { readReportStreamed } = await import('../../model/report-reader-streamed.js');
  const saved = await readReportStreamed(file);
  const report = options.redact === true ? redactReport(saved, { key: redactKeyFromEnv(io.env) }) : saved;
  await emitTargets(io, targets, options, (format, renderOptions) => renderReportOutput(report, format, renderOptions, () => findingsCheck(report)));
  const notice = commandLineNotice(report, targets, options);
  if (notice !== undefined) io.stderr(notice);
}

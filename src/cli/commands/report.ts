/**
 * `gpu-audit report REPORT.json`: re-renders a saved JSON report in any format without the
 * raw telemetry, so an audit run once yields every deliverable (table, Markdown, CSV, ...).
 * The file is validated first (exit 2 naming the file and the JSON path of the problem).
 */
import { Command } from 'commander';
import { renderReportOutput, reportFormats, type ReportFormat } from '../../render/index.js';
import type { CliIo } from '../io.js';
import { tableWidth, useColor } from '../io.js';
import { addOutputOptions, addReportRenderOptions } from '../options.js';
import { redactKeyFromEnv, redactReport } from '../../render/index.js';
import { emitOutput } from '../output.js';
import { refuseOutputOntoReads } from '../output-guard.js';

export interface ReportCommandOptions {
  format: ReportFormat;
  output?: string;
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
  addOutputOptions(command, reportFormats);
  addReportRenderOptions(command);
  command.addHelpText('after', `
Examples:
  $ gpu-audit audit logs/ --format json -o report.json      # audit once ...
  $ gpu-audit report report.json                            # ... then render as often as needed
  $ gpu-audit report report.json --format markdown -o report.md
  $ gpu-audit report report.json --format csv -o gpus.csv   # one row per GPU, units in the header

Formats: ${reportFormats.join(', ')}.`);
  command.action(async (file: string, options: ReportCommandOptions) => {
    await runReportCommand(file, options, io);
  });
  return command;
}

export async function runReportCommand(file: string, options: ReportCommandOptions, io: CliIo): Promise<void> {
  await refuseOutputOntoReads(options.output, [{ path: file, role: 'the report being rendered' }]);
  const { readReportStreamed } = await import('../../model/report-reader-streamed.js');
  const saved = await readReportStreamed(file);
  const report = options.redact === true ? redactReport(saved, { key: redactKeyFromEnv(io.env) }) : saved;
  await emitOutput(io, renderReportOutput(report, options.format, { color: useColor(io, options), width: tableWidth(io, options) }), options.output);
}

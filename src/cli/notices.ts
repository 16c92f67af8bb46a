/**
 * One line on stderr when a report written to a file holds the GPU processes' command lines:
 * an argument such as `--api-key sk-...` would travel with it. `--redact` replaces them by
 * hashes; `-q` silences the notice, and stdout (a pipe to jq, a terminal) never gets it.
 */
import type { Report } from '../model/index.js';
import type { OutputTarget } from './output-targets.js';

/** Distinct process names with a space: they carry arguments, command lines rather than bare executables. */
function commandLines(report: Report): number {
  const seen = new Set<string>();
  for (const gpu of report.gpus) for (const process of gpu.processes) if (/\s/u.test(process.name.trim())) seen.add(process.name);
  return seen.size;
}

export function commandLineNotice(report: Report, targets: readonly OutputTarget[], options: { redact?: boolean; quiet?: boolean }): string | undefined {
  if (options.redact === true || options.quiet === true || targets.every((target) => target.file === undefined)) return undefined;
  const count = commandLines(report);
  if (count === 0) return undefined;
  return `gpu-audit: notice: the report holds ${count} command line${count === 1 ? '' : 's'} of GPU processes with their arguments, which may carry secrets: --redact replaces them by hashes before the report is shared\n`;
}

import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { runAudit, type AuditOptions, type Provider } from '../../audit.js';
import type { PricingModel } from '../../model/catalog.js';
import { InputError } from '../../model/errors.js';
import { renderers } from '../../report/index.js';
import type { CliIo } from '../io.js';
import { useColor } from '../io.js';
import { addAnalysisOptions, addOutputOptions, type OutputFormat } from '../options.js';
import { emitOutput } from '../output.js';
import { demoFleetFiles } from '../paths.js';
import { startProgress } from '../progress.js';
import { snapshotThisMachine } from '../live.js';

export interface AuditCommandOptions {
  format: OutputFormat;
  output?: string;
  quiet?: boolean;
  color?: boolean;
  debug?: boolean;
  demo?: boolean;
  idleThreshold: number;
  timezone: string;
  host?: string;
  provider?: Provider;
  region?: string;
  pricing: PricingModel;
  instanceType?: string;
  keepGoing?: boolean;
}

/** Exit code of a finished audit: 2 when --keep-going skipped broken inputs (as `make -k` does). */
export type AuditOutcome = { exitCode: 0 | 2 };

export function auditCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const command = new Command('audit')
    .description('read GPU telemetry, profile every GPU and print the fleet report')
    .argument('[sources...]', 'files, directories (recursive), globs, or - for stdin; .gz is read transparently')
    .option('--demo', 'audit the bundled demo fleet (24 h of nvidia-smi logs of four nodes)');
  addAnalysisOptions(command);
  addOutputOptions(command);
  command.addHelpText('after', `
Examples:
  $ gpu-audit audit --demo
  $ gpu-audit audit node-07.xml                       # nvidia-smi -q -x (one snapshot or a -l log)
  $ gpu-audit audit logs/ --timezone Europe/Berlin    # every file below logs/, local times read in Berlin time
  $ gpu-audit audit 'logs/*.csv.gz' --format json -o report.json
  $ nvidia-smi -q -x | gpu-audit audit - --host gpu-node-3 --format markdown

With no sources and no --demo, gpu-audit takes one nvidia-smi snapshot of this machine.
Input formats are detected by content: nvidia-smi -q -x XML (snapshots and -l logs),
--query-gpu and --query-compute-apps CSV, dmon and pmon text.`);

  command.action(async (sources: string[], options: AuditCommandOptions, self: Command) => {
    const timezoneGiven = self.getOptionValueSource('timezone') === 'cli';
    const outcome = await runAuditCommand(sources, options, io, timezoneGiven);
    setExitCode(outcome.exitCode);
  });
  return command;
}

export async function runAuditCommand(sources: string[], options: AuditCommandOptions, io: CliIo, timezoneGiven = true): Promise<AuditOutcome> {
  const auditOptions: AuditOptions = {
    inputs: sources,
    host: options.host,
    timeZone: options.timezone,
    idleThresholdPct: options.idleThreshold,
    keepGoing: options.keepGoing === true,
    provider: options.provider,
    region: options.region,
    pricing: options.pricing,
    instanceType: options.instanceType,
    stdin: io.stdin as Readable,
  };
  if (options.demo === true) {
    if (sources.length > 0) throw new InputError('--demo takes no sources');
    auditOptions.inputs = demoFleetFiles;
    // The demo logs were written in UTC wall-clock time; an explicit --timezone still wins.
    if (!timezoneGiven) auditOptions.timeZone = 'UTC';
  } else if (sources.length === 0) {
    const snapshot = await snapshotThisMachine();
    auditOptions.inputs = ['-'];
    auditOptions.stdin = Readable.from([snapshot]);
    auditOptions.host = options.host ?? hostname();
  }

  const progress = startProgress(io, options.quiet === true);
  let result;
  try {
    result = await runAudit({ ...auditOptions, onInput: (ref, index, total) => progress.update(`reading ${ref} (${index + 1}/${total})`) });
  } finally {
    progress.stop();
  }

  const color = useColor(io, options);
  const text = renderers[options.format](result.report, { color, width: 100 });
  await emitOutput(io, text, options.output);
  if (options.quiet !== true) {
    for (const failure of result.failures) io.stderr(`gpu-audit: skipped ${failure.describe()}\n`);
  }
  return { exitCode: result.failures.length > 0 ? 2 : 0 };
}

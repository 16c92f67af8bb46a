import { Command, CommanderError } from 'commander';
import { outputFiles } from './output-targets.js';
import { refuseMisleadingFlags } from './flag-checks.js';
import { InputError, UpstreamError } from '../support/index.js';
import { toolInfo } from '../support/index.js';
import { auditCommand } from './commands/audit.js';
import { catalogCommand } from './commands/catalog.js';
import { sizeCommand } from './commands/size.js';
import { checkCommand } from './commands/check.js';
import { refreshCommand } from './commands/catalog-refresh.js';
import { reportCommand } from './commands/report.js';
import { collectCommand } from './commands/collect.js';
import { initCommand } from './commands/init.js';
import { sweepStaleTemporaries } from '../support/index.js';
import { ExitCode } from './exit-codes.js';
import { commanderOutput, type CliIo } from './io.js';

export function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('gpu-audit')
    .description('GPU utilization auditor and right-sizing advisor')
    .version(toolInfo().version, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput(commanderOutput(io))
    .exitOverride();
  program.addHelpText('after', `
Examples:
  $ gpu-audit audit --demo                         # the bundled demo fleet
  $ gpu-audit audit node-07.xml --format json      # nvidia-smi -q -x output of one machine
  $ gpu-audit check logs/ --max-waste-pct 30       # CI gate: exit 1 when breached
  $ gpu-audit report report.json --format markdown # re-render a saved JSON report
  $ gpu-audit catalog list --provider aws --gpu H100
  $ gpu-audit collect --duration 1h -o run-42/     # sample this machine, then: gpu-audit audit run-42/
  $ gpu-audit init logs/                           # propose workloads, write gpu-audit.yaml

Exit codes: 0 ok, 1 threshold breached (check), 2 usage or input error, 3 upstream failure, 4 internal error.`);
  program.addCommand(auditCommand(io, setExitCode));
  program.addCommand(checkCommand(io, setExitCode));
  program.addCommand(reportCommand(io));
  program.addCommand(catalogCommand(io, { refreshCommand: () => refreshCommand(io) }));
  program.addCommand(sizeCommand(io));
  program.addCommand(collectCommand(io));
  program.addCommand(initCommand(io, setExitCode));
  for (const command of program.commands) command.exitOverride().configureOutput(commanderOutput(io));
  // Before any command with -o runs: what a writer killed by SIGKILL left beside the target goes.
  program.hook('preAction', async (root, command) => {
    refuseMisleadingFlags(command, rawArgsOf(root), io.stdoutIsTty);
    for (const file of outputFiles(command.opts().output)) if (typeof file === 'string' && file !== '-' && command.name() !== 'collect') await sweepStaleTemporaries(file, processStartMs());
  });
  return program;
}

/** What the user typed, as commander kept it. */
function rawArgsOf(program: Command): readonly string[] {
  return (program as Command & { rawArgs?: string[] }).rawArgs ?? [];
}

/** This process's start: temporary files older than it were left by an earlier run. */
function processStartMs(): number {
  return Date.now() - process.uptime() * 1000;
}

/**
 * Runs the CLI and returns the exit code. The only place that decides how errors end:
 * known errors print one line, anything else is a bug with its stack behind --debug.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  const debug = argv.includes('--debug');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end successfully; commander has already printed any usage error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.input;
    }
    if (error instanceof InputError) {
      io.stderr(`gpu-audit: ${error.describe()}\n`);
      if (debug) io.stderr(`${error.stack ?? ''}\n`);
      return ExitCode.input;
    }
    if (error instanceof UpstreamError) {
      io.stderr(`gpu-audit: ${error.describe()}\n`);
      if (debug) io.stderr(`${error.stack ?? ''}\n`);
      return ExitCode.upstream;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`gpu-audit: internal error: ${message}\n`);
    io.stderr(debug ? `${error instanceof Error ? (error.stack ?? '') : ''}\n` : 'This is a bug in gpu-audit: run again with --debug and report the output.\n');
    return ExitCode.internal;
  }
}

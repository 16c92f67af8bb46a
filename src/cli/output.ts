import { rmSync } from 'node:fs';
import { writeFileAtomic } from '../support/index.js';
import type { CliIo } from './io.js';
import { tableWidth, useColor } from './io.js';
import type { OutputFormat, RenderOptions } from '../render/index.js';
import type { OutputTarget } from './output-targets.js';

/**
 * Writes each target in turn (stdout or a file, src/cli/output-targets.ts), rendered for it:
 * colour and the terminal's width only on stdout. One output is made at a time, so several
 * formats of a large report never sit in memory together.
 */
export async function emitTargets(
  io: CliIo,
  targets: readonly OutputTarget[],
  options: { color?: boolean; width?: number },
  render: (format: OutputFormat, renderOptions: RenderOptions) => string | Iterable<string>,
): Promise<void> {
  for (const target of targets) {
    const where = { ...options, output: target.file };
    await emitOutput(io, render(target.format, { color: useColor(io, where), width: tableWidth(io, where) }), target.file);
  }
}

/**
 * Writes a rendered output to stdout, or atomically to a file (never half-written). A large
 * output may come in pieces (src/render/json.ts renderJsonPieces): each goes out as it is
 * made, so the whole text is never held as one string, nor copied into one Buffer; into a
 * pipe, the next piece is made once the reader has taken the last (otherwise a slow reader such
 * as `| jq` would have the whole report queued in memory).
 */
export async function emitOutput(io: CliIo, text: string | Iterable<string>, outputFile: string | undefined): Promise<void> {
  if (outputFile === undefined || outputFile === '-') {
    if (typeof text === 'string') {
      io.stdout(text);
      return;
    }
    for (const piece of text) {
      io.stdout(piece);
      await io.stdoutDrained?.();
    }
    return;
  }
  await writeWithSignalCleanup(outputFile, text);
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_NUMBERS: Readonly<Record<(typeof STOP_SIGNALS)[number], number>> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };

/**
 * Ctrl-C or SIGTERM while `-o FILE` is being written: the target is already safe (the
 * rename has not happened), but the temporary file beside it would stay. For the moment of
 * the write, a stop signal removes it and ends the process as the signal would (128 + n).
 */
async function writeWithSignalCleanup(outputFile: string, text: string | Iterable<string>): Promise<void> {
  let temporary: string | undefined;
  const stop = (signal: (typeof STOP_SIGNALS)[number]): void => {
    if (temporary !== undefined) rmSync(temporary, { force: true });
    process.exit(128 + SIGNAL_NUMBERS[signal]);
  };
  for (const signal of STOP_SIGNALS) process.once(signal, stop);
  try {
    await writeFileAtomic(outputFile, text, { onTemporary: (file) => { temporary = file; } });
  } finally {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, stop);
  }
}

import { describeFailure } from '../support/index.js';
import { InputError } from '../support/index.js';
import { ExitCode } from './exit-codes.js';

/**
 * Where the CLI writes. Commands take this object instead of touching process.* so they can
 * be run in-process by tests; main.ts builds the real one.
 */
export interface CliIo {
  stdout: (text: string) => void;
  /**
   * Resolves once stdout has taken what was written (at once where it writes synchronously,
   * a file or a terminal): a large output written in pieces waits for a slow pipe here
   * instead of queueing all of itself in memory. Absent: never wait.
   */
  stdoutDrained?: () => Promise<void>;
  stderr: (text: string) => void;
  /** stdout is a terminal (for colours and progress). */
  stdoutIsTty: boolean;
  /** Columns of the terminal stdout is, where it is one. */
  stdoutColumns?: number;
  stderrIsTty: boolean;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
}

/**
 * A reader that goes away (`gpu-audit ... | head`) is not an error: stop quietly, as Unix tools
 * do. Any other failure to write the output (a full disk, `> /dev/full`) ends with one line and
 * exit 2, never a stack trace; with stderr itself broken, silently.
 */
function endOnWriteFailure(stream: 'stdout' | 'stderr', error: NodeJS.ErrnoException): never {
  if (error.code !== 'EPIPE' && stream === 'stdout') {
    try {
      process.stderr.write(`gpu-audit: cannot write to standard output: ${describeFailure(error)}\n`);
    } catch {
      // stderr is broken too: the exit code says it
    }
  }
  process.exit(error.code === 'EPIPE' ? ExitCode.ok : ExitCode.input);
}

export function processIo(): CliIo {
  // A file or device is written synchronously (the write throws); a pipe fails later (an 'error' event).
  process.stdout.on('error', (error: NodeJS.ErrnoException) => endOnWriteFailure('stdout', error));
  process.stderr.on('error', (error: NodeJS.ErrnoException) => endOnWriteFailure('stderr', error));
  const write = (stream: 'stdout' | 'stderr', text: string): void => {
    try {
      process[stream].write(text);
    } catch (error) {
      endOnWriteFailure(stream, error as NodeJS.ErrnoException);
    }
  };
  return {
    stdout: (text) => write('stdout', text),
    stdoutDrained: () => drained(process.stdout),
    stderr: (text) => write('stderr', text),
    stdoutIsTty: process.stdout.isTTY === true,
    ...(process.stdout.isTTY === true && process.stdout.columns > 0 ? { stdoutColumns: process.stdout.columns } : {}),
    stderrIsTty: process.stderr.isTTY === true,
    env: process.env,
    stdin: process.stdin,
  };
}

/** Resolves when `stream` needs no drain, or once it drains, closes or fails (the error is handled where it is listened for). */
export function drained(stream: NodeJS.WritableStream & { writableNeedDrain?: boolean }): Promise<void> {
  if (stream.writableNeedDrain !== true) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      for (const event of ['drain', 'close', 'error']) stream.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'error']) stream.on(event, done);
  });
}

/**
 * Colours only on a terminal, never with NO_COLOR (any non-empty value, per no-color.org)
 * or --no-color, and never into a file; FORCE_COLOR turns them on for screenshots and tests.
 */
export function useColor(io: CliIo, options: { color?: boolean; output?: string }): boolean {
  if (options.color === false || options.output !== undefined) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  // A dumb terminal shows escape codes as text.
  if (io.env.TERM === 'dumb') return false;
  return io.stdoutIsTty;
}

/** Narrowest and widest text tables drawn: below, the columns cannot hold their figures; above, lines are too long to read. */
export const TABLE_COLUMNS = { min: 60, max: 240, default: 100 } as const;

/** Width of text tables: --width, else the terminal's (within TABLE_COLUMNS), else the default (a pipe, a file, -o). */
export function tableWidth(io: CliIo, options: { width?: number; output?: string }): number {
  if (options.width !== undefined) return options.width;
  if (options.output !== undefined || !io.stdoutIsTty || io.stdoutColumns === undefined) return TABLE_COLUMNS.default;
  return Math.min(TABLE_COLUMNS.max, Math.max(TABLE_COLUMNS.min, io.stdoutColumns));
}

/**
 * The time a report is made at: now, or SOURCE_DATE_EPOCH (whole seconds since 1970, the
 * reproducible-builds convention) so that the same inputs give the same bytes.
 */
export function reportClock(env: NodeJS.ProcessEnv): (() => Date) | undefined {
  const value = env.SOURCE_DATE_EPOCH;
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,12}$/u.test(value)) throw new InputError(`SOURCE_DATE_EPOCH is ${JSON.stringify(value.slice(0, 40))}: expected whole seconds since 1970-01-01 UTC`);
  const pinned = new Date(Number(value) * 1000);
  return () => pinned;
}

/** Help text is wrapped at this width off a terminal, so `--help` (and docs/cli.md, made from it) reads the same everywhere. */
const HELP_COLUMNS = 80;

/** Where commander prints help and usage errors, and how wide: the terminal's width on one, else 80. */
export function commanderOutput(io: CliIo): { writeOut: (text: string) => void; writeErr: (text: string) => void; getOutHelpWidth: () => number; getErrHelpWidth: () => number } {
  const width = (): number => (io.stdoutIsTty && io.stdoutColumns !== undefined ? io.stdoutColumns : HELP_COLUMNS);
  return { writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text), getOutHelpWidth: width, getErrHelpWidth: width };
}

/**
 * Where the CLI writes. Commands take this object instead of touching process.* so they can
 * be run in-process by tests; main.ts builds the real one.
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stdout is a terminal (for colours and progress). */
  stdoutIsTty: boolean;
  stderrIsTty: boolean;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
}

export function processIo(): CliIo {
  // A reader that goes away (`gpu-audit ... | head`) is not an error: stop quietly, as Unix tools do.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdoutIsTty: process.stdout.isTTY === true,
    stderrIsTty: process.stderr.isTTY === true,
    env: process.env,
    stdin: process.stdin,
  };
}

/**
 * Colours only on a terminal, never with NO_COLOR (any non-empty value, per no-color.org)
 * or --no-color, and never into a file; FORCE_COLOR turns them on for screenshots and tests.
 */
export function useColor(io: CliIo, options: { color?: boolean; output?: string }): boolean {
  if (options.color === false || options.output !== undefined) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return io.stdoutIsTty;
}
